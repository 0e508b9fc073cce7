"""Eval suites (0.1): publish, list, read, tombstone and reinstate versions, and build a
`judged` version from an agent's corrected runs, whose cases are frozen copies.

`publish` registers and tombstones versions, `build` freezes a judged one's cases, `read`
answers about suites; callers use them through this package.
"""

from .build import Built, JudgedSelection, build_from_judgments
from .publish import (
    EVAL_KINDS,
    NewVersion,
    Published,
    SuiteReinstated,
    Tombstoned,
    check_version,
    publish,
    reinstate,
    unregister,
)
from .read import (
    EvalSuite,
    all_cases,
    exists,
    get,
    get_version,
    judged_latest,
    list_cases,
    list_suites,
    list_versions,
    suite_of,
    versions,
)

__all__ = [
    "EVAL_KINDS",
    "Built",
    "EvalSuite",
    "JudgedSelection",
    "NewVersion",
    "Published",
    "SuiteReinstated",
    "Tombstoned",
    "all_cases",
    "build_from_judgments",
    "check_version",
    "exists",
    "get",
    "get_version",
    "judged_latest",
    "list_cases",
    "list_suites",
    "list_versions",
    "publish",
    "reinstate",
    "suite_of",
    "unregister",
    "versions",
]

"""A frozen test-set version as a file you commit: deterministic bytes, one case per line.

The file is UTF-8 JSON with every object's keys sorted, in a small envelope: the agents and
flows (with their versions) its cases' runs ran, `caseCount`, the `cases` in the version's
own order, `format`, `id`, `kind: corrections`, the `sha256` of the canonical cases (the
digest a pull keeps, so a pulled version and its file tell the same content), `version`.
The same version always gives the same bytes, and a diff between two versions shows the
cases that changed as lines. A file read back has each case's shape checked too, so a run
started on its version never meets a case it can't read.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from .corrections import RIGHT_WRONG
from .errors import ValidationFailed
from .json import JSON, JSONObject
from .narrow import is_number, objects_of
from .semver import is_semver

FORMAT = "kindgi.test-set/1"
KIND = "corrections"
ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._~-]{0,299}")


_ASCII = json.JSONEncoder(sort_keys=True, separators=(",", ":"))
_UTF8 = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
_PLAIN = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), allow_nan=False, check_circular=False
)
"""`_ASCII` refusing a number that isn't finite, for parsed JSON (which holds no cycle)."""


def case_text(case: object) -> str:
    """A case as the file and the digest write it: compact JSON, keys sorted, UTF-8 as is.

    Written escaped to ASCII first, which takes a third less time: with no `\\u` escape in
    it (no character past ASCII, nor a control one), that text is the same."""
    text = _ASCII.encode(case)
    return _UTF8.encode(case) if "\\u" in text else text


def plain_case_text(case: JSON) -> tuple[str, bool]:
    """`case_text` of a parsed case, and whether that text is plain: ASCII holding no `\\u`
    escape and no number that isn't finite, found while it is written (so a check of the
    text need not look for them)."""
    try:
        text = _PLAIN.encode(case)
    except ValueError:  # a number that isn't finite
        return case_text(case), False
    return (_UTF8.encode(case), False) if "\\u" in text else (text, True)


class Digest:
    """The sha256 of canonical cases, fed one case at a time: that of `case_text` of the
    whole list, `[case,case,…]`."""

    def __init__(self) -> None:
        self._hash = hashlib.sha256(b"[")
        self._first = True

    def add(self, case: JSON) -> None:
        """Feed the next case."""
        self.add_text(case_text(case))

    def add_text(self, text: str) -> None:
        """Feed the next case's `case_text`."""
        self._hash.update((text if self._first else "," + text).encode())
        self._first = False

    def hexdigest(self) -> str:
        """The digest of the cases fed so far."""
        done = self._hash.copy()
        done.update(b"]")
        return done.hexdigest()


def digest(cases: Iterable[JSON]) -> str:
    """The sha256 of a version's canonical cases."""
    return text_digest(case_text(case) for case in cases)


def text_digest(texts: Iterable[str]) -> str:
    """The sha256 of a version's cases given as their `case_text`."""
    found = Digest()
    for text in texts:
        found.add_text(text)
    return found.hexdigest()


@dataclass
class Names:
    """The agents and flows a version's cases ran, each with its versions, gathered case by
    case."""

    agents: dict[str, set[str]]
    flows: dict[str, set[str]]

    @classmethod
    def empty(cls) -> Names:
        """Nothing named yet."""
        return cls({}, {})

    def add(self, case: Mapping[str, JSON]) -> None:
        """Name what one case's run ran: a frozen case's `run`, or a suite case's `subject`."""
        found_run, found_subject = case.get("run"), case.get("subject")
        run: Mapping[str, JSON] = found_run if isinstance(found_run, dict) else {}
        subject: Mapping[str, JSON] = found_subject if isinstance(found_subject, dict) else {}
        if run.get("agentId"):
            self._put(self.agents, run["agentId"], case.get("madeOn") or run.get("agentVersion"))
        elif run.get("flowId"):
            self._put(self.flows, run["flowId"], run.get("flowVersion"))
        elif subject.get("id"):
            named = self.flows if subject.get("kind") == "flow" else self.agents
            self._put(named, subject["id"], subject.get("version"))

    @staticmethod
    def _put(into: dict[str, set[str]], ident: object, version: object) -> None:
        into.setdefault(str(ident), set()).update([str(version)] if version else [])

    def listed(self) -> tuple[list[JSONObject], list[JSONObject]]:
        """The agents, then the flows, as the file lists them: by id, versions sorted."""
        return _listed(self.agents), _listed(self.flows)


def _listed(named: dict[str, set[str]]) -> list[JSONObject]:
    return [{"id": ident, "versions": list[JSON](sorted(v))} for ident, v in sorted(named.items())]


@dataclass(frozen=True)
class Envelope:
    """What the file says of its version beside the cases."""

    test_set_id: str
    version: str
    case_count: int
    sha256: str
    agents: list[JSONObject]
    flows: list[JSONObject]


def file_lines(envelope: Envelope, cases: Iterable[JSON]) -> Iterator[str]:
    """The file, a line at a time: the envelope's keys before `cases` on the first line, a
    case per line, then the keys after it. Keys sort as JSON's sorted keys would."""
    head = {"agents": envelope.agents, "caseCount": envelope.case_count}
    tail = {
        "flows": envelope.flows,
        "format": FORMAT,
        "id": envelope.test_set_id,
        "kind": KIND,
        "sha256": envelope.sha256,
        "version": envelope.version,
    }
    yield case_text(head)[:-1] + ',"cases":['
    separator = "\n"
    for case in cases:
        yield separator + case_text(case)
        separator = ",\n"
    yield "\n]," + case_text(tail)[1:] + "\n"


@dataclass(frozen=True)
class Canonical:
    """A version's cases as `case_text` writes them, and their digest: written once, for the
    digest, and kept as the stored cases; each text's `plain_case_text` flag beside it."""

    texts: list[str]
    digest: str
    plain: list[bool]

    @classmethod
    def of(cls, cases: Sequence[JSON]) -> Canonical:
        """The canonical texts of `cases` and their digest."""
        written = [plain_case_text(case) for case in cases]
        texts = [text for text, _ in written]
        return cls(texts, text_digest(texts), [plain for _, plain in written])


def check_cases(cases: Sequence[Mapping[str, JSON]]) -> None:
    """400 naming `cases/<i>/<path>` at the first case a replay could not read as written:
    each is a frozen case (`expect`) or a suite case built before (`caseId`), and no two
    share an id, since a run's result tells its cases apart by id."""
    seen: set[str] = set()
    for index, case in enumerate(cases):
        where = f"cases/{index}"
        if "expect" in case:
            name = "id"
            _check_frozen(case, where)
        elif "caseId" in case:
            name = "caseId"
            _check_suite(case, where)
        else:
            raise ValidationFailed(
                where, "must be a frozen case (with expect) or a suite case (with caseId)"
            )
        ident = str(case[name])
        if ident in seen:
            raise ValidationFailed(f"{where}/{name}", f"duplicate: an earlier case is {ident}")
        seen.add(ident)


def _check_frozen(case: Mapping[str, JSON], where: str) -> None:
    """A frozen case: its id, its run's id, what it expects and its run's copy when kept."""
    _text(case, "id", where)
    _text(case, "runId", where)
    _optional(case, "expert", where, bool, "true or false")
    _optional(case, "judgeClassId", where, str, "a string")
    expect = case["expect"]
    if not isinstance(expect, dict):
        raise ValidationFailed(f"{where}/expect", "must be an object")
    for index, item in enumerate(_objects(expect, "items", f"{where}/expect")):
        at = f"{where}/expect/items/{index}"
        _text(item, "key", at)
        _verdict(item, at)
        _optional(item, "pointer", at, str, "a string")
        if item.get("rank") is not None and not is_number(item["rank"]):
            raise ValidationFailed(f"{at}/rank", "must be a number: the item's place in its list")
    _check_decisions(expect, f"{where}/expect")
    _check_answer(expect, f"{where}/expect")
    run = case.get("run")
    if run is not None:
        _check_run(run, f"{where}/run")


def _part(expect: Mapping[str, JSON], key: str, where: str) -> tuple[JSONObject, str] | None:
    """An expected part (`decisions`, `answer`) when given, with where it is: an object with
    a verdict."""
    part = expect.get(key)
    if part is None:
        return None
    at = f"{where}/{key}"
    if not isinstance(part, dict):
        raise ValidationFailed(at, "must be an object")
    _verdict(part, at)
    return part, at


def _check_decisions(expect: Mapping[str, JSON], where: str) -> None:
    """Expected decisions, when given: a verdict, the calls it should (not) have made."""
    if (found := _part(expect, "decisions", where)) is None:
        return
    decisions, at = found
    for index, call in enumerate(_objects(decisions, "shouldCall", at)):
        _text(call, "toolId", f"{at}/shouldCall/{index}")
        _optional(call, "args", f"{at}/shouldCall/{index}", dict, "an object")
    names = decisions.get("mustNotCall")
    if names is not None and (
        not isinstance(names, list) or not all(isinstance(name, str) for name in names)
    ):
        raise ValidationFailed(f"{at}/mustNotCall", "must be a list of tool ids")


def _check_answer(expect: Mapping[str, JSON], where: str) -> None:
    """An expected answer, when given: a verdict, what it should have said and why."""
    if (found := _part(expect, "answer", where)) is None:
        return
    answer, at = found
    _optional(answer, "shouldSay", at, str, "a string")
    _optional(answer, "why", at, str, "a string")


def _check_run(run: JSON, where: str) -> None:
    """A run's copy: the agent or flow it ran, and its tool calls, each naming its tool."""
    if not isinstance(run, dict):
        raise ValidationFailed(where, "must be an object: a copy of the case's run")
    if not isinstance(run.get("agentId"), str) and not isinstance(run.get("flowId"), str):
        raise ValidationFailed(f"{where}/agentId", "is required: the agent (or flowId) it ran")
    _objects(run, "history", where)
    for index, call in enumerate(_objects(run, "toolCalls", where)):
        _text(call, "toolId", f"{where}/toolCalls/{index}")


def _check_suite(case: Mapping[str, JSON], where: str) -> None:
    """A suite case built before: its run's id, what ran, and its items' keys."""
    _text(case, "caseId", where)
    subject = case.get("subject")
    if not isinstance(subject, dict) or not isinstance(subject.get("id"), str):
        raise ValidationFailed(
            f"{where}/subject", "must be an object naming the agent or flow (id)"
        )
    for index, item in enumerate(_objects(case, "items", where)):
        _text(item, "key", f"{where}/items/{index}")
    for index, entry in enumerate(_objects(case, "corrections", where)):
        for at, call in enumerate(_objects(entry, "calls", f"{where}/corrections/{index}")):
            _text(call, "toolId", f"{where}/corrections/{index}/calls/{at}")


def _text(data: Mapping[str, JSON], key: str, where: str) -> None:
    """A field that must be a string, not empty."""
    value = data.get(key)
    if value is None:
        raise ValidationFailed(f"{where}/{key}", "is required")
    if not isinstance(value, str) or not value:
        raise ValidationFailed(f"{where}/{key}", "must be a string, not empty")


def _optional(data: Mapping[str, JSON], key: str, where: str, kind: type, what: str) -> None:
    """A field that, when given (not null), must be `what`."""
    value = data.get(key)
    if value is not None and not isinstance(value, kind):
        raise ValidationFailed(f"{where}/{key}", f"must be {what}")


def _verdict(data: Mapping[str, JSON], where: str) -> None:
    """A `verdict`: right or wrong (any other word was counted as wrong)."""
    if data.get("verdict") not in RIGHT_WRONG:
        raise ValidationFailed(f"{where}/verdict", f"must be one of {', '.join(RIGHT_WRONG)}")


def _objects(data: Mapping[str, JSON], key: str, where: str) -> list[JSONObject]:
    """A field that, when given (not null), must be a list of objects."""
    value = data.get(key)
    if value is None:
        return []
    found = objects_of(value)
    if not isinstance(value, list) or len(found) != len(value):
        raise ValidationFailed(f"{where}/{key}", "must be a list of objects")
    return found


@dataclass(frozen=True)
class TestSetFile:
    """A file read back and checked: its envelope, its cases and their canonical texts."""

    envelope: Envelope
    cases: list[JSONObject]
    canonical: Canonical


def read_file(data: Mapping[str, JSON]) -> TestSetFile:
    """A parsed file checked: its format and kind, an id and semver version, cases that are
    objects, as many as it says, and a `sha256` that is theirs (400 `digest-mismatch`
    otherwise: the cases were changed after the file was written), then each case's shape
    (`check_cases`)."""
    if data.get("format") != FORMAT:
        raise ValidationFailed(
            "format", f"must be {FORMAT!r}: a file kindgi test-sets export wrote"
        )
    if data.get("kind") != KIND:
        raise ValidationFailed("kind", f"must be {KIND!r}: only corrections test sets are files")
    test_set_id, version = data.get("id"), data.get("version")
    if not isinstance(test_set_id, str) or not ID.fullmatch(test_set_id):
        raise ValidationFailed("id", "must be letters, digits, '.', '_', '~' or '-'")
    if not isinstance(version, str) or not is_semver(version):
        raise ValidationFailed("version", f"must be a semver such as 1.0.0, not {version!r}")
    given = data.get("cases")
    cases = objects_of(given)
    if not isinstance(given, list) or len(cases) != len(given):
        raise ValidationFailed("cases", "must be a list of case objects")
    if data.get("caseCount") != len(cases):
        raise ValidationFailed(
            "caseCount", f"says {data.get('caseCount')!r}, the file has {len(cases)}"
        )
    canonical = Canonical.of(cases)
    found = canonical.digest
    if data.get("sha256") != found:
        raise ValidationFailed(
            "sha256",
            "does not match the file's cases: they were changed after it was written, so "
            "nothing was imported",
            code="digest-mismatch",
            expected=data.get("sha256"),
            found=found,
        )
    check_cases(cases)
    names = Names.empty()
    for case in cases:
        names.add(case)
    agents, flows = names.listed()
    envelope = Envelope(test_set_id, version, len(cases), found, agents, flows)
    return TestSetFile(envelope, cases, canonical)


def envelope_of(test_set_id: str, version: str, cases: Sequence[JSONObject]) -> Envelope:
    """The envelope of a version's cases held at once (tests, small sets)."""
    names = Names.empty()
    for case in cases:
        names.add(case)
    agents, flows = names.listed()
    return Envelope(test_set_id, version, len(cases), digest(cases), agents, flows)

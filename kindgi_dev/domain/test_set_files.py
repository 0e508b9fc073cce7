"""A frozen test-set version as a file you commit: deterministic bytes, one case per line.

The file is UTF-8 JSON with every object's keys sorted, in a small envelope: the agents and
flows (with their versions) its cases' runs ran, `caseCount`, the `cases` in the version's
own order, `format`, `id`, `kind: corrections`, the `sha256` of the canonical cases (the
digest a pull keeps, so a pulled version and its file tell the same content), `version`.
The same version always gives the same bytes, and a diff between two versions shows the
cases that changed as lines.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from .errors import ValidationFailed
from .json import JSON, JSONObject
from .narrow import objects_of
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


@dataclass(frozen=True)
class TestSetFile:
    """A file read back and checked: its envelope, its cases and their canonical texts."""

    envelope: Envelope
    cases: list[JSONObject]
    canonical: Canonical


def read_file(data: Mapping[str, JSON]) -> TestSetFile:
    """A parsed file checked: its format and kind, an id and semver version, cases that are
    objects, as many as it says, and a `sha256` that is theirs (400 `digest-mismatch`
    otherwise: the cases were changed after the file was written)."""
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

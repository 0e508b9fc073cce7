"""How an eval run's row keeps its candidate, frozen version and settings as JSON.

The columns keep the names the run's answer shows (`agentRef`'s `agentId`, `comparison`'s
`classWeights`, `frozenVersion`'s `testSetId`…), camelCase, because every run stored before
is kept that way and must read as it did (and `eval_runs.list_page` filters on
`$.agentId`/`$.flowId`); this module is the one place that writes and reads those names.
A run's result and finished cases are kept as their records' own (snake_case) fields, by
`TypeAdapter`s in `eval_runs`, but for a case's scores: each is a list of its values in
`CaseScore`'s order (`packed_case`), not an object naming them, about 0.3 kB less a case.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import MISSING, fields

from ..domain.baselines import RECORDED, AskedBaseline, BaselineScope, LiveAsked, VersionAsked
from ..domain.eval_runs import AgentCandidate, FlowCandidate, FrozenVersion, RunSettings, Sample
from ..domain.json import JSON, JSONObject
from ..domain.metrics import CaseScore
from ..domain.results import Baseline
from ..domain.sampling import Part
from ..domain.segments import Segment

AGENT_ID = "$.agentId"
"""Where an `agent_ref` column keeps the agent's id (for SQL filters)."""
FLOW_ID = "$.flowId"
"""Where a `flow_ref` column keeps the flow's id."""


def agent_json(agent: AgentCandidate) -> JSONObject:
    """An agent candidate as a run's row keeps it."""
    return {"agentId": agent.agent_id, "version": agent.version}


def agent_of(data: Mapping[str, object] | None) -> AgentCandidate | None:
    """A kept agent candidate (None for NULL)."""
    if not data:
        return None
    return AgentCandidate(str(data["agentId"]), _text(data.get("version")))


def flow_json(flow: FlowCandidate) -> JSONObject:
    """A flow candidate as a run's row keeps it."""
    return {"flowId": flow.flow_id, "version": flow.version}


def flow_of(data: Mapping[str, object] | None) -> FlowCandidate | None:
    """A kept flow candidate (None for NULL)."""
    if not data:
        return None
    return FlowCandidate(str(data["flowId"]), _text(data.get("version")))


def frozen_json(frozen: FrozenVersion) -> JSONObject:
    """The frozen test set version a run replays, as its row keeps it."""
    return {"testSetId": frozen.test_set_id, "version": frozen.version}


def frozen_of(data: Mapping[str, object] | None) -> FrozenVersion | None:
    """A kept frozen version (None for NULL)."""
    if not data:
        return None
    return FrozenVersion(str(data["testSetId"]), str(data["version"]))


def settings_json(settings: RunSettings) -> JSONObject:
    """Settings as a run's row keeps them: each optional part only when there is one."""
    sample = settings.sample
    optional: dict[str, JSON] = {
        "versions": None if settings.versions is None else _versions_json(settings.versions),
        "sample": None if sample is None else sample_json(sample),
        "rescoreOf": settings.rescore_of,
        "baselineVersion": _version_json(settings.baseline_version),
        "resumeOf": settings.resume_of,
        "reuse": settings.reuse,
    }
    return {
        "baseline": _asked_json(settings.baseline),
        "reads": settings.reads,
        "repetitions": settings.repetitions,
        "k": settings.k,
        "classWeights": settings.class_weights,
        **{key: value for key, value in optional.items() if value},
    }


def sample_json(sample: Sample) -> JSONObject:
    """A sample as a run's row (and its summary) names it."""
    return {"part": sample.part, "seed": sample.seed, "holdOutShare": sample.hold_out_share}


def settings_of(data: Mapping[str, object] | None) -> RunSettings | None:
    """Settings as a run's row keeps them (None for NULL or `{}`)."""
    if not data:
        return None
    sample = data.get("sample")
    versions = data.get("versions")
    return RunSettings(
        reads="live" if data.get("reads") == "live" else "recorded",
        repetitions=_int(data.get("repetitions"), 1),
        k=_int(data.get("k"), 10),
        class_weights="restricted-only"
        if data.get("classWeights") == "restricted-only"
        else "as-recorded",
        sample=_sample_of(sample) if isinstance(sample, dict) and sample else None,
        versions=_versions_of(versions) if isinstance(versions, dict) and versions else None,
        rescore_of=_text(data.get("rescoreOf")),
        baseline=_asked_of(data.get("baseline", RECORDED)),
        baseline_version=_version_of(data.get("baselineVersion")),
        resume_of=_text(data.get("resumeOf")),
        reuse=bool(data.get("reuse")),
    )


def _sample_of(data: Mapping[str, object]) -> Sample:
    part: Part = "hold-out" if data["part"] == "hold-out" else "search"
    share = data["holdOutShare"]
    assert isinstance(share, int | float), "a kept sample's share is a number"
    return Sample(part, str(data["seed"]), float(share))


def _versions_json(versions: Mapping[str, Mapping[str, str]]) -> JSON:
    return {kind: {k: v for k, v in swaps.items()} for kind, swaps in versions.items()}


def _versions_of(data: Mapping[str, object]) -> dict[str, dict[str, str]]:
    """A flow candidate's kept swaps: `{tools: {id: version}, agents: {…}}`."""
    return {
        str(kind): {str(k): str(v) for k, v in swaps.items()}
        for kind, swaps in data.items()
        if isinstance(swaps, dict)
    }


def _text(value: object) -> str | None:
    return None if value is None else str(value)


def _int(value: object, default: int) -> int:
    return value if isinstance(value, int) else default


def _asked_json(asked: AskedBaseline) -> JSON:
    """The baseline asked for, as the start body spells it."""
    if isinstance(asked, VersionAsked):
        named = {"flowId": asked.flow_id} if asked.flow_id else {"agentId": asked.agent_id}
        return {**named, "version": asked.version}
    if isinstance(asked, LiveAsked):
        return {"live": _scope_json(asked.live)}
    return asked


def _asked_of(data: object) -> AskedBaseline:
    """The baseline asked for, as a run's row keeps it."""
    if isinstance(data, dict) and isinstance(data.get("live"), dict):
        return LiveAsked(_scope_of(data["live"]))
    if isinstance(data, dict):
        return VersionAsked(
            str(data["version"]), _text(data.get("agentId")), _text(data.get("flowId"))
        )
    return RECORDED


def _scope_json(scope: BaselineScope) -> JSONObject:
    found: JSONObject = {}
    if scope.project_id is not None:
        found["projectId"] = scope.project_id
    if scope.segments:
        found["segments"] = [{"key": s.key, "value": s.value} for s in scope.segments]
    return found


def _scope_of(data: Mapping[str, object]) -> BaselineScope:
    segments = data.get("segments")
    return BaselineScope(
        _text(data.get("projectId")),
        tuple(_segment_of(s) for s in segments)
        if isinstance(segments, list) and segments
        else None,
    )


def _segment_of(data: object) -> Segment:
    assert isinstance(data, dict), "a kept segment is an object"
    return Segment(str(data["key"]), str(data["value"]))


def _version_json(found: Baseline | None) -> JSONObject | None:
    """A version baseline as the summary names it (`Baseline1`'s names)."""
    if found is None:
        return None
    optional: dict[str, JSON] = {
        "agentId": found.agent_id,
        "flowId": found.flow_id,
        "version": found.version,
        "via": found.via,
        "liveScope": None if found.live_scope is None else _scope_json(found.live_scope),
        "liveSource": found.live_source,
    }
    return {"kind": found.kind, **{k: v for k, v in optional.items() if v is not None}}


def _version_of(data: object) -> Baseline | None:
    if not isinstance(data, dict) or not data:
        return None
    scope = data.get("liveScope")
    return Baseline(
        str(data["kind"]),
        agent_id=_text(data.get("agentId")),
        flow_id=_text(data.get("flowId")),
        version=_text(data.get("version")),
        via=_text(data.get("via")),
        live_scope=_scope_of(scope) if isinstance(scope, dict) else None,
        live_source=_text(data.get("liveSource")),
    )


_SCORE_NAMES = tuple(f.name for f in fields(CaseScore))
"""A score's fields, in the order a packed score lists their values (a weight with no
fraction written as an integer, which its float field reads as the same number)."""
_SCORE_DEFAULTS: dict[str, JSON] = {
    f.name: f.default for f in fields(CaseScore) if f.default is not MISSING
}
"""The fields a score may leave out, each with the value it then has."""


_EMPTY: dict[str, JSON] = {"checks": [], "baseline_checks": []}
"""A finished case's fields left out when empty (they have no default of their own)."""
_RESULT_EMPTY: dict[str, JSON] = {
    "diverged": False,
    "refused_writes": 0,
    "no_context": False,
    "approval_skipped": False,
}
"""A case's comparison's (and its baseline replay's) fields left out at these values."""
_CHANGES_EMPTY: dict[str, JSON] = {"kept": [], "dropped": [], "new": []}
"""A case's changes' lists, left out when empty."""
_CHANGE_NAMES = ("key", "rank_before", "rank", "pointer")
"""An item change's fields, in the order a packed one lists their values."""
_TOOL_NAMES = ("step", "callId", "toolId", "toolVersion", "arguments", "source", "reason")
"""A case's tool call's names, in the order it has them (`comparison._tool_entry`)."""
_MODEL_NAMES = ("id", "model")
"""The names of a model a case was answered by."""
_OUTCOME_NAMES = ("passed_all", "passed_any", "flaky", "passed_before")
"""A case's outcomes, each true, false or unset: a packed case keeps them as one string
under `_OUTCOMES`, a letter each in this order (`t`, `f`, or `-` when unset)."""
_OUTCOMES = "outcomes"


def packed_case(case: JSONObject, case_id: str) -> JSONObject:
    """A finished case's dumped fields as its row keeps them: its scores, item changes,
    tool calls and models as lists of their values (`_SCORE_NAMES`', `_CHANGE_NAMES`',
    `_TOOL_NAMES`' and `_MODEL_NAMES`' order, trailing absent ones left out), its outcomes
    as letters (`_OUTCOME_NAMES`), its case id only when it is not its row's `case_id`, and
    the fields of `_EMPTY` and `_RESULT_EMPTY` only when they say something: the names and
    values repeated each case were half its row."""
    result = case.get("result")
    if not isinstance(result, dict):
        return case
    packed = _left_out(_parts_in(result, _packed, _values_of), _RESULT_EMPTY)
    if packed.get("case_id") == case_id:
        del packed["case_id"]
    packed = _outcomes_packed(packed)
    changes = packed.get("changes")
    if isinstance(changes, dict):
        packed["changes"] = _left_out(changes, _CHANGES_EMPTY)
    replay = result.get("baseline_replay")
    if isinstance(replay, dict):
        packed["baseline_replay"] = _left_out(_parts_in(replay, _packed, _values_of),
                                              _RESULT_EMPTY)  # fmt: skip
    kept = _left_out(case, _EMPTY)
    for key in ("models", "baseline_models"):
        kept = _each(kept, key, lambda model: _values_of(model, _MODEL_NAMES, True))
    return {**kept, "result": packed}


def unpacked_case(case: JSON, case_id: str) -> JSON:
    """A stored finished case with what its row left out put back (its case id from the
    row's), as its adapter reads it (a case stored before it was packed is read as it is)."""
    if not isinstance(case, dict) or not isinstance(case.get("result"), dict):
        return case
    result = case["result"]
    assert isinstance(result, dict)
    found = {"case_id": case_id, **_RESULT_EMPTY, **_parts_in(result, _unpacked, _named)}
    letters = found.pop(_OUTCOMES, None)
    if isinstance(letters, str):
        found.update((n, c == "t") for n, c in zip(_OUTCOME_NAMES, letters, strict=False)
                     if c != "-")  # fmt: skip
    changes = found.get("changes")
    if isinstance(changes, dict):
        found["changes"] = {**_CHANGES_EMPTY, **changes}
    replay = result.get("baseline_replay")
    if isinstance(replay, dict):
        found["baseline_replay"] = {
            **{k: v for k, v in _RESULT_EMPTY.items() if k != "no_context"},
            **_parts_in(replay, _unpacked, _named),
        }
    whole: JSONObject = {**_EMPTY, **case, "result": found}
    for key in ("models", "baseline_models"):
        whole = _each(whole, key, lambda model: _named(model, _MODEL_NAMES))
    return whole


def _parts_in(
    part: JSONObject,
    score: Callable[[JSON], JSON],
    values: Callable[[JSON, tuple[str, ...], bool], JSON],
) -> JSONObject:
    """A comparison (or baseline replay) with `score` applied to each score it holds and
    `values` to each item change and tool call."""
    found = _scores_in(part, score)
    changes = found.get("changes")
    if isinstance(changes, dict):
        for key in ("kept", "dropped", "new"):
            changes = _each(changes, key, lambda item: values(item, _CHANGE_NAMES, False))
        found["changes"] = changes
    return _each(found, "tools", lambda call: values(call, _TOOL_NAMES, True))


def _outcomes_packed(result: JSONObject) -> JSONObject:
    """A comparison with its outcomes as one string of letters (as it is when it has none,
    or one that is not a boolean)."""
    outcomes = [result.get(name) for name in _OUTCOME_NAMES]
    if all(o is None for o in outcomes) or not all(o is None or type(o) is bool
                                                   for o in outcomes):  # fmt: skip
        return result
    kept = {k: v for k, v in result.items() if k not in _OUTCOME_NAMES}
    kept[_OUTCOMES] = "".join("-" if o is None else "t" if o else "f" for o in outcomes)
    return kept


def _each(part: JSONObject, key: str, change: Callable[[JSON], JSON]) -> JSONObject:
    """`part` with `change` applied to each element of its list `key` (when it has one)."""
    items = part.get(key)
    if not isinstance(items, list):
        return part
    return {**part, key: [change(item) for item in items]}


def _values_of(item: JSON, names: tuple[str, ...], whole: bool) -> JSON:
    """An object of `names` as its values in their order, trailing absent ones left out (an
    absent one in between given as null, which a record's field reads as its default);
    `whole`: only an object whose names are the first of `names`, in order, where absent
    and null differ."""
    if not isinstance(item, dict):
        return item
    if whole:
        keys = list(item)
        return [item[k] for k in keys] if keys and keys == list(names[: len(keys)]) else item
    if not item.keys() <= set(names):
        return item
    values = [item.get(name) for name in names]
    while values and values[-1] is None:
        values.pop()
    return values


def _named(item: JSON, names: tuple[str, ...], whole: bool = False) -> JSON:
    """A packed object by its names again (`whole` or not, its names are read the same)."""
    if not isinstance(item, list):
        return item
    return dict(zip(names, item, strict=False))


def _left_out(part: JSONObject, empty: Mapping[str, JSON]) -> JSONObject:
    """`part` without the fields of `empty` at their empty value."""
    return {k: v for k, v in part.items() if k not in empty or not _same_value(v, empty[k])}


def _same_value(value: JSON, empty: JSON) -> bool:
    """Whether a dumped value is the empty one, kind too (`0` is not `false`)."""
    return type(value) is type(empty) and value == empty


def _scores_in(part: JSONObject, change: Callable[[JSON], JSON]) -> JSONObject:
    """`part` with `change` applied to each score it holds (`baseline`, `candidate`'s and
    `scores`' elements)."""
    found = dict(part)
    if "baseline" in found:
        found["baseline"] = change(found["baseline"])
    for key in ("candidate", "scores"):
        scores = found.get(key)
        if isinstance(scores, list):
            found[key] = [change(score) for score in scores]
    return found


def _packed(score: JSON) -> JSON:
    """A dumped score as its values (a field left out at its default given it), trailing
    defaults left out."""
    if not isinstance(score, dict):
        return score
    values = [score.get(name, _SCORE_DEFAULTS.get(name)) for name in _SCORE_NAMES]
    while values and _SCORE_DEFAULTS.get(_SCORE_NAMES[len(values) - 1], ...) == values[-1]:
        values.pop()
    return [_whole(value) for value in values]


def _whole(value: JSON) -> JSON:
    """A weight of no fraction as an integer (`1` for `1.0`: read back as the float)."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _unpacked(score: JSON) -> JSON:
    """A packed score as its fields by name (the ones left out read as their defaults)."""
    if not isinstance(score, list):
        return score
    return dict(zip(_SCORE_NAMES, score, strict=False))

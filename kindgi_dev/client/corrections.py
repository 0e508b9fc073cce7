"""`kindgi.corrections`: correct runs item by item (0.4)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..domain.json import JSON
from .base import Resource, camel_fields
from .models import Correction, CorrectionPage, Verdict


class CorrectionsResource(Resource):
    """`kindgi.corrections`: correct runs item by item (0.4)."""

    def create(
        self,
        *,
        run_id: str,
        items: Sequence[Mapping[str, JSON]] | None = None,
        decisions: Mapping[str, JSON] | None = None,
        answer: Mapping[str, JSON] | None = None,
        judge_class_id: str | None = None,
        participant_id: str | None = None,
        timeout: float | None = None,
    ) -> Correction:
        """Correct a run: create, or replace, your one correction of it."""
        body = camel_fields(
            run_id=run_id,
            items=items,
            decisions=decisions,
            answer=answer,
            judge_class_id=judge_class_id,
            participant_id=participant_id,
        )
        return self._call("corrections.create", Correction, body=body, timeout=timeout)

    def add_item(
        self,
        correction_id: str,
        /,
        *,
        key: str,
        pointer: str,
        verdict: Verdict,
        rank: int | None = None,
        reason: str | None = None,
        timeout: float | None = None,
    ) -> Correction:
        """Add or change one item of a correction."""
        body = camel_fields(key=key, pointer=pointer, rank=rank, verdict=verdict, reason=reason)
        return self._call(
            "corrections.addItem",
            Correction,
            path={"correctionId": correction_id},
            body=body,
            timeout=timeout,
        )

    def update(
        self,
        correction_id: str,
        /,
        *,
        status: str | None = None,
        decisions: Mapping[str, JSON] | None = None,
        answer: Mapping[str, JSON] | None = None,
        timeout: float | None = None,
    ) -> Correction:
        """Change a correction's status (`open`, `fixed`, `with-owner`, `wont-fix`,
        `removed`), decisions or answer."""
        body = camel_fields(status=status, decisions=decisions, answer=answer)
        return self._call(
            "corrections.update",
            Correction,
            path={"correctionId": correction_id},
            body=body,
            timeout=timeout,
        )

    def list(
        self,
        *,
        run_id: str | None = None,
        agent_id: str | None = None,
        project_id: str | None = None,
        status: str | None = None,
        participant_id: str | None = None,
        corrected_by: str | None = None,
        include_replaced: bool | None = None,
        limit: int | None = None,
        cursor: str | None = None,
        timeout: float | None = None,
    ) -> CorrectionPage:
        """Corrections, newest first, narrowed by run, agent, project, status or corrector."""
        query = camel_fields(
            run_id=run_id,
            agent_id=agent_id,
            project_id=project_id,
            status=status,
            participant_id=participant_id,
            corrected_by=corrected_by,
            include_replaced=include_replaced,
            limit=limit,
            cursor=cursor,
        )
        return self._call("corrections.list", CorrectionPage, query=query, timeout=timeout)

    def get(self, correction_id: str, /, *, timeout: float | None = None) -> Correction:
        """One correction, live or replaced."""
        return self._call(
            "corrections.get", Correction, path={"correctionId": correction_id}, timeout=timeout
        )

"""The one fake of the ``NodeHistoryStore`` port: vertices and versions in memory, read with
the domain's scope rule."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from kenning.domain.access.scope import ProjectGroups, Scope
from kenning.domain.ingestion.node_properties import PropertyPatch, property_changes
from kenning.domain.memory.node_history import Correction, NodeUpdate, PropertyVersion


class FakeNodeHistory:
    """Vertices by (scope, key) and every version written, in order."""

    def __init__(self) -> None:
        self.vertices: dict[tuple[Scope, str], dict[str, object]] = {}
        self.rows: list[PropertyVersion] = []
        self.corrections: list[Correction] = []

    def add(self, scope: Scope, key: str, **properties: object) -> None:
        self.vertices[(scope, key)] = dict(properties)
        for name, value in properties.items():
            self._version(scope, key, name, value, None)

    def _version(self, scope: Scope, key: str, name: str, value: object, by: str | None) -> None:
        now = datetime.now(UTC)
        for i, v in enumerate(self.rows):
            if (v.scope, v.node_key, v.name, v.ended_at) == (scope, key, name, None):
                self.rows[i] = replace(v, ended_at=now, ended_by=by)
        if value is not None:
            seq = len(self.rows) + 1
            self.rows.append(PropertyVersion(seq, key, name, value, scope, None, by, now, now))

    async def update(
        self, target: Scope, key: str, patch: PropertyPatch, correction: Correction
    ) -> NodeUpdate | None:
        old = self.vertices.get((target, key))
        if old is None:
            return None
        new = {k: v for k, v in old.items() if k not in patch.unset} | dict(patch.set)
        self.vertices[(target, key)] = new
        changes = property_changes(old, new)
        for change in changes:
            self._version(target, key, change.name, change.new, correction.by)
        self.corrections.append(correction)
        return NodeUpdate(key, target, changes)

    async def versions(
        self, reader: Scope, key: str, name: str | None, first: int, before: int | None
    ) -> list[PropertyVersion]:
        found = [
            v
            for v in reversed(self.rows)
            if v.node_key == key
            and reader.can_see(v.scope, ProjectGroups())
            and (name is None or v.name == name)
            and (before is None or v.seq < before)
        ]
        return found[:first]

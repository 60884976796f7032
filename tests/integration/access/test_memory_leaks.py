"""Property: on random agent memory, no memory read path shows a reader what its rule hides.

Random agent keys (three clients, projects, groups) store user knowledge, session entries
(some promoted), procedures, hard rules (some deleted) and task outcomes; random readers
(global, client-wide, group and project keys of every client; ui, agent and admin roles;
narrowed or not) read userContext, sessionMemory, procedures, procedureHistory of every
stored procedure, rules, ruleHistory and chunksByKind of every memory kind, and the whole
chunk audit (search, chunks, node, neighbors, path, evidencePack, agentContext) runs over
the memory documents. Each path is
compared with its rule applied to the rows read straight from the tables: nothing outside it
ever comes back, and where the rule is exact, everything inside it does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from kenning.domain.access.scope import Scope
from tests.support.graphql_api import Api
from tests.support.leaks.audit import Audit, as_scope
from tests.support.leaks.corpus import Reader, readers, tag
from tests.support.leaks.ground_truth import Stored, fresh, snapshot
from tests.support.leaks.memory import (
    KNOWLEDGE as KNOWLEDGE_ITEMS,
)
from tests.support.leaks.memory import (
    RULE_KEYS,
    SHARED_FILE,
    TRIGGERS,
    MemoryWrite,
    as_json,
    fresh_memory,
    memory_writes,
    reader_input,
    serials,
    write_memory,
)
from tests.support.leaks.memory_paths import (
    HISTORY_PAGE,
    document,
    memory_fields,
    procedure_histories,
)
from tests.support.leaks.memory_rows import MemoryRows, memory_rows, session_of
from tests.support.leaks.read_paths import Probe, execute
from tests.support.leaks.reader_audit import audit_reader

pytestmark = pytest.mark.integration

PROBE = Probe(
    neighbors=(("task:t1", 2), (f"file:{SHARED_FILE}", 1)),
    paths=(("task:t1", "task:t2"), (f"file:{SHARED_FILE}", "task:t2")),
    entity="task:t1",
)


def _nearness(project: str, group: str, client: str, reader: Scope) -> int:
    """userContext's order: the reader's project, a group, the client, global, other projects."""
    if project:
        return 0 if project == reader.project_id else 4
    if group:
        return 1
    return 2 if client else 3


class MemoryTruth:
    """What one reader scope gets from each memory path, by each memory's rule."""

    def __init__(self, rows: MemoryRows, stored: Stored, reader: Scope, who: str) -> None:
        self.rows, self.reader, self.who = rows, reader, who
        self.audit = Audit(stored, reader, who)

    def sees(self, row: Any) -> bool:
        scope = Scope(row["client_id"], row["project_id"], row["group_id"])
        return self.reader.can_see(scope, self.rows.groups)

    def nearest(self) -> tuple[set[str], set[tuple[str, str, str, Scope]]]:
        """userContext: serials of every visible item, and the item kept per subject: the
        reader's project, its group, its client, global, then other projects (by ids)."""
        r = self.reader
        rank: dict[tuple[str, str], list[tuple[tuple[int, str, str], Any]]] = {}
        for row in filter(self.sees, self.rows.knowledge):
            p, g, c = row["project_id"], row["group_id"], row["client_id"]
            level = _nearness(p, g, c, r)
            rank.setdefault((row["kind"], row["source_urn"]), []).append(((level, p, g), row))
        kept = {
            (row["kind"].removeprefix("user_knowledge_").upper(), row["subject"], row["content"],
             Scope(row["client_id"], row["project_id"], row["group_id"]))
            for row in (min(rows, key=lambda pair: pair[0])[1] for rows in rank.values())
        }  # fmt: skip
        every = {s for rows in rank.values() for _, row in rows for s in serials(row["content"])}
        return every, kept

    def rule_target(self, project: str | None) -> str | None:
        """The project a rules call reads (``""``: client-wide); None when it is refused."""
        target = self.reader.project_id if project is None else project
        if target and not self.reader.can_see(
            Scope(self.reader.client_id, target), self.rows.groups
        ):
            return None
        return target

    def check(self, alias: str, result: Any) -> None:
        """The leak scan on anything that came back, then the path's own rule."""
        text = as_json(result.data) + str(result.errors)
        self.audit._tags(text, alias)
        path, _, arg = alias.partition("_")
        expected_error = self.error_of(path, arg)
        if expected_error is not None:
            assert result.data is None and result.errors, (self.who, alias, result)
            codes = {(e.extensions or {}).get("code") for e in result.errors}
            assert codes == {expected_error}, (self.who, alias, result.errors)
            return
        assert result.errors is None and result.data is not None, (self.who, alias, result.errors)
        value = result.data[alias]
        self.audit.walk(value, alias)
        getattr(self, f"_{path}")(value, arg, alias)

    def error_of(self, path: str, arg: str) -> str | None:
        if path == "sessionMemory" and not self.reader.client_id:
            return "FORBIDDEN"
        if path == "procedureHistory":  # another client's procedure is one it never had
            client = self.reader.client_id
            return None if client == self.rows.procedures[int(arg)]["client_id"] else "NOT_FOUND"
        if path in ("rules", "ruleHistory"):
            if not self.reader.client_id:
                return "BAD_USER_INPUT"
            project = arg.split("_")[0]
            if self.rule_target(None if project == "None" else project) is None:
                return "FORBIDDEN"
        return None

    def allowed(self, value: Any, serial_set: set[str], alias: str) -> None:
        extra = serials(as_json(value)) - serial_set
        assert not extra, (f"LEAK: {sorted(extra)} at {alias} for {self.who}", value)

    def _userContext(self, value: Any, arg: str, alias: str) -> None:
        every, kept = self.nearest()
        self.allowed(value, every, alias)
        got = [
            (c["category"], i["subject"], i["content"], as_scope(i["scope"]))
            for c in value["categories"] for i in c["items"]
        ]  # fmt: skip
        assert len(got) == len(set(got)) and set(got) <= kept, (self.who, alias, got, kept)
        if arg == "all":
            assert set(got) == kept, (self.who, alias, set(got) ^ kept)
        else:
            assert len(got) == len({item[0] for item in kept}), (self.who, alias, got, kept)

    def _sessionMemory(self, value: Any, arg: str, alias: str) -> None:
        session = session_of(self.reader)
        mine = [r for r in self.rows.sessions
                if (r["client_id"], r["project_id"], r["group_id"]) == session]  # fmt: skip
        self.allowed(value, {s for r in mine for s in serials(r["summary"])}, alias)
        assert sorted(e["summary"] for e in value) == sorted(r["summary"] for r in mine), self.who
        stamps = [e["createdAt"] for e in value]
        assert stamps == sorted(stamps, reverse=True), (self.who, "not newest first", stamps)

    def _procedures(self, value: Any, arg: str, alias: str) -> None:
        client = self.reader.client_id
        mine = [r for r in self.rows.procedures if client and r["client_id"] == client]
        self.allowed(value, {s for r in mine for s in serials(r["description"])}, alias)
        ids = {m["procedure"]["id"] for m in value}
        assert ids <= {r["id"] for r in mine}, (self.who, alias)
        if arg != "query":
            exact = {r["id"] for r in mine if r["trigger_pattern"] == TRIGGERS[int(arg)]}
            assert {m["procedure"]["id"] for m in value if m["exactMatch"]} == exact, self.who
        sources = [m["procedure"]["source"] for m in value]
        assert sources == sorted(sources, key=lambda s: s != "USER_DEFINED"), (self.who, sources)

    def _visible_rules(self, arg: str) -> list[Any]:
        project = arg.split("_")[0]
        target = self.rule_target(None if project == "None" else project)
        return [r for r in self.rows.rules
                if r["client_id"] == self.reader.client_id and r["project_id"] in ("", target)]  # fmt: skip # noqa: E501

    def _rules(self, value: Any, arg: str, alias: str) -> None:
        rows = self._visible_rules(arg)
        self.allowed(value, {s for r in rows for s in serials(r["content"])}, alias)
        target = self.rule_target(None if arg == "None" else arg)
        chosen: dict[str, Any] = {}
        for r in sorted(rows, key=lambda r: r["project_id"] == target and target != ""):
            if r["active"]:
                chosen[r["rule_key"]] = r
        expected = sorted((k, r["project_id"] or None, r["version"], r["content"])
                          for k, r in chosen.items())  # fmt: skip
        got = sorted((r["ruleKey"], r["projectId"], r["version"], r["content"]) for r in value)
        assert got == expected, (self.who, alias, got, expected)

    def _ruleHistory(self, value: Any, arg: str, alias: str) -> None:
        project, _, index = arg.partition("_")
        key = RULE_KEYS[int(index)]
        target = self.rule_target(None if project == "None" else project)
        rows = [r for r in self._visible_rules(arg)
                if r["rule_key"] == key and r["project_id"] == target]  # fmt: skip
        self.allowed(value, {s for r in rows for s in serials(r["content"])}, alias)
        expected = [(r["version"], r["content"]) for r in sorted(rows, key=lambda r: -r["version"])]
        got = [(r["version"], r["content"]) for r in value["nodes"]]
        assert got == expected[:HISTORY_PAGE], (self.who, alias)
        assert value["hasNextPage"] == (len(expected) > HISTORY_PAGE), (self.who, alias)

    def _knowledgeHistory(self, value: Any, arg: str, alias: str) -> None:
        """Versions (replaced and forgotten ones too) only of items at scopes the reader
        sees, each naming its scope; the tag scan has checked every content's home."""
        category, subject = KNOWLEDGE_ITEMS[int(arg)]
        for node in value["nodes"]:
            assert (node["category"], node["subject"]) == (category, subject), (alias, node)
            assert self.reader.can_see(as_scope(node["scope"]), self.rows.groups), (
                f"LEAK: a version at {node['scope']} for {self.who}", node)  # fmt: skip
        current = {(r["content"]) for r in filter(self.sees, self.rows.knowledge)
                   if (r["kind"], r["subject"]) == (f"user_knowledge_{category.lower()}", subject)}  # fmt: skip # noqa: E501
        got = {n["content"] for n in value["nodes"]}
        assert {serials(c).pop() for c in current} <= {s for c in got for s in serials(c)}, (
            self.who, alias, "a visible item's current version is missing")  # fmt: skip

    def _procedureHistory(self, value: Any, arg: str, alias: str) -> None:
        """Only the reader's own client's procedure, its current version among them."""
        row = self.rows.procedures[int(arg)]
        home = tag(Scope(row["client_id"]))
        assert all(home in v["description"] for v in value["nodes"]), (self.who, alias, value)
        assert value["nodes"][0]["description"] == row["description"], (self.who, alias, value)

    def _changes(self, value: Any, arg: str, alias: str) -> None:
        """Every change is of an item the reader could read: what it held before and after
        carries the home tag of the item's scope (checked by the tag scan)."""
        for node in value["nodes"]:
            assert node["itemKind"] in {"KNOWLEDGE", "PROCEDURE", "SESSION_ENTRY"}, node

    def _chunksByKind(self, value: Any, arg: str, alias: str) -> None:
        ids = {c["id"] for c in value}
        assert ids == self.audit.visible.chunks_of_kind(arg), (self.who, alias)


async def audit_memory(api: Api, rows: MemoryRows, stored: Stored, reader: Reader) -> None:
    """Read every memory path as ``reader`` and check it (refusals included)."""
    allowed = reader.allowed
    scope = reader.principal.reading(reader.narrow) if allowed else reader.narrow
    assert scope is not None
    who = f"{reader} reading as {scope.describe()}"
    truth = MemoryTruth(rows, stored, scope, who)
    variables = {"s": reader_input(reader.narrow)}
    for alias, field in [*memory_fields(), *procedure_histories(rows)]:
        result = await execute(api, reader.principal, document(f"{alias}: {field}"), variables)
        if allowed:
            truth.check(alias, result)
        else:
            truth.audit.refused(alias, result)


@dataclass(frozen=True, slots=True)
class Scenario:
    writes: list[MemoryWrite]
    readers: list[Reader]


@st.composite
def scenarios(draw: st.DrawFn) -> Scenario:
    writes = draw(memory_writes())
    near = sorted({w.writer for w in writes}, key=lambda s: s.describe())
    return Scenario(writes, draw(st.lists(readers(near), min_size=3, max_size=4)))


@settings(
    max_examples=20,
    # No shrinking: a scenario is dozens of requests per step, and shrinking one ran for
    # minutes; the failing example is printed as generated.
    phases=[Phase.explicit, Phase.generate],
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(scenario=scenarios())
async def test_no_memory_read_path_shows_a_reader_what_its_rule_hides(
    api: Api, scenario: Scenario
) -> None:
    await fresh(api)
    await fresh_memory(api)
    await write_memory(api, scenario.writes)
    rows, stored = await memory_rows(api), await snapshot(api)
    for reader in scenario.readers:
        await audit_memory(api, rows, stored, reader)
        await audit_reader(api, stored, reader, PROBE)

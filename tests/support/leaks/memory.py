"""Agent memory for the leak audit: random agent keys store every kind of memory, and each
memory read path is checked against the rows read straight from the tables.

Every memory item carries a serial (``memo007``) and the tag of the scope its own rule
stores it at (its *home*): user knowledge, task outcomes and structureKnowledge check-ins
(dry runs answered by a fake Ollama) at the writer's scope, session entries at the writer's
session, procedures at the writer's client, hard rules at (client, project). The generic tag
scan of ``audit.Audit`` then holds for every response (agentContext and checkIns too), and
the serials make each path's check exact.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from kenning.domain.access.principal import Principal, Role
from kenning.domain.access.scope import Scope, ScopeLevel
from kenning.domain.extraction.structure_prompt import EXAMPLE_ANSWER
from kenning.domain.queue.jobs import JobStatus, Lane
from kenning.domain.queue.runner import run_job
from kenning.router.demo import FakeOllama
from kenning.runtime import Runtime
from kenning.storage.models import OllamaModelClient
from tests.support.graph_data import scope_input
from tests.support.graphql_api import Api
from tests.support.leaks.corpus import CLIENTS, GROUPS, HOME, PROJECTS, WORD, tag

KINDS = ("knowledge", "session", "procedure", "rule", "outcome", "check_in")
KNOWLEDGE = (("PREFERENCE", "editor"), ("PREFERENCE", "timezone"), ("TEAM", "reviewer"))
TRIGGERS = ("deploy the app", "rotate the keys")
RULE_KEYS = ("route-bugs", "notify-oncall")
TASKS = ("t1", "t2")
SHARED_FILE = "docs/shared.md"
_SERIAL = re.compile(r"memo\d{3}")


def serials(text: str) -> set[str]:
    """The memory serials in ``text``."""
    return set(_SERIAL.findall(text))


@dataclass(frozen=True, slots=True)
class MemoryWrite:
    """One memory write by an agent key of ``writer``'s scope."""

    kind: str
    writer: Scope
    pick: int
    """Which shared subject, trigger, rule key or task id (shared between writers)."""
    flag: bool
    """session: promote; procedure: USER_DEFINED; rule: delete it right after storing;
    knowledge: store a corrected version over it (the first kept by knowledgeHistory)."""
    rule_project: str | None
    serial: int

    @property
    def home(self) -> Scope:
        """Where the memory's own rule keeps it."""
        w = self.writer
        if self.kind == "procedure":
            return Scope(w.client_id)
        if self.kind == "rule":
            return Scope(
                w.client_id, w.project_id if self.rule_project is None else self.rule_project
            )
        return w  # session entries too: a project's, a group's or the client's own session

    @property
    def marker(self) -> str:
        return f"{WORD} {tag(self.home)} memo{self.serial:03d}"


def _writers(kind: str) -> st.SearchStrategy[Scope]:
    """A client-wide, group or project scope (naming its ``HOME`` group or none). Memory
    belongs to a client, and a group key owns no rule scope."""
    client = st.sampled_from(CLIENTS)
    project = st.builds(
        lambda c, p, home: Scope(c, p, HOME[p] if home else ""),
        client, st.sampled_from(PROJECTS), st.booleans(),
    )  # fmt: skip
    if kind == "procedure":  # procedures serve the whole client: client-wide keys write them
        return st.builds(Scope, client)
    if kind == "rule":
        return st.one_of(st.builds(Scope, client), project)
    group = st.builds(lambda c, g: Scope(c, "", g), client, st.sampled_from(GROUPS))
    return st.one_of(st.builds(Scope, client), group, project)


@st.composite
def memory_write(draw: st.DrawFn, kind: str | None = None) -> MemoryWrite:
    """One write of ``kind`` (any kind when None) by a random writer."""
    kind = kind or draw(st.sampled_from(KINDS))
    writer = draw(_writers(kind))
    rule_project = None
    if kind == "rule" and writer.level is ScopeLevel.CLIENT:
        rule_project = draw(st.sampled_from((None, "", *PROJECTS)))
    return MemoryWrite(kind, writer, draw(st.integers(0, 5)), draw(st.booleans()), rule_project, 0)


def memory_writes(min_size: int = 6, max_size: int = 12) -> st.SearchStrategy[list[MemoryWrite]]:
    """Writes of every kind (each at least once), numbered in order."""
    firsts = st.tuples(*[memory_write(kind) for kind in KINDS])
    more = st.lists(memory_write(), min_size=min_size - len(KINDS), max_size=max_size - len(KINDS))
    return st.builds(
        lambda a, b: [
            MemoryWrite(w.kind, w.writer, w.pick, w.flag, w.rule_project, i + 1)
            for i, w in enumerate([*a, *b])
        ],
        firsts,
        more,
    )


def writer_key(write: MemoryWrite) -> Principal:
    """An agent key of the writer's scope, its id free of any tag (ids come back as
    ``createdBy``, which a reader of the memory's home may see)."""
    return Principal(key_id=f"writer-{write.serial}", scope=write.writer, role=Role.AGENT)


def _mutation(write: MemoryWrite) -> tuple[str, str, dict[str, Any]]:
    """(field, text, variables) of the write's mutation."""
    text = write.marker
    if write.kind == "knowledge":
        category, subject = KNOWLEDGE[write.pick % len(KNOWLEDGE)]
        return (
            "storeKnowledge",
            (
                "mutation($s: String!, $c: String!, $k: KnowledgeCategory!) { storeKnowledge("
                "subject: $s, content: $c, category: $k) { __typename } }"
            ),
            {"s": subject, "c": f"user knowledge {text}", "k": category},
        )
    if write.kind == "session":
        return (
            "appendSessionEntry",
            (
                "mutation($s: String!, $d: JSON, $p: Boolean!) { appendSessionEntry(source: CHAT, "
                'summary: $s, details: $d, taskId: "t1", promote: $p) { __typename } }'
            ),
            {"s": f"session {text}", "d": {"note": text}, "p": write.flag},
        )
    if write.kind == "procedure":
        steps = [{"agent": "deployer", "action": "run", "parameters": {"note": text}}]
        procedure = {
            "triggerPattern": TRIGGERS[write.pick % 2],
            "description": f"steps {text}",
            "steps": steps,
            "source": "USER_DEFINED" if write.flag else "LEARNED",
        }
        return (
            "saveProcedure",
            "mutation($i: SaveProcedureInput!) { saveProcedure(input: $i) { __typename } }",
            {"i": procedure},
        )
    if write.kind == "check_in":
        return (
            "structureKnowledge",
            (
                "mutation($t: String!, $h: String) { structureKnowledge(input: "
                "{text: $t, hints: $h, dryRun: true}) { __typename } }"
            ),
            {"t": f"check-in {text}", "h": f"hints {text}" if write.flag else None},
        )
    if write.kind == "rule":
        return (
            "storeRule",
            (
                "mutation($k: String!, $c: String!, $p: String) { storeRule(ruleKey: $k, "
                "ruleType: CUSTOM, content: $c, description: $c, projectId: $p) { __typename } }"
            ),
            {"k": RULE_KEYS[write.pick % 2], "c": f"rule {text}", "p": write.rule_project},
        )
    return "recordTaskOutcome", (
        "mutation($i: TaskOutcomeInput!) { recordTaskOutcome(input: $i) { __typename } }"
    ), {"i": {"taskId": TASKS[write.pick % 2], "category": "EPIC", "action": "CODE",
              "finalResult": "done", "summary": f"outcome {text}", "topics": ["memory"],
              "keyDecisions": [f"decided {text}"],
              "artifacts": [SHARED_FILE, f"src/{tag(write.home)}.py"]}}  # fmt: skip


_SUCCESS = {
    "storeKnowledge": {"StoreKnowledgeSuccess"},
    "appendSessionEntry": {"AppendSessionEntrySuccess"},
    "saveProcedure": {"Procedure"},
    "storeRule": {"StoreRuleSuccess"},
    "recordTaskOutcome": {"TaskOutcomeQueued"},
    "structureKnowledge": {"StructureKnowledgeSuccess"},
}
_DELETE = """mutation($k: String!, $p: String) { deleteRule(ruleKey: $k, projectId: $p) {
  __typename } }"""


async def write_memory(api: Api, writes: list[MemoryWrite]) -> None:
    """Store every write through GraphQL as its agent key, then index what was queued."""
    async with answering_model(api.runtime):
        for write in writes:
            writer = api.as_(writer_key(write))
            field, text, variables = _mutation(write)
            result = (await writer(text, **variables))[field]
            assert result["__typename"] in _SUCCESS[field], (write, result)
            if write.kind == "knowledge" and write.flag:  # a second version replaces it
                again = {**variables, "c": f"{variables['c']} (corrected)"}
                result = (await writer(text, **again))[field]
                assert result["__typename"] in _SUCCESS[field], (write, result)
            if write.kind == "rule" and write.flag:
                deleted = await writer(_DELETE, k=variables["k"], p=variables["p"])
                assert deleted["deleteRule"]["__typename"] == "DeleteRuleSuccess", (write, deleted)
    runtime = api.runtime
    while (claimed := await runtime.queue.work.claim(Lane.BULK, "leaks/memory", 60)) is not None:
        status = await run_job(claimed, runtime.queue.work, runtime.job_deps())
        assert status is JobStatus.INDEXED, (claimed, status)


@asynccontextmanager
async def answering_model(runtime: Runtime) -> AsyncIterator[None]:
    """Model calls answered over HTTP by a fake Ollama with a valid knowledge file."""
    fake = FakeOllama("leaks")
    fake.replier = lambda body: json.dumps(EXAMPLE_ANSWER)
    fake.start()
    before, runtime.models = runtime.models, OllamaModelClient(fake.url, timeout=30)
    try:
        yield
    finally:
        await runtime.models.aclose()
        runtime.models = before
        fake.stop()


async def fresh_memory(api: Api) -> None:
    """Empty the memory tables and the queue (``ground_truth.fresh`` empties the rest)."""
    await api.runtime.pool.execute(
        "TRUNCATE ingestion_jobs, session_entries, procedures, hard_rules"
    )


def as_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def reader_input(narrow: Scope | None) -> dict[str, str] | None:
    return None if narrow is None else scope_input(narrow)

"""Property: one user's memory never reaches another user's reads.

In one client, random writes store user knowledge, session entries and procedures for Alice,
for Bob, or shared (no ``userKey``), each with a serial (``memo007``). Every read that takes
``userKey`` (userContext, sessionMemory, procedures by trigger and by query, search,
knowledgeHistory, changes, agentContext) is made for Alice, Bob and nobody: no answer for one
user holds a serial of the other's, no answer for nobody holds any user's, and sessionMemory
and userContext hold exactly what they should (the user's own and the shared items, a user's
item replacing the shared one of its subject). Tenants and scopes are the other leak tests'.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from kenning.domain.access.principal import Principal, Role
from kenning.domain.access.scope import Scope
from tests.support.graphql_api import Api
from tests.support.leaks.corpus import WORD
from tests.support.leaks.ground_truth import fresh
from tests.support.leaks.memory import KNOWLEDGE, TRIGGERS, fresh_memory, serials

pytestmark = pytest.mark.integration

WRITER = Principal("acme-memory", Scope("acme"), Role.AGENT)
USERS = ("user:alice", "user:bob", None)
STORE = """mutation($s: String!, $c: String!, $k: KnowledgeCategory!, $u: String) {
  storeKnowledge(subject: $s, content: $c, category: $k, userKey: $u) { __typename } }"""
APPEND = """mutation($s: String!, $u: String) { appendSessionEntry(source: CHAT, summary: $s,
  userKey: $u) { __typename } }"""
SAVE = """mutation($t: String!, $d: String!, $u: String) { saveProcedure(input: {
  triggerPattern: $t, description: $d, steps: [{agent: "ops", action: "run"}], userKey: $u}) {
  __typename } }"""
ITEM = "{ subject content }"
READS = {
    "userContext": f"userContext(limitPerCategory: 50, userKey: $u) {{ categories {{ items {ITEM} }} }}",  # noqa: E501
    "sessionMemory": "sessionMemory(limit: 50, userKey: $u) { summary }",
    "search": f'search(query: "{WORD}", mode: KEYWORD, limit: 100, userKey: $u) '
    "{ ... on SearchSuccess { hits { chunk { content } } } }",
    "byQuery": f'procedures(query: "steps {WORD}", limit: 50, userKey: $u) '
    "{ procedure { description } }",
    "changes": "changes(first: 50, userKey: $u) { nodes { old new } }",
    "agentContext": f'agentContext(query: "{TRIGGERS[0]} {WORD}", limit: 50, userKey: $u) '
    "{ ... on AgentContext { text } }",
    **{
        f"byTrigger{i}": f'procedures(triggerPattern: "{t}", limit: 50, userKey: $u) '
        "{ procedure { description } }"
        for i, t in enumerate(TRIGGERS)
    },
    **{
        f"history{i}": f'knowledgeHistory(category: {c}, subject: "{s}", first: 50, '
        f"userKey: $u) {{ nodes {{ content }} }}"
        for i, (c, s) in enumerate(KNOWLEDGE)
    },
}


@dataclass(frozen=True, slots=True)
class Write:
    kind: str  # knowledge | session | procedure
    user: str | None
    pick: int
    serial: int

    @property
    def marker(self) -> str:
        return f"{WORD} memo{self.serial:03d}"


@st.composite
def writes(draw: st.DrawFn) -> list[Write]:
    drawn = draw(
        st.lists(
            st.tuples(
                st.sampled_from(("knowledge", "session", "procedure")),
                st.sampled_from(USERS),
                st.integers(0, 5),
            ),
            min_size=4,
            max_size=12,
        )
    )
    return [Write(kind, user, pick, i + 1) for i, (kind, user, pick) in enumerate(drawn)]


async def _store(api: Api, write: Write) -> None:
    acme = api.as_(WRITER)
    if write.kind == "knowledge":
        category, subject = KNOWLEDGE[write.pick % len(KNOWLEDGE)]
        done = await acme(STORE, s=subject, c=f"knowledge {write.marker}", k=category, u=write.user)
        assert done["storeKnowledge"]["__typename"] == "StoreKnowledgeSuccess", done
    elif write.kind == "session":
        done = await acme(APPEND, s=f"session {write.marker}", u=write.user)
        assert done["appendSessionEntry"]["__typename"] == "AppendSessionEntrySuccess", done
    else:
        trigger = TRIGGERS[write.pick % len(TRIGGERS)]
        done = await acme(SAVE, t=trigger, d=f"steps {write.marker}", u=write.user)
        assert done["saveProcedure"]["__typename"] == "Procedure", done


def _expected_context(written: list[Write], user: str | None) -> set[str]:
    """userContext's serials: per subject, the user's latest item, else the shared latest."""
    latest: dict[tuple[int, bool], Write] = {}
    for w in written:
        if w.kind == "knowledge" and w.user in (user, None):
            latest[(w.pick % len(KNOWLEDGE), w.user is not None)] = w
    subjects = {subject for subject, _ in latest}
    return {f"memo{(latest.get((s, True)) or latest[(s, False)]).serial:03d}" for s in subjects}


def _check(written: list[Write], user: str | None, answers: dict[str, Any]) -> None:
    others = {f"memo{w.serial:03d}" for w in written if w.user not in (user, None)}
    for alias, value in answers.items():
        leaked = serials(json.dumps(value)) & others
        assert not leaked, f"LEAK: {alias} for {user} holds {sorted(leaked)} of another user"
    session = {f"memo{w.serial:03d}" for w in written if w.kind == "session" and w.user in (user, None)}  # fmt: skip # noqa: E501
    assert serials(json.dumps(answers["sessionMemory"])) == session, (user, answers)
    assert serials(json.dumps(answers["userContext"])) == _expected_context(written, user), (
        user, answers["userContext"])  # fmt: skip


@settings(
    max_examples=15,
    phases=[Phase.explicit, Phase.generate],
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(written=writes())
async def test_no_read_for_one_user_shows_another_users_memory(
    api: Api, written: list[Write]
) -> None:
    await fresh(api)
    await fresh_memory(api)
    for write in written:
        await _store(api, write)
    fields = " ".join(f"{alias}: {field}" for alias, field in READS.items())
    for user in USERS:
        answers = await api.as_(WRITER)(f"query($u: String) {{ {fields} }}", u=user)
        _check(written, user, answers)

"""agentContext's assembly on fakes: section order, routing, determinism, one embedding."""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import timedelta

import pytest

from kenning.domain.access.scope import GLOBAL, Scope
from kenning.domain.errors import KenningError
from kenning.domain.graph.model import NodeView
from kenning.domain.ingestion.secrets.scan import SecretPolicy
from kenning.domain.memory.agent_context import Shape, agent_context
from kenning.domain.memory.context_sections import Found, build_sections
from kenning.domain.memory.rules import RuleDraft, RuleType
from kenning.domain.memory.session import SessionDraft, SessionSource, new_entry
from kenning.domain.memory.user_knowledge import KnowledgeCategory
from kenning.domain.retrieval.search import SearchHit
from tests.support.memory_agent_context import ACME, NOW, Doubles, knowledge, piece
from tests.support.memory_procedures import draft

BETA = Scope("beta", "web")
REJECT = SecretPolicy.REJECT


async def _filled() -> Doubles:
    """One of everything for acme/web, and a rule and session entry of beta."""
    d = Doubles()
    d.chunks.hits = [
        (piece("c-ins", "Run the login tests first.", "instructions"), 0.9),
        (piece("c-ctx", "The auth service issues tokens."), 0.8),
        (piece("c-skl", "Knows Kotlin coroutines.", "skills"), 0.7),
        (piece("c-faq", "Reset passwords at /reset.", "faq"), 0.6),
        (piece("c-usr", "John likes short answers.", "user_profile"), 0.5),
        (piece("c-rul", "Soft note that says it is a rule.", "rules"), 0.4),
        (piece("c-know", "Uses vim", kind="user_knowledge_tech_stack"), 0.3),
    ]
    d.chunks.extra = [piece("c2-0", "evidence of a skill", "skills")]
    d.graph.add_node("user:john", ACME, name="John", team="auth")
    d.graph.add_node("service:auth", ACME, tier=1)
    d.graph.add_edge("user:john", "owns", "service:auth", ACME)  # evidence c0-0
    d.graph.add_edge("jira:t1", "assigned_to", "user:john", ACME)  # evidence c1-0
    d.graph.add_edge("service:auth", "uses", "lib:jwt", ACME)  # evidence c2-0: skills
    d.knowledge.items = [knowledge(KnowledgeCategory.TECH_STACK, "Editor", "Uses vim")]
    for client, key, content in (("acme", "deploy", "Never deploy on Friday."),
                                 ("acme", "alerts", "Page the on-call."),
                                 ("beta", "secret-rule", "Beta only.")):  # fmt: skip
        await d.rules.store(RuleDraft(client, "", key, RuleType.PROCESSING, content, "", "k"))
    for scope, summary in ((ACME, "Fixed the login bug"), (BETA, "Beta's private chat")):
        entry = new_entry(SessionDraft(SessionSource.CHAT, summary), scope, "k", REJECT)
        await d.session.append(entry, timedelta(days=7), 50)
    await d.procedures.save("acme", draft(), [1.0, 0.0, 0.0], "k")
    await d.procedures.save("beta", draft("beta trigger"), [1.0, 0.0, 0.0], "k")
    return d


async def _context(d: Doubles, reader: Scope = ACME, budget: int | None = None) -> str:
    nodes = await d.graph.nodes(reader, ["user:john", "service:auth"])
    result = await agent_context(
        "login", user=nodes.get("user:john"), entities=[v for k, v in nodes.items()
                                                        if k != "user:john"],
        limit=10, budget=budget, reader=reader, now=NOW, ports=d.ports(),
    )  # fmt: skip
    return result.text


def sections_of(text: str) -> dict[str, list[str]]:
    """Each section's lines (its header left out), by name."""
    blocks = text.split("\n\n## ")
    return {b.removeprefix("## ").split("\n")[0]: b.split("\n")[1:] for b in blocks}


async def test_sections_come_in_the_fixed_order_with_every_layer() -> None:
    d = await _filled()
    text = await _context(d)
    headers = [line for line in text.splitlines() if line.startswith("## ")]
    assert headers == ["## rules", "## user_profile", "## instructions", "## context",
                       "## skills", "## faq", "## session", "## procedures"]  # fmt: skip
    sections = sections_of(text)
    assert sections["rules"] == [
        "- alerts (PROCESSING): Page the on-call.",
        "- deploy (PROCESSING): Never deploy on Friday.",
    ]
    assert sections["user_profile"] == [
        "[Metadata]",
        "name: John",
        "team: auth",
        "",
        "[Knowledge]",
        "[tech_stack] Editor: Uses vim",
        "---",
        "John likes short answers.",
        "",
        "[Relationships]",
        "OWNS → Service:auth",
    ]
    # The other entity's metadata first, then pieces, then edges into the user.
    assert sections["context"] == [
        "[Metadata]",
        "service:auth (service): tier=1",
        "",
        "[Knowledge]",
        "The auth service issues tokens.",
        "---",
        "Soft note that says it is a rule.",
        "",
        "[Relationships]",
        "Jira:t1 ASSIGNED_TO → User:john (John)",
    ]
    # An edge goes where its linked piece's info type says, and the piece comes with it,
    # scored 1/1 for one hop: above the search's 0.7.
    assert sections["skills"] == [
        "[Knowledge]",
        "evidence of a skill",
        "---",
        "Knows Kotlin coroutines.",
        "",
        "[Relationships]",
        "Service:auth USES → Lib:jwt",
    ]
    assert sections["session"][0].endswith("CHAT: Fixed the login bug")
    assert sections["procedures"] == [
        "- deploy the web app (LEARNED): Build, test and roll out the web app. | steps: "
        "coder.run_tests"
    ]
    assert "Beta" not in text and "beta" not in text


async def test_the_same_data_in_any_order_gives_the_same_text() -> None:
    first = await _context(await _filled())
    for seed in range(5):
        d = await _filled()
        shuffle = random.Random(seed).shuffle
        shuffle(d.graph.edges)
        shuffle(d.rules.rows)
        rows = list(d.procedures.rows.items())
        shuffle(rows)
        d.procedures.rows = dict(rows)
        d.graph.vertices = [
            (k, type(v)(v.scope, v.type, dict(reversed(list(v.properties.items())))))
            for k, v in d.graph.vertices
        ]
        assert await _context(d) == first


def _hit(chunk_id: str, score: float, info_type: str | None = None) -> SearchHit:
    return SearchHit(piece(chunk_id, f"text {chunk_id}", info_type), score, None, None)


def test_pieces_rank_by_score_then_id() -> None:
    found = Found(hits=[_hit("b", 0.5), _hit("c", 0.9), _hit("a", 0.5)])
    [section] = build_sections(found, None)
    assert [line.chunk_ids for line in section.lines] == [("c",), ("a",), ("b",)]


def test_a_budget_cuts_the_lowest_ranked_lines_first_and_says_so() -> None:
    hits = [_hit(f"c{i:02}", 1 - i / 100, "instructions") for i in range(20)]
    [whole] = build_sections(Found(hits=hits), None)
    [cut] = build_sections(Found(hits=hits), 150)
    assert len(cut.text) <= 150 < len(whole.text)
    assert cut.lines == whole.lines[: len(cut.lines)] and cut.lines
    assert cut.omitted == 20 - len(cut.lines)
    assert cut.text.endswith(f"- [{cut.omitted} lower-ranked items cut to fit 150 characters]")


async def test_rules_are_never_cut_by_the_budget() -> None:
    d = await _filled()
    for i in range(10):
        await d.rules.store(RuleDraft("acme", "", f"r{i}", RuleType.SECURITY, "x" * 80, "", "k"))
    text = await _context(d, budget=100)
    rules = text.split("\n\n")[0]
    assert rules.count("\n- ") == 12 and "cut to fit" not in rules
    assert all(len(block) <= 100 for block in text.split("\n\n## ")[1:])


async def test_the_query_is_embedded_once_for_search_and_procedures() -> None:
    d = await _filled()
    await _context(d)
    assert d.embedder.batches == [["login"]]


async def test_another_client_sees_none_of_acmes_layers() -> None:
    d = await _filled()
    text = await _context(d, reader=BETA)
    assert "acme" not in text.lower() and "John" not in text and "login" not in text.lower()
    assert "secret-rule (PROCESSING): Beta only." in text
    assert "Beta's private chat" in text
    # A reader without a client has no rules, session or procedures to read.
    unscoped = await _context(d, reader=GLOBAL)
    assert "## user_profile" in unscoped
    assert not {"## rules", "## session", "## procedures"} & set(unscoped.splitlines())


@pytest.mark.parametrize(
    ("query", "entities", "limit", "budget", "field"),
    [("  ", 0, 10, None, "query"), ("x" * 4001, 0, 10, None, "query"),
     ("q", 21, 10, None, "entityKeys"), ("q", 0, 0, None, "limit"), ("q", 0, 51, None, "limit"),
     ("q", 0, 10, 99, "budget"), ("q", 0, 10, 1_000_001, "budget")],
)  # fmt: skip
async def test_bad_arguments_name_their_field(
    query: str, entities: int, limit: int, budget: int | None, field: str
) -> None:
    node = NodeView("service:x", "service", {}, ACME)
    with pytest.raises(KenningError) as raised:
        await agent_context(
            query, user=None, entities=[node] * entities, limit=limit, budget=budget,
            reader=ACME, now=NOW, ports=Doubles().ports(),
        )  # fmt: skip
    assert raised.value.field == field


async def test_the_entities_pieces_are_found_however_far_down_the_search_ranks_them() -> None:
    d = Doubles()
    d.chunks.hits = [(piece(f"c{i:03}", f"login note {i}"), 1.0 - i / 1000) for i in range(150)]
    owned = replace(piece("c-own", "John's login runbook."), graph_refs=("user:john",))
    d.chunks.hits.append((owned, 0.01))  # below every other hit
    d.graph.add_node("user:john", ACME, name="John")
    john = (await d.graph.nodes(ACME, ["user:john"]))["user:john"]
    ports = d.ports()
    asked = [
        await agent_context(
            "login", user=john, limit=5, reader=ACME, now=NOW, ports=ports, shape=shape
        )
        for shape in (Shape(), Shape(entity_pieces=True))
    ]
    assert "John's login runbook." not in asked[0].text
    assert "John's login runbook." in asked[1].text
    assert "login note 0" in asked[0].text and "login note 0" not in asked[1].text

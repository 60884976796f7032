"""agentContext's three-layer retrieve on the real stack (003 §Stage 3): the graph read
``depth`` hops around the user with each linked piece scored 1/hop, one line per piece
with the higher of its search and graph scores, the client's global metadata in every
context of the client, the search's filters, the formatter's options, a bad ``depth`` named,
and MCP's ``get_context`` taking the same arguments."""

from __future__ import annotations

from typing import Any

import pytest
from mcp.server.mcpserver.exceptions import ToolError

from kenning.domain.access.principal import Principal, Role
from kenning.domain.access.scope import Scope
from kenning.mcp.memory_arguments import TextFormatOptions
from kenning.mcp.recall_tools import get_context_tool
from tests.support.graphql_api import Api
from tests.support.leaks.mcp_reads import tool_context

pytestmark = pytest.mark.integration

ACME = Principal("acme", Scope("acme"), Role.AGENT)
ACME_WEB = Principal("acme-web", Scope("acme", "web"), Role.AGENT)
BETA = Principal("beta", Scope("beta"), Role.AGENT)

CONTEXT = """query C($q: String!, $user: String, $depth: Int! = 2, $types: [String!],
                     $tags: [String!], $format: ContextFormatInput, $own: Boolean! = false) {
  agentContext(query: $q, userKey: $user, depth: $depth, knowledgeTypes: $types, tags: $tags,
               textFormat: $format, entityPieces: $own, limit: 10) {
    __typename
    ... on AgentContext { text sections { infoType lines { text score chunkIds block tags } } }
    ... on Error { code field message } } }"""
GRAPH = """mutation($input: IngestGraphInput!) {
  ingestGraph(input: $input) {
    __typename ... on IngestGraphSuccess { rejected { item reason } } } }"""
CHUNK_IDS = """query { search(query: "les rans aero crossing", mode: KEYWORD, limit: 20) {
  ... on SearchSuccess { hits { chunk { id content } } } } }"""


def _piece(ref: str, content: str, info: str, kind: str, tags: list[str]) -> dict[str, Any]:
    return {"ref": ref, "content": content, "infoType": info, "knowledgeType": kind, "tags": tags}


KNOWLEDGE = {
    "sourceUrn": "kb:les",
    "metadata": {
        "user:alice": {"type": "user", "properties": {"specialization": "turbomachinery"}},
        "technique:les": {"properties": {"label": "LES"}},
    },
    "pieces": [
        _piece(
            "les",
            "Initialize LES from converged RANS.",
            "instructions",
            "PROCEDURE",
            ["les", "rans"],
        ),
        _piece("rans", "RANS needs a y-plus near one.", "context", "FACT", ["rans"]),
        _piece("aero", "Team aero owns the jet noise case.", "context", "NOTE", ["aero"]),
        _piece("walk", "A zebra crossing story.", "context", "EPISODIC", ["walk"]),
    ],
    "nodes": [{"key": "technique:rans"}, {"key": "team:aero", "properties": {"name": "Aero"}}],
    "edges": [
        {
            "from": "user:alice",
            "edgeType": "SPECIALIZES_IN",
            "to": "technique:les",
            "evidence": ["les"],
        },
        {
            "from": "technique:les",
            "edgeType": "RELATED_TO",
            "to": "technique:rans",
            "evidence": ["rans"],
        },
        {"from": "technique:rans", "edgeType": "USED_BY", "to": "team:aero", "evidence": ["aero"]},
    ],
}
GLOBAL = {
    "sourceUrn": "kb:org",
    "metadata": {"global": {"type": "global", "properties": {"organization": "NASA"}}},
    "pieces": [],
}


async def _store(api: Api) -> dict[str, str]:
    """The knowledge file (the project's) and the client's global metadata; chunk ids by
    content's first word."""
    for principal, document in ((ACME_WEB, KNOWLEDGE), (ACME, GLOBAL)):
        done = (await api.as_(principal)(GRAPH, input=document))["ingestGraph"]
        assert done == {"__typename": "IngestGraphSuccess", "rejected": []}, done
    hits = (await api.as_(ACME_WEB)(CHUNK_IDS))["search"]["hits"]
    return {h["chunk"]["content"].split()[0]: h["chunk"]["id"] for h in hits}


async def _context(api: Api, principal: Principal = ACME_WEB, **variables: Any) -> Any:
    return (await api.as_(principal)(CONTEXT, q="zebra crossing", **variables))["agentContext"]


def _scores(found: dict[str, Any]) -> dict[str, float]:
    return {
        line["chunkIds"][0]: round(line["score"], 3)
        for section in found["sections"]
        for line in section["lines"]
        if line["block"] == "Knowledge" and line["chunkIds"]
    }


async def test_depth_reads_more_hops_and_scores_each_linked_piece_one_over_its_hop(
    api: Api,
) -> None:
    ids = await _store(api)
    # The search finds only the episodic piece: what else comes, comes through the graph.
    only: dict[str, Any] = {"user": "user:alice", "types": ["EPISODIC"]}
    expected = {ids["Initialize"]: 1.0, ids["RANS"]: 0.5, ids["Team"]: 0.333}
    for depth in (1, 2, 3):
        found = await _context(api, depth=depth, **only)
        scores = _scores(found)
        assert {k: v for k, v in scores.items() if k != ids["A"]} == {
            k: v for k, v in list(expected.items())[:depth]
        }, depth
        assert ids["A"] in scores
    assert "Technique:rans USED_BY → Team:aero (Aero)" in found["text"]
    relationships = {
        line["text"]: line["score"]
        for section in found["sections"]
        for line in section["lines"]
        if line["block"] == "Relationships"
    }
    assert relationships == {
        "SPECIALIZES_IN → Technique:les (LES)": 1.0,
        "Technique:les RELATED_TO → Technique:rans": 0.5,
        "Technique:rans USED_BY → Team:aero (Aero)": 0.333333,
    }
    assert "SPECIALIZES_IN → Technique:les (LES)" in found["text"]
    # Routed by the linked piece: the user's edge links an instructions piece.
    sections = {s["infoType"]: [line["text"] for line in s["lines"]] for s in found["sections"]}
    assert "SPECIALIZES_IN → Technique:les (LES)" in sections["instructions"]
    assert "[procedure] Initialize LES from converged RANS." in sections["instructions"]


async def test_a_piece_found_by_search_and_graph_shows_once_with_the_higher_score(
    api: Api,
) -> None:
    ids = await _store(api)
    found = await _context(api, user="user:alice", depth=3)
    knowledge = [
        line["chunkIds"][0]
        for section in found["sections"]
        for line in section["lines"]
        if line["block"] == "Knowledge"
    ]
    assert sorted(knowledge) == sorted(set(knowledge)) and len(knowledge) == 4
    scores = _scores(found)
    assert scores[ids["Initialize"]] == 1.0 and scores[ids["RANS"]] >= 0.5
    assert scores[ids["Team"]] >= 0.333
    again = await _context(api, user="user:alice", depth=3)
    assert again["text"] == found["text"]


async def test_the_clients_global_metadata_shows_in_every_context_of_the_client(
    api: Api,
) -> None:
    await _store(api)
    with_user = await _context(api, user="user:alice")
    assert with_user["text"].startswith(
        "## user_profile\n[Metadata]\nspecialization: turbomachinery\n\n"
        "[Global Metadata]\norganization: NASA\n\n## instructions\n"
    )
    without = await _context(api)
    assert "[Global Metadata]\norganization: NASA" in without["text"]
    assert "NASA" not in (await _context(api, BETA, user="user:alice"))["text"]


async def test_the_search_filters_by_knowledge_type_and_tags(api: Api) -> None:
    ids = await _store(api)
    by_type = _scores(await _context(api, types=["FACT", "NOTE"]))
    assert set(by_type) == {ids["RANS"], ids["Team"]}
    by_tag = _scores(await _context(api, tags=["les", "walk"]))
    assert set(by_tag) == {ids["Initialize"], ids["A"]}


async def test_the_search_keeps_the_entities_pieces_when_asked(api: Api) -> None:
    ids = await _store(api)
    every = _scores(await _context(api, user="user:alice", depth=1))
    assert set(every) == {ids["Initialize"], ids["RANS"], ids["Team"], ids["A"]}
    # Only the piece whose graph references name the user (the evidence of her edge).
    own = _scores(await _context(api, user="user:alice", depth=1, own=True))
    assert set(own) == {ids["Initialize"]}


async def test_the_formatter_options_change_the_text(api: Api) -> None:
    await _store(api)
    plain = (await _context(api, user="user:alice", depth=3))["text"]
    assert "[procedure] Initialize LES from converged RANS.\n  Tags: les, rans" in plain
    assert "\n---\n" in plain and "Score:" not in plain
    options = {
        "sectionDelimiter": "\n====\n",
        "itemDelimiter": "\n***\n",
        "includeTags": False,
        "includeScores": True,
    }
    shaped = (await _context(api, user="user:alice", depth=3, format=options))["text"]
    assert "Tags:" not in shaped and "\n---\n" not in shaped and "\n\n" not in shaped
    assert "[procedure] Initialize LES from converged RANS.\n  Score: 1.000" in shaped
    assert "\n====\n## instructions" in shaped and "\n***\n" in shaped


@pytest.mark.parametrize("depth", [0, 4, -1])
async def test_a_depth_outside_one_to_three_is_refused_naming_it(api: Api, depth: int) -> None:
    found = await _context(api, user="user:alice", depth=depth)
    expected = ("ValidationError", "INVALID", "depth")
    assert (found["__typename"], found["code"], found["field"]) == expected


async def test_a_depth_of_the_wrong_type_is_bad_user_input_naming_it(api: Api) -> None:
    result = await api.execute(CONTEXT, q="zebra", depth="two")
    assert result.errors is not None
    [error] = result.errors
    extensions = error.extensions or {}
    assert (extensions["code"], extensions["field"]) == ("BAD_USER_INPUT", "depth")


async def test_a_bad_delimiter_is_refused_naming_it(api: Api) -> None:
    found = await _context(api, format={"itemDelimiter": ""})
    assert found["field"] == "textFormat.itemDelimiter"


async def test_mcp_get_context_takes_depth_and_the_formatter_options(api: Api) -> None:
    ids = await _store(api)
    ctx = tool_context(api.runtime, ACME_WEB)
    shown = TextFormatOptions(include_scores=True, item_delimiter="\n***\n")
    found = await get_context_tool(
        ctx,
        query="zebra crossing",
        user_key="user:alice",
        depth=3,
        knowledge_types=["EPISODIC"],
        text_format=shown,
    )
    lines = [line for s in found["sections"] for line in s["lines"]]
    assert {line["chunkIds"][0] for line in lines if line.get("block") == "Knowledge"} == {
        ids["Initialize"],
        ids["RANS"],
        ids["Team"],
        ids["A"],
    }
    assert "Score: 0.333" in found["text"] and "\n***\n" in found["text"]
    with pytest.raises(ToolError) as refused:
        await get_context_tool(ctx, query="zebra", depth=9)
    assert str(refused.value).endswith("(field: depth)")

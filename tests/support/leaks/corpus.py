"""Random corpora for the leak test: documents at every scope, sharing node keys and URNs.

The universe is 3 clients x 3 projects x 2 groups plus global rows. A project is in one group
at a time (``HOME``: p1 in g1, p2 in g2, p3 in none), so documents name a project with its
group or with none; readers may name any combination (a key minted before a move, or for a
project in no group), because the rule must hold for every reader, not only tidy ones. Node keys
and source URNs come from small pools, so the same key (and the same URN) is stored at many
scopes at once: the case where a leak would hide.

Everything a scope stores carries that scope's *tag* (``scopetag-c1-p2-g1``): chunk text,
source URNs and vertex properties. A reader's response may then only hold tags of scopes the
reader can see, whatever field they turn up in.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from kenning.domain.access.principal import Principal, Role
from kenning.domain.access.scope import Scope
from tests.support.graph_data import scope_input
from tests.support.graphql_api import Api

CLIENTS = ("c1", "c2", "c3")
PROJECTS = ("p1", "p2", "p3")
GROUPS = ("g1", "g2")
KEYS = ("user:ann", "user:bob", "svc:auth", "svc:billing", "doc:spec", "team:core")
EDGE_TYPES = ("knows", "owns", "uses")
TEXT_KINDS = ("note", "ticket")
GRAPH_KIND = "graph"
GLOBAL_METADATA = "global:global"
KINDS = (*TEXT_KINDS, GRAPH_KIND)
INFO_TYPES = (None, "user_profile", "instructions", "skills")
WORD = "ledger"
"""Every chunk holds this word, so a keyword search for it may return every visible chunk."""

# Hyphens in text, underscores inside property names.
_TAG = re.compile(r"scopetag[-_](c\d|x)[-_](p\d|x)[-_](g\d|x)")

Triple = tuple[str, str, str]


def tag(scope: Scope) -> str:
    """The marker of ``scope``: ``scopetag-c1-x-g2`` (``x`` = unset)."""
    parts = (scope.client_id, scope.project_id, scope.group_id)
    return "scopetag-" + "-".join(part or "x" for part in parts)


def tags_in(text: str) -> set[Scope]:
    """The scopes whose tags occur in ``text``."""
    return {
        Scope(*("" if part == "x" else part for part in match.groups()))
        for match in _TAG.finditer(text)
    }


def client_scopes(client: str) -> st.SearchStrategy[Scope]:
    """Any scope of ``client``: client-wide, group, project (with or without a group)."""
    return st.builds(
        Scope,
        st.just(client),
        st.sampled_from(("", *PROJECTS)),
        st.sampled_from(("", *GROUPS)),
    )


HOME = {"p1": "g1", "p2": "g2", "p3": ""}
"""The group each project's documents may name (besides none)."""


def written_scopes() -> st.SearchStrategy[Scope]:
    """A scope a document may be written at: global, client-wide, group, or a project
    naming its group (``HOME``) or none."""
    client = st.sampled_from(CLIENTS)
    project = st.sampled_from(PROJECTS)
    return st.one_of(
        st.just(Scope()),
        st.builds(Scope, client),
        st.builds(lambda c, g: Scope(c, "", g), client, st.sampled_from(GROUPS)),
        st.builds(
            lambda c, p, home: Scope(c, p, HOME[p] if home else ""), client, project, st.booleans()
        ),
    )


def scopes() -> st.SearchStrategy[Scope]:
    """A scope, each kind equally likely: global, client-wide, group, project in a group,
    project without a group."""
    client = st.sampled_from(CLIENTS)
    project, group = st.sampled_from(PROJECTS), st.sampled_from(GROUPS)
    return st.one_of(
        st.just(Scope()),
        st.builds(Scope, client),
        st.builds(lambda c, g: Scope(c, "", g), client, group),
        st.builds(Scope, client, project, group),
        st.builds(Scope, client, project),
    )


@dataclass(frozen=True, slots=True)
class Document:
    """One write: plain text through ``ingest`` or pieces/nodes/edges through ``ingestGraph``."""

    scope: Scope
    structured: bool
    urn_number: int
    kind: str
    edges: tuple[Triple, ...]
    mentions: tuple[str, ...]
    info_type: str | None
    as_scoped_agent: bool
    """Written by an agent key of exactly this scope (no scope argument) instead of the
    global admin naming the scope."""
    asserted: bool = False
    """A structured document's edges cite no piece: its source asserts them (ASSERTED
    evidence, naming the writing key)."""

    @property
    def urn(self) -> str:
        # Shared between scopes on purpose; within one scope a later write replaces.
        return f"{'graph' if self.structured else 'doc'}-{self.urn_number}"


@st.composite
def documents(draw: st.DrawFn, scope: st.SearchStrategy[Scope] | None = None) -> Document:
    """A document at a random scope with a few edges among the shared keys."""
    at = draw(scope if scope is not None else written_scopes())
    structured = draw(st.booleans())
    pairs = st.permutations(KEYS).map(lambda keys: (keys[0], keys[1]))
    edges = draw(
        st.lists(
            st.builds(lambda p, t: (p[0], t, p[1]), pairs, st.sampled_from(EDGE_TYPES)),
            min_size=0 if not structured else 1,
            max_size=3,
            unique=True,
        )
    )
    return Document(
        scope=at,
        structured=structured,
        urn_number=draw(st.integers(1, 3)),
        kind=GRAPH_KIND if structured else draw(st.sampled_from(TEXT_KINDS)),
        edges=tuple(edges),
        mentions=tuple(draw(st.lists(st.sampled_from(KEYS), max_size=2, unique=True))),
        info_type=draw(st.sampled_from(INFO_TYPES)),
        as_scoped_agent=at.client_id != "" and draw(st.booleans()),
        asserted=structured and draw(st.booleans()),
    )


def corpora(min_size: int = 6, max_size: int = 12) -> st.SearchStrategy[list[Document]]:
    """Global documents (at least one) plus documents spread over the clients."""
    global_docs = st.lists(documents(st.just(Scope())), min_size=1, max_size=2)
    scoped = st.lists(documents(), min_size=min_size, max_size=max_size)
    return st.builds(lambda g, s: [*g, *s], global_docs, scoped)


@dataclass(frozen=True, slots=True)
class Reader:
    """A principal and the narrowing it asks for (``None``: read with the key's scope)."""

    principal: Principal
    narrow: Scope | None

    def __str__(self) -> str:
        return f"{self.principal.role.value} key at {self.principal.scope.describe()}"

    @property
    def allowed(self) -> bool:
        """False when the narrowing widens or leaves the key's scope: a ``ScopeError``."""
        return self.narrow is None or self.principal.scope.narrows_to(self.narrow)


def principal(scope: Scope, role: Role = Role.UI) -> Principal:
    """A principal holding a key of ``scope``."""
    return Principal(key_id=f"leak-{tag(scope)}-{role.value}", scope=scope, role=role)


@st.composite
def readers(draw: st.DrawFn, near: Sequence[Scope] = ()) -> Reader:
    """A random principal, often at a scope that holds data (``near``), and a random
    narrowing: none, one inside the key's client (refused when it widens the key's scope),
    or any scope at all (for a client key mostly another client's: refused)."""
    own = draw(st.one_of(scopes(), st.sampled_from(near)) if near else scopes())
    role = draw(st.sampled_from(list(Role)))
    narrow = draw(
        st.one_of(
            st.none(),
            client_scopes(own.client_id) if own.client_id else scopes(),
            scopes(),
        )
    )
    return Reader(principal(own, role), narrow)


_INGEST = """
mutation($input: IngestInput!) {
  ingest(input: $input) { __typename ... on ValidationError { message field } }
}"""
_INGEST_GRAPH = """
mutation($input: IngestGraphInput!) {
  ingestGraph(input: $input) {
    __typename ... on IngestGraphSuccess { rejected { item index reason } }
    ... on ValidationError { message field }
  }
}"""


def vertex_properties(scope: Scope, key: str) -> dict[str, str]:
    """The properties a structured write gives a vertex: the scope's tag twice, once under a
    shared name (the merge must pick a visible value) and once under a per-scope name (the
    merge must not bring in an invisible vertex's names)."""
    marker = tag(scope)
    return {"owner": marker, f"secret_{marker.replace('-', '_')}": f"{marker} of {key}"}


def _text_input(doc: Document) -> dict[str, Any]:
    marker = tag(doc.scope)
    # References end the line: a "." after "svc:auth" would belong to the id.
    lines = [f"Ledger entry {marker} about {' and '.join(doc.mentions) or 'nothing'}"]
    lines += [f"{a}|{t.upper()}|{b}" for a, t, b in doc.edges]
    return {
        "sourceUrn": doc.urn,
        "kind": doc.kind,
        "content": "\n".join(lines) + "\n",
        "infoType": doc.info_type,
        "tags": [marker],
    }


def _graph_input(doc: Document) -> dict[str, Any]:
    marker = tag(doc.scope)
    keys = sorted({k for a, _, b in doc.edges for k in (a, b)} | set(doc.mentions))
    pieces = [
        {
            "ref": f"r{i}",
            "content": f"Ledger fact {marker} says {a} {t} {b}",
            "infoType": doc.info_type,
        }
        for i, (a, t, b) in enumerate(doc.edges)
    ]
    return {
        "sourceUrn": doc.urn,
        "kind": doc.kind,
        "pieces": pieces,
        # Every structured write also states the client's global metadata (agentContext
        # shows the visible ones in every context).
        "nodes": [
            {"key": k, "properties": vertex_properties(doc.scope, k)}
            for k in [*keys, GLOBAL_METADATA]
        ],
        # Each edge's properties carry the scope's tag, as its evidence does.
        "edges": [
            {
                "from": a,
                "edgeType": t,
                "to": b,
                "evidence": [] if doc.asserted else [f"r{i}"],
                "properties": {"note": f"edge {marker}"},
            }
            for i, (a, t, b) in enumerate(doc.edges)
        ],
    }


_DEFINE = """mutation($scope: ScopeInput) {
  defineRelation(edgeType: "knows", cardinality: MANY, description: "d", scope: $scope) {
    __typename } }"""


async def write_corpus(api: Api, docs: Sequence[Document]) -> None:
    """Write every document through GraphQL; any failure stops the test. Each client
    written to declares the relation ``knows`` (MANY: it ends no edge), declared by a key
    id naming the client, so ``relations`` has something per client to keep apart."""
    for client in sorted({doc.scope.client_id for doc in docs}):
        declarer = api.as_(principal(Scope(client), Role.AGENT))
        declared = await declarer(_DEFINE, scope=scope_input(Scope(client)))
        assert declared["defineRelation"]["__typename"] == "DefineRelationSuccess", declared
    for doc in docs:
        payload = _graph_input(doc) if doc.structured else _text_input(doc)
        writer = api
        if doc.as_scoped_agent:
            writer = api.as_(principal(doc.scope, Role.AGENT))
        else:
            payload["scope"] = scope_input(doc.scope)
        if doc.structured:
            result = (await writer(_INGEST_GRAPH, input=payload))["ingestGraph"]
            assert result["__typename"] == "IngestGraphSuccess", result
            assert result["rejected"] == [], result
        else:
            result = (await writer(_INGEST, input=payload))["ingest"]
            assert result["__typename"] == "IngestSuccess", result

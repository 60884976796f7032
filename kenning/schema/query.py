"""The root Query type."""

from __future__ import annotations

import strawberry

from kenning.resolvers.access.keys import resolve_api_keys, resolve_viewer
from kenning.resolvers.connections.lifecycle import resolve_connection, resolve_connections
from kenning.resolvers.erasure.erase import resolve_erasure_receipts
from kenning.resolvers.extraction.check_ins import resolve_check_ins
from kenning.resolvers.graph.find import resolve_find_nodes
from kenning.resolvers.graph.node_list import resolve_all_nodes
from kenning.resolvers.graph.queries import (
    resolve_neighbors,
    resolve_node,
    resolve_nodes,
    resolve_path,
)
from kenning.resolvers.graph.relations import resolve_edge_history, resolve_relations
from kenning.resolvers.health import resolve_health
from kenning.resolvers.ingestion.knowledge_admin import resolve_aliases
from kenning.resolvers.memory.changes import resolve_changes
from kenning.resolvers.memory.knowledge_history import resolve_knowledge_history
from kenning.resolvers.memory.node_history import resolve_node_history
from kenning.resolvers.memory.procedure_versions import resolve_procedure_history
from kenning.resolvers.memory.procedures import resolve_procedures
from kenning.resolvers.memory.rules import resolve_rule_history, resolve_rules
from kenning.resolvers.memory.session import resolve_session_memory
from kenning.resolvers.memory.user_knowledge import resolve_user_context
from kenning.resolvers.queue.jobs import resolve_ingestion_status, resolve_jobs
from kenning.resolvers.retrieval.agent_context import resolve_agent_context
from kenning.resolvers.retrieval.chunks import resolve_chunk, resolve_chunks
from kenning.resolvers.retrieval.evidence import resolve_evidence_pack
from kenning.resolvers.retrieval.search import resolve_chunks_by_kind, resolve_search
from kenning.resolvers.router import resolve_router_status
from kenning.resolvers.sources.files import resolve_stored_file
from kenning.resolvers.sources.listing import resolve_sources, resolve_stored_files
from kenning.schema.access.keys import ApiKey, Viewer
from kenning.schema.health import Health
from kenning.schema.retrieval.chunk import Chunk


@strawberry.type
class Query:
    health: Health = strawberry.field(
        resolver=resolve_health, description="Versions of every part Kenning runs on."
    )
    viewer: Viewer = strawberry.field(
        resolver=resolve_viewer, description="Who is calling: the API key's id, role and scope."
    )
    api_keys: list[ApiKey] = strawberry.field(
        resolver=resolve_api_keys,
        description="API keys inside the admin key's scope, newest first (admin keys only).",
    )
    chunk: Chunk | None = strawberry.field(
        resolver=resolve_chunk,
        description="A chunk by id (as search, evidencePack and agentContext return them); "
        "null when none is visible.",
    )
    chunks: list[Chunk | None] = strawberry.field(
        resolver=resolve_chunks,
        description="Chunks by id, in the order asked (at most 1000); null where not visible.",
    )
    aliases = strawberry.field(
        resolver=resolve_aliases, description="A client's aliases, most recently seen first."
    )
    erasure_receipts = strawberry.field(
        resolver=resolve_erasure_receipts,
        description="What each erasure of the admin key's client removed, per kind, when and "
        "by whom, newest first; never the content.",
    )
    ingestion_status = strawberry.field(
        resolver=resolve_ingestion_status,
        description="A queued ingestion job; null when none is visible.",
    )
    jobs = strawberry.field(
        resolver=resolve_jobs,
        description="Visible ingestion jobs, newest first or in claim order, by cursor.",
    )
    connection = strawberry.field(
        resolver=resolve_connection,
        description="A source connection with its sync cursors; null when none is visible.",
    )
    connections = strawberry.field(
        resolver=resolve_connections, description="Visible source connections, newest first."
    )
    search = strawberry.field(
        resolver=resolve_search,
        description="Chunks the caller may see that best match a query: hybrid, vector or keyword.",
    )
    chunks_by_kind = strawberry.field(
        resolver=resolve_chunks_by_kind,
        description="The newest visible chunks of one kind (no embedding involved).",
    )
    node = strawberry.field(
        resolver=resolve_node,
        description="A node by key (normalized, alias-resolved); null when none is visible.",
    )
    nodes = strawberry.field(
        resolver=resolve_nodes,
        description="Nodes by key, in the order asked (at most 1000); null where not visible.",
    )
    all_nodes = strawberry.field(
        resolver=resolve_all_nodes,
        description="The nodes the caller may see, by key, one page at a time, without a "
        "search text (findNodes searches by one); each as node(key) shows it.",
    )
    find_nodes = strawberry.field(
        resolver=resolve_find_nodes,
        description="Visible nodes whose key, name, label or description match what a person "
        "types (trigram similarity, typos included): exact key and name first.",
    )
    neighbors = strawberry.field(
        resolver=resolve_neighbors,
        description="The subgraph within `depth` (1-3) hops of a node, cut at `limit`.",
    )
    path = strawberry.field(
        resolver=resolve_path,
        description="One shortest path of at most `maxDepth` (1-6) edges; null when none.",
    )
    edge_history = strawberry.field(
        resolver=resolve_edge_history,
        description="Every interval an edge held (of every target when `to` is null), oldest "
        "first: valid and record times, and why and by what each one ended.",
    )
    node_history = strawberry.field(
        resolver=resolve_node_history,
        description="Every value a node's properties held (of the vertices the caller may "
        "see), newest first, with what stated it, when it held and when it ended.",
    )
    relations = strawberry.field(
        resolver=resolve_relations,
        description="The relations the caller's client declared (ONE or MANY), by edge type.",
    )
    evidence_pack = strawberry.field(
        resolver=resolve_evidence_pack,
        description="Search hits plus the graph within `hops` of what they mention.",
    )
    agent_context = strawberry.field(
        resolver=resolve_agent_context,
        description="What an agent should know for a query: hard rules first, the user's "
        "profile, pieces and graph by info type, the session and matching procedures; "
        "deterministic, within a budget.",
    )
    router_status = strawberry.field(
        resolver=resolve_router_status,
        description="The model router: backends, model sets, queues, leases (any API key); "
        "null when the server runs none.",
    )
    user_context = strawberry.field(
        resolver=resolve_user_context,
        description="Everything known about the user, by category, with its Markdown; "
        "no embedding involved.",
    )
    knowledge_history = strawberry.field(
        resolver=resolve_knowledge_history,
        description="The versions of one user-knowledge item, newest first, forgotten ones "
        "included, one page at a time.",
    )
    changes = strawberry.field(
        resolver=resolve_changes,
        description="The audit trail of memory: every update, forget and delete of the items "
        "the caller may see, node corrections and edge retractions included, newest first, "
        "one page at a time.",
    )
    session_memory = strawberry.field(
        resolver=resolve_session_memory,
        description="The newest unexpired entries of the caller's client and project session.",
    )
    procedures = strawberry.field(
        resolver=resolve_procedures,
        description="The client's procedures for a trigger or query: exact and similar ones, "
        "USER_DEFINED first, then LEARNED by success rate decayed by disuse.",
    )
    procedure_history = strawberry.field(
        resolver=resolve_procedure_history,
        description="The versions of one procedure, newest first, a deleted one included, "
        "one page at a time.",
    )
    rules = strawberry.field(
        resolver=resolve_rules,
        description="The hard rules in force for the caller's client: client-wide ones, each "
        "overridden by the project's rule of the same key.",
    )
    rule_history = strawberry.field(
        resolver=resolve_rule_history,
        description="The versions of one hard rule, newest first, with who stored them, "
        "one page at a time.",
    )
    check_ins = strawberry.field(
        resolver=resolve_check_ins,
        description="The check-ins of structureKnowledge calls the caller may read, newest first.",
    )
    stored_file = strawberry.field(
        resolver=resolve_stored_file,
        description="A stored original (ingestFile) the caller may read; download it from "
        "its downloadUrl. Null for an unknown id and a hidden one alike.",
    )
    sources = strawberry.field(
        resolver=resolve_sources,
        description="The stored sources the caller may see, by URN, one page at a time: kind, "
        "source kind, connection, chunk count, times and the original it came from.",
    )
    stored_files = strawberry.field(
        resolver=resolve_stored_files,
        description="The stored originals (ingestFile) the caller may read, by source URN, "
        "one page at a time.",
    )

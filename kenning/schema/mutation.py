"""The root Mutation type."""

from __future__ import annotations

import strawberry

from kenning.resolvers.ingest import resolve_ingest
from kenning.resolvers.ingest_graph import resolve_ingest_git_commits, resolve_ingest_graph
from kenning.resolvers.knowledge_admin import (
    resolve_purge_connection,
    resolve_purge_source,
    resolve_register_alias,
)


@strawberry.type
class Mutation:
    ingest = strawberry.mutation(
        resolver=resolve_ingest,
        description="Index one document now: chunks, embeddings and its graph, atomically.",
    )
    ingest_graph = strawberry.mutation(
        resolver=resolve_ingest_graph,
        description="Store pre-structured pieces, nodes and evidence-bearing edges.",
    )
    ingest_git_commits = strawberry.mutation(
        resolver=resolve_ingest_git_commits,
        description="Commits, branches and files as a graph; diffs are the evidence.",
    )
    register_alias = strawberry.mutation(
        resolver=resolve_register_alias,
        description="Make one node key resolve to another for a client; merges the nodes.",
    )
    purge_source = strawberry.mutation(
        resolver=resolve_purge_source,
        description="Remove a source's chunks, its evidence, and what only it supported.",
    )
    purge_connection = strawberry.mutation(
        resolver=resolve_purge_connection,
        description="Remove every source of a connection, as purgeSource does.",
    )

"""Leak tests run on the ingestion tests' in-process runtime: real PostgreSQL, GraphQL."""

from __future__ import annotations

from tests.integration.access.ground_truth import Stored, load
from tests.integration.ingestion.conftest import Api, api, clean, embedder, runtime

__all__ = ["api", "clean", "embedder", "fresh", "runtime", "snapshot"]


async def fresh(api: Api) -> None:
    """Empty the knowledge base, as the ``clean`` fixture does, but once per example."""
    graph = api.runtime.settings.graph_name
    async with api.runtime.pool.acquire() as conn:
        await conn.execute(
            "TRUNCATE chunks, sources, source_mentions, aliases, project_groups, "
            f'{graph}."Entity", {graph}."REL"'
        )


async def snapshot(api: Api) -> Stored:
    """Every stored row, read without any visibility predicate."""
    return await load(api.runtime.pool, api.runtime.settings.graph_name)

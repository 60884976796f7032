"""Property: on random corpora, no read path shows a reader anything its scope hides.

The corpus is corrected before it is read (random ``updateNode`` and ``retractEdge`` calls,
each at a stored vertex's or edge's own scope), so the graph's past (``nodeHistory``,
``changes``) is audited too, and every path answers without the retracted edges.

Vector search answers three ways: the HNSW walk, the exact scan of ``chunk_vectors`` (which
the tests' hash embedder's unrelated vectors send nearly every query to) and resident copies
of the reader's clients' rows (warmed before each reader's reads). The property runs once
with each; the MCP read tools are audited beside GraphQL's paths in the HNSW walk's run.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

import asyncpg
import pytest
import redis.asyncio as aioredis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kenning.runtime import Runtime
from kenning.settings import Settings
from tests.support.counting_embedder import CountingEmbedder
from tests.support.graphql_api import Api
from tests.support.leaks.corpus import KEYS, Document, Reader, corpora, readers, write_corpus
from tests.support.leaks.graph_history import Pick, corrections, write_corrections
from tests.support.leaks.ground_truth import fresh, snapshot
from tests.support.leaks.read_paths import Probe
from tests.support.leaks.reader_audit import audit_reader

pytestmark = pytest.mark.integration

_pair = st.permutations(KEYS).map(lambda keys: (keys[0], keys[1]))
probes = st.builds(
    Probe,
    neighbors=st.tuples(*[st.tuples(st.sampled_from(KEYS), st.integers(1, 3))] * 2),
    paths=st.tuples(_pair, _pair),
    entity=st.sampled_from(KEYS),
)


WAYS = {
    "exact-scan": {"search_exact_below": 0.3},
    "hnsw-walk": {"search_exact_below": -1.0},
    "resident": {"search_exact_below": 0.3, "search_exact_max_rows": 1},
}


@pytest.fixture(params=list(WAYS))
async def runtime(
    request: pytest.FixtureRequest,
    pool: asyncpg.Pool,
    migrated_settings: Settings,
    embedder: CountingEmbedder,
    clean: None,
) -> AsyncIterator[Runtime]:
    """The shared runtime, its vector search answering by the way under test (and the walk
    where that way does not apply); that way must have answered some searches."""
    tuned = migrated_settings.model_copy(update=WAYS[request.param])
    redis = aioredis.from_url(tuned.redis_url)
    runtime = Runtime(settings=tuned, pool=pool, redis=redis, embedder=embedder)
    yield runtime
    await redis.aclose()
    way = request.param.removeprefix("exact-").removeprefix("hnsw-")
    assert runtime.chunk_index.ways[way] > 0, runtime.chunk_index.ways


@dataclass(frozen=True, slots=True)
class Scenario:
    docs: list[Document]
    readers: list[Reader]
    probe: Probe
    corrections: tuple[Pick, ...] = ()


@st.composite
def scenarios(draw: st.DrawFn) -> Scenario:
    """A corpus, then readers (half of them where the corpus stored something), the keys the
    graph paths start from, and the corrections made over the corpus (node updates, edge
    retractions)."""
    docs = draw(corpora())
    near = sorted({d.scope for d in docs}, key=lambda s: s.describe())
    who = draw(st.lists(readers(near), min_size=3, max_size=4))
    return Scenario(docs, who, draw(probes), draw(corrections()))


@settings(
    max_examples=40,
    deadline=None,
    database=None,  # write nothing outside this folder; a failure prints its example
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(scenario=scenarios())
async def test_no_read_path_shows_a_reader_what_its_scope_hides(
    api: Api, runtime: Runtime, scenario: Scenario, request: pytest.FixtureRequest
) -> None:
    # The MCP read tools call the same use cases: one way of vector search audits them.
    mcp = request.node.callspec.params["runtime"] == "hnsw-walk"
    await fresh(api)
    await write_corpus(api, scenario.docs)
    written = await snapshot(api)
    entity = scenario.probe.entity
    await write_corrections(api, written.vertices, written.edges, scenario.corrections, entity)
    stored = await snapshot(api)
    for reader in scenario.readers:
        narrow = reader.narrow if reader.narrow is not None and reader.allowed else None
        await runtime.chunk_index.warm(narrow or reader.principal.scope)
        await audit_reader(api, stored, reader, scenario.probe, mcp=mcp)

"""The server refuses to start, saying what to do, when the database does not fit."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest

from kenning.app import preflight
from kenning.domain.errors import ConfigurationError
from kenning.settings import EmbedderKind, Settings
from kenning.storage.db.database_url import asyncpg_dsn, with_database
from kenning.storage.db.migrate import run_upgrade
from tests.support.database import TEST_DATABASE, recreate_database

pytestmark = pytest.mark.integration

# Per test database: sessions running side by side must not drop each other's.
DATABASE = f"{TEST_DATABASE}_startup"
# What a user who sets only KENNING_EMBEDDER=hash has as the model setting.
DEFAULT_MODEL = Settings.model_fields["embedding_model"].default


@pytest.fixture
def fresh(test_settings: Settings) -> Settings:
    url = with_database(test_settings.database_url, DATABASE)
    asyncio.run(recreate_database(url, DATABASE))
    return test_settings.model_copy(update={"database_url": url})


async def _execute(settings: Settings, sql: str) -> None:
    conn = await asyncpg.connect(asyncpg_dsn(settings.database_url))
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


def test_empty_database_asks_for_migrate(fresh: Settings) -> None:
    with pytest.raises(ConfigurationError, match="kenning migrate"):
        asyncio.run(preflight(fresh))


def test_migrated_database_passes(fresh: Settings) -> None:
    run_upgrade(fresh, "head")
    asyncio.run(preflight(fresh))


def test_schema_behind_asks_for_migrate(fresh: Settings) -> None:
    run_upgrade(fresh, "head")
    asyncio.run(_execute(fresh, "UPDATE alembic_version SET version_num = '0000'"))
    with pytest.raises(ConfigurationError, match=r"revision 0000 .* run `kenning migrate`"):
        asyncio.run(preflight(fresh))


def test_missing_extension_is_named(fresh: Settings) -> None:
    run_upgrade(fresh, "head")
    asyncio.run(_execute(fresh, "DROP EXTENSION vector CASCADE"))
    with pytest.raises(ConfigurationError, match="kenning migrate"):
        asyncio.run(preflight(fresh))


def test_other_embedding_dimension_is_refused(fresh: Settings) -> None:
    run_upgrade(fresh, "head")
    other = fresh.model_copy(update={"embedding_dim": 768})
    with pytest.raises(ConfigurationError, match=r"384-dimensional .* configured for 768"):
        asyncio.run(preflight(other))


def _hashed(settings: Settings) -> Settings:
    return settings.model_copy(
        update={"embedder": EmbedderKind.HASH, "embedding_model": DEFAULT_MODEL}
    )


def _ollama(settings: Settings, model: str = "nomic-embed-text") -> Settings:
    return settings.model_copy(update={"embedder": EmbedderKind.OLLAMA, "embedding_model": model})


def test_migrating_with_the_hash_embedder_records_it_and_serve_starts(fresh: Settings) -> None:
    hashed = _hashed(fresh)
    migrated = run_upgrade(hashed, "head")
    assert migrated.recorded_model == f"hash-{fresh.embedding_dim}"
    asyncio.run(preflight(hashed))


def test_another_embedder_than_the_recorded_one_is_refused(fresh: Settings) -> None:
    run_upgrade(_hashed(fresh), "head")
    with pytest.raises(
        ConfigurationError,
        match=rf"vectors come from 'hash-{fresh.embedding_dim}' but the embedder is "
        "'nomic-embed-text'",
    ):
        asyncio.run(preflight(_ollama(fresh)))


def test_migrate_rerecords_the_model_only_while_no_vectors_are_stored(fresh: Settings) -> None:
    run_upgrade(_hashed(fresh), "head")
    assert run_upgrade(_ollama(fresh), "head").recorded_model == "nomic-embed-text"
    asyncio.run(preflight(_ollama(fresh)))
    asyncio.run(_execute(fresh, _one_chunk(fresh.embedding_dim)))
    kept = run_upgrade(_hashed(fresh), "head")
    assert (kept.recorded_model, kept.conflicting_model) == (None, "nomic-embed-text")
    with pytest.raises(ConfigurationError, match=r"vectors come from 'nomic-embed-text'"):
        asyncio.run(preflight(_hashed(fresh)))


def _one_chunk(dim: int) -> str:
    return f"""
    INSERT INTO chunks (id, source_urn, ordinal, kind, client_id, project_id, group_id, content,
                        embedding, graph_refs, tags, content_hash, metadata)
    VALUES ('c1', 'doc:1', 0, 'note', '', '', '', 'x', array_fill(0.5, ARRAY[{dim}])::vector,
            '{{}}', '{{}}', 'h', '{{}}')
"""


def test_unreachable_database_says_so(fresh: Settings) -> None:
    gone = fresh.model_copy(update={"database_url": "postgresql://postgres@127.0.0.1:1/none"})
    with pytest.raises(ConfigurationError, match="cannot connect to PostgreSQL"):
        asyncio.run(preflight(gone))

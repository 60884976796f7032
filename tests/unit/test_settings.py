"""Settings: environment variables, defaults and the identifier whitelist."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from kenning.settings import EmbedderKind, Settings
from kenning.storage.db.database_url import (
    asyncpg_dsn,
    database_name,
    sqlalchemy_url,
    with_database,
)
from kenning.storage.retrieval.chunk_search import VectorScan


def test_defaults_point_at_the_local_stack(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("KENNING_DATABASE_URL", "KENNING_REDIS_URL", "KENNING_EMBEDDING_DIM"):
        monkeypatch.delenv(var, raising=False)
    settings = Settings(_env_file=None)
    assert settings.database_url == "postgresql://postgres@127.0.0.1:5433/kenning"
    assert settings.redis_url == "redis://127.0.0.1:6380/0"
    assert settings.embedding_dim == 384


def test_environment_overrides(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KENNING_DATABASE_URL", "postgresql://k@db.internal:5432/prod")
    monkeypatch.setenv("KENNING_EMBEDDING_DIM", "768")
    monkeypatch.setenv("KENNING_EMBEDDER", "ollama")
    settings = Settings(_env_file=None)
    assert settings.database_url == "postgresql://k@db.internal:5432/prod"
    assert settings.embedding_dim == 768
    assert settings.embedder is EmbedderKind.OLLAMA


@pytest.mark.parametrize(
    "name", ["kg", "x'); DROP TABLE chunks; --", "graph name", "9graph", "ümlaut", "a" * 64]
)
def test_graph_name_must_be_a_plain_identifier(name: str) -> None:
    with pytest.raises(ValidationError, match="graph_name"):
        Settings(graph_name=name, _env_file=None)


def test_graph_name_is_accepted_and_lower_cased() -> None:
    assert Settings(graph_name="Kenning_Graph2", _env_file=None).graph_name == "kenning_graph2"


def test_embedding_dimension_must_be_positive() -> None:
    with pytest.raises(ValidationError, match="embedding_dim"):
        Settings(embedding_dim=0, _env_file=None)


def test_database_url_helpers() -> None:
    url = "postgres+asyncpg://u:p@h:5433/kenning?sslmode=disable"
    assert database_name(url) == "kenning"
    assert with_database(url, "other") == "postgres+asyncpg://u:p@h:5433/other?sslmode=disable"
    assert asyncpg_dsn(url) == "postgresql://u:p@h:5433/kenning?sslmode=disable"
    assert sqlalchemy_url("postgresql://h/db") == "postgresql+asyncpg://h/db"
    assert database_name("postgresql://h:1") == "postgres"


@pytest.mark.parametrize(
    ("raw", "origins"),
    [
        ("", []),
        ("http://localhost:5173, https://ui.example.com/", ["http://localhost:5173", "https://ui.example.com"]),
        ('["*"]', ["*"]),
    ],
)  # fmt: skip
def test_cors_origins_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, raw: str, origins: list[str]
) -> None:
    monkeypatch.setenv("KENNING_CORS_ORIGINS", raw)
    assert Settings(_env_file=None).cors_origins == origins


@pytest.mark.parametrize("bad", ["localhost:5173", "https://ui.example.com/app", "ftp://x"])
def test_a_cors_origin_must_be_an_origin(bad: str) -> None:
    with pytest.raises(ValidationError, match="not an origin"):
        Settings(cors_origins=[bad], _env_file=None)


def test_graphiql_follows_development_unless_set() -> None:
    assert Settings(_env_file=None).graphiql_enabled is False
    assert Settings(development=True, _env_file=None).graphiql_enabled is True
    assert Settings(development=True, graphiql=False, _env_file=None).graphiql_enabled is False
    assert Settings(graphiql=True, _env_file=None).graphiql_enabled is True


def test_hybrid_fusion_defaults_to_scores_and_the_environment_picks_rrf(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from kenning.domain.retrieval.search import FusionMethod

    assert Settings().search_fusion_weights().method is FusionMethod.SCORES
    monkeypatch.setenv("KENNING_SEARCH_FUSION", "rrf")
    monkeypatch.setenv("KENNING_SEARCH_RRF_K", "20")
    weights = Settings().search_fusion_weights()
    assert (weights.method, weights.k) == (FusionMethod.RRF, 20)
    monkeypatch.setenv("KENNING_SEARCH_FUSION", "borda")
    with pytest.raises(ValidationError, match="search_fusion"):
        Settings()


def test_the_priority_linger_reaches_the_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    from kenning.queue_services import worker_config

    assert worker_config(Settings()).priority_linger == 0.25
    monkeypatch.setenv("KENNING_QUEUE_PRIORITY_LINGER_SECONDS", "0")
    assert worker_config(Settings()).priority_linger == 0.0


def test_the_vector_scan_defaults_are_the_settings_defaults(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    overrides = {
        "KENNING_SEARCH_EF_SEARCH": "120",
        "KENNING_SEARCH_MAX_SCAN_TUPLES": "7000",
        "KENNING_SEARCH_EXACT_BELOW": "0.25",
        "KENNING_SEARCH_EXACT_MAX_ROWS": "90000",
        "KENNING_SEARCH_RESIDENT_ROWS": "0",
    }
    for var in overrides:
        monkeypatch.delenv(var, raising=False)
    assert VectorScan.from_settings(Settings(_env_file=None)) == VectorScan()
    for var, value in overrides.items():
        monkeypatch.setenv(var, value)
    assert VectorScan.from_settings(Settings(_env_file=None)) == VectorScan(
        120, 7000, exact_below=0.25, exact_max_rows=90_000, resident_rows=0
    )

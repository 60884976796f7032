"""Alembic environment: Kenning's settings give the URL, graph name and embedding dimension."""

from __future__ import annotations

import asyncio
import re
from typing import Any, Literal

from alembic import context
from alembic.autogenerate.api import AutogenContext
from pgvector.sqlalchemy import HALFVEC, Vector
from sqlalchemy import Column, pool
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import async_engine_from_config
from sqlalchemy.types import TypeEngine

from kenning.settings import Settings
from kenning.storage.db import (  # noqa: F401  (their tables)
    bm25_tables,
    erasure_tables,
    file_tables,
    memory_version_tables,
    model_tables,
    node_version_tables,
    procedure_table,
    queue_tables,
    rule_table,
    session_table,
    validity_tables,
    vector_tables,
)
from kenning.storage.db.database_url import sqlalchemy_url
from kenning.storage.db.tables import metadata

config = context.config
settings: Settings = config.attributes.get("settings") or Settings()
# Migrations read the graph name and embedding dimension from here.
config.attributes["settings"] = settings


def _compare_type(
    ctx: Any,
    inspected_column: Column[Any],
    metadata_column: Column[Any],
    inspected_type: TypeEngine[Any],
    metadata_type: TypeEngine[Any],
) -> bool | None:
    # The declared vectors have no fixed dimension; the database's must be the configured one.
    for kind in (Vector, HALFVEC):
        if isinstance(metadata_type, kind):
            dim = getattr(inspected_type, "dim", None)
            return not (isinstance(inspected_type, kind) and dim == settings.embedding_dim)
    return None


def _render_item(type_: str, obj: Any, autogen_context: AutogenContext) -> str | Literal[False]:
    for kind in (Vector, HALFVEC):
        if type_ == "type" and isinstance(obj, kind):
            autogen_context.imports.add(f"from pgvector.sqlalchemy import {kind.__name__}")
            return f"{kind.__name__}()"
    return False


def _include_name(name: str | None, type_: str, parent_names: Any) -> bool:
    # The partitions of ``chunks`` (0016) and ``chunk_vectors`` (0021) are their storage,
    # not tables of their own: the partitioned parent carries the columns and indexes that
    # are compared.
    return not (type_ == "table" and name is not None and _PARTITION.fullmatch(name))


_PARTITION = re.compile(r"(chunks|chunk_vectors)_p\d+")


def _configure(connection: Connection | None = None, **kwargs: Any) -> None:
    context.configure(
        connection=connection,
        target_metadata=metadata,
        include_name=_include_name,
        compare_type=_compare_type,
        render_item=_render_item,
        **kwargs,
    )


def run_migrations_offline() -> None:
    _configure(url=sqlalchemy_url(settings.database_url), literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


def _run_sync(connection: Connection) -> None:
    _configure(connection)
    with context.begin_transaction():
        context.run_migrations()


async def run_migrations_online() -> None:
    engine = async_engine_from_config(
        {"sqlalchemy.url": sqlalchemy_url(settings.database_url)},
        prefix="sqlalchemy.",
        poolclass=pool.NullPool,
        # Only `public` on the path: with ag_catalog on it, autogenerate would compare AGE's
        # catalog tables too. Migrations schema-qualify every AGE name instead.
        connect_args={"server_settings": {"search_path": "public"}},
    )
    async with engine.connect() as connection:
        await connection.run_sync(_run_sync)
    await engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    asyncio.run(run_migrations_online())

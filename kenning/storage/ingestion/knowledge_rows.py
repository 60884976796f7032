"""The arrays and rows a write unit sends for chunks and edges, and the chunks' insert
statement in their column order, built apart from the unit so that a large document's can be
built in the worker thread (``domain.off_loop``)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Final

import numpy as np

from kenning.domain.ingestion.request import ChunkRecord, EdgeRecord
from kenning.domain.ingestion.validity import iso

CHUNK_COLUMNS: Final = (
    "id",
    "source_urn",
    "ordinal",
    "kind",
    "client_id",
    "project_id",
    "group_id",
    "content",
    "embedding",
    "graph_refs",
    "knowledge_type",
    "info_type",
    "tags",
    "source_kind",
    "connection_id",
    "external_id",
    "revision",
    "content_hash",
    "metadata",
    "observed_at",
)

# Filled by ``chunk_records``' rows, one per chunk; their metadata is JSON text.
CHUNK_INSERT: Final = "INSERT INTO chunks ({}) VALUES ({})".format(
    ", ".join(CHUNK_COLUMNS),
    ", ".join(
        f"${i}::jsonb" if column == "metadata" else f"${i}"
        for i, column in enumerate(CHUNK_COLUMNS, start=1)
    ),
)


def edge_columns(
    edges: Sequence[EdgeRecord], observed: Mapping[str, datetime] | None = None
) -> tuple[list[str], ...]:
    """The statement's arrays: from keys, types, to keys, evidence (JSON) and properties
    (JSON), in key order. An edge whose evidence has an ``observed`` time is valid from the
    earliest (``validFrom``); the statement fills in the transaction's time otherwise."""
    ordered = sorted(edges, key=lambda e: (e.from_key, e.edge_type, e.to_key))
    known = observed or {}

    def properties(edge: EdgeRecord) -> str:
        times = [known[c] for c in edge.evidence_chunk_ids if c in known]
        valid = {"validFrom": iso(min(times))} if times else {}
        return json.dumps({**edge.properties, **valid})

    return (
        [e.from_key for e in ordered],
        [e.edge_type for e in ordered],
        [e.to_key for e in ordered],
        [json.dumps(sorted(set(e.evidence_chunk_ids))) for e in ordered],
        [properties(e) for e in ordered],
    )


def chunk_records(chunks: Sequence[ChunkRecord]) -> list[tuple[object, ...]]:
    """The rows of ``INSERT INTO chunks``, in ``CHUNK_COLUMNS`` order."""
    return [
        (
            c.id,
            c.source_urn,
            c.ordinal,
            c.kind,
            c.scope.client_id,
            c.scope.project_id,
            c.scope.group_id,
            c.content,
            np.asarray(c.embedding, dtype=np.float32),
            list(c.graph_refs),
            c.knowledge_type,
            c.info_type,
            list(c.tags),
            c.source_kind,
            c.connection_id,
            c.external_id,
            c.revision,
            c.content_hash,
            json.dumps(dict(c.metadata)),
            c.observed_at,
        )
        for c in chunks
    ]

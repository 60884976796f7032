"""The chunks an erasure reads and rewrites: the statement that finds those naming a subject
and the one that stores their redacted form (with a new embedding) in place."""

from __future__ import annotations

from collections.abc import Sequence

CHUNKS_NAMING = """
    SELECT id, project_id, group_id, source_urn, content, metadata::text AS metadata, tags,
           external_id, graph_refs && $3::text[] AS refers
    FROM chunks
    WHERE client_id = $1 AND (graph_refs && $3::text[] OR content ILIKE ANY($2::text[])
        OR metadata::text ILIKE ANY($2::text[]) OR array_to_string(tags, ' ') ILIKE ANY($2::text[])
        OR coalesce(external_id, '') ILIKE ANY($2::text[]))
    ORDER BY id FOR UPDATE"""

# The columns a rewritten chunk takes from its redacted form; every other column is kept.
_REWRITTEN = {
    "content": "u.content",
    "embedding": "u.embedding::vector",
    "metadata": "u.metadata::jsonb",
    "tags": "ARRAY(SELECT jsonb_array_elements_text(u.tags::jsonb))",
    "external_id": "u.external_id",
    "graph_refs": "ARRAY(SELECT k FROM unnest(d.graph_refs) AS k WHERE NOT (k = ANY($3::text[])))",
    "updated_at": "now()",
}
# The table's stored columns, read when rewriting, so a column added later is carried over.
CHUNK_COLUMNS = """
    SELECT attname AS column_name FROM pg_attribute
    WHERE attrelid = 'chunks'::regclass AND attnum > 0 AND NOT attisdropped AND attgenerated = ''
    ORDER BY attnum"""


def rewrite(columns: Sequence[str]) -> str:
    """$1 client; $2 ids; $3 keys to drop from references; $4.. the new values. Each chunk
    is deleted and inserted again with the same id in one statement: the keyword index's
    triggers then remove and add postings directly, where an UPDATE of 1,000 contents had
    them match old to new rows first (measured 23 s against 1 s)."""
    values = ", ".join(_REWRITTEN.get(c, f"d.{c}") for c in columns)
    return f"""
        WITH u AS (
            SELECT * FROM unnest($2::text[], $4::text[], $5::text[], $6::text[], $7::text[],
                                 $8::text[])
                     AS u(id, content, embedding, metadata, tags, external_id)
        ), d AS (
            DELETE FROM chunks c USING u WHERE c.client_id = $1 AND c.id = u.id RETURNING c.*
        )
        INSERT INTO chunks ({", ".join(columns)}) SELECT {values} FROM d JOIN u ON u.id = d.id"""


def vector_text(values: Sequence[float]) -> str:
    """A vector as pgvector reads it from text."""
    return "[" + ",".join(repr(float(v)) for v in values) + "]"

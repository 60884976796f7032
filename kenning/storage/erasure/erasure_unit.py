"""One erasure's transaction over one client's rows (the domain's ``ErasureUnit``).

Built on the ingestion's write unit, so removing a source, stripping evidence and settling
the timelines of the edge groups an erasure touched work as a purge's do.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TypeVar

import asyncpg

from kenning.domain.erasure.model import NAME_PROPERTIES, Counts, ErasureMode, Subject
from kenning.domain.erasure.names import NameMatch
from kenning.domain.erasure.ports import NamedChunk, RewrittenChunk
from kenning.storage.db.agtype import GRAPH_NAME
from kenning.storage.db.pool import Connection
from kenning.storage.erasure import graph_erasure_sql as gsql
from kenning.storage.erasure.chunk_rewrite import CHUNK_COLUMNS, CHUNKS_NAMING, rewrite, vector_text
from kenning.storage.erasure.memory_removal import remove_memory
from kenning.storage.erasure.redacted_columns import redact_columns
from kenning.storage.ingestion.graph_write_sql import GraphSql
from kenning.storage.ingestion.knowledge_store import PgWriteUnit

T = TypeVar("T")


class PgErasureUnit:
    """The domain's ``ErasureUnit`` over one open transaction."""

    def __init__(self, unit: PgWriteUnit, sql: GraphSql) -> None:
        self._unit, self._sql = unit, sql
        self._conn: Connection = unit.connection
        # The chunks found naming the subject, by id: their other columns, for the rewrite,
        # and their sources, whose stored originals then are not kept.
        self._found: dict[str, asyncpg.Record] = {}
        self.client_id = ""
        self._forms: list[str] = []
        self._keys: list[str] = []

    async def subject(self, client_id: str, key: str) -> Subject:
        canonical = (
            await self._conn.fetchval(
                "SELECT canonical_key FROM aliases WHERE client_id = $1 AND alias_key = $2",
                client_id,
                key,
            )
            or key
        )
        aliases = await self._conn.fetch(
            "SELECT alias_key FROM aliases WHERE client_id = $1 AND canonical_key = $2",
            client_id,
            canonical,
        )
        keys = {key, canonical, *(r["alias_key"] for r in aliases)}
        rows = await self._conn.fetch(gsql.subject_vertices(self._sql), client_id, sorted(keys), [])
        names = {
            value.strip()
            for r in rows
            for name, value in json.loads(r["properties"]).items()
            if name in NAME_PROPERTIES and isinstance(value, str) and value.strip()
        }
        subject = Subject(canonical, frozenset(keys), frozenset(names))
        self.client_id, self._forms = client_id, subject.forms()
        return subject

    async def remove_memory(self, client_id: str, subject: Subject, names: NameMatch) -> Counts:
        return await remove_memory(self._unit, client_id, subject, names)

    async def chunks_naming(
        self, client_id: str, subject: Subject, names: NameMatch
    ) -> list[NamedChunk]:
        rows = await self._conn.fetch(
            CHUNKS_NAMING, client_id, list(names.patterns), sorted(subject.keys)
        )
        found = []
        for r in rows:
            texts = (r["content"], r["metadata"], " ".join(r["tags"]), r["external_id"] or "")
            if r["refers"] or any(names.mentions(t) for t in texts):
                self._found[r["id"]] = r
                found.append(NamedChunk(r["id"], r["content"]))
        return found

    async def delete_chunks(self, client_id: str, ids: Sequence[str]) -> Counts:
        counts = Counts()
        if not ids:
            return counts
        deleted = await self._conn.execute(
            "DELETE FROM chunks WHERE client_id = $1 AND id = ANY($2::text[])", client_id, list(ids)
        )
        counts["chunksDeleted"] += int(deleted.split()[-1])
        await self._conn.execute(
            "DELETE FROM chunk_marks WHERE client_id = $1 AND chunk_id = ANY($2::text[])",
            client_id,
            list(ids),
        )
        for r in await self._conn.fetch(gsql.strip_evidence(self._sql), client_id, list(ids)):
            self._touch(client_id, r)
        gone = await self._conn.execute(gsql.delete_edges_without_evidence(self._sql), client_id)
        counts["edges"] += int(gone.split()[-1])
        return counts

    async def rewrite_chunks(
        self, client_id: str, chunks: Sequence[RewrittenChunk], subject: Subject
    ) -> Counts:
        if not chunks:
            return Counts()
        names = NameMatch.of(client_id, subject.forms())
        rows = [self._found[c.id] for c in chunks]
        columns = [r["column_name"] for r in await self._conn.fetch(CHUNK_COLUMNS)]
        await self._conn.execute(
            rewrite(columns),
            client_id,
            [c.id for c in chunks],
            sorted(subject.keys),
            [c.content for c in chunks],
            [vector_text(c.embedding) for c in chunks],
            [json.dumps(names.redact_value(json.loads(r["metadata"]))) for r in rows],
            [json.dumps([names.redact(t) for t in r["tags"]]) for r in rows],
            [names.redact(r["external_id"]) if r["external_id"] else None for r in rows],
        )
        return Counts(chunksRedacted=len(chunks))

    async def remove_graph(self, client_id: str, subject: Subject) -> Counts:
        names = NameMatch.of(client_id, subject.forms())
        rows = await self._conn.fetch(
            gsql.subject_vertices(self._sql), client_id, sorted(subject.keys), list(names.patterns)
        )
        keys = sorted({*subject.keys, *(r["key"] for r in rows if names.mentions(r["key"]))})
        for r in await self._conn.fetch(gsql.touching_edges(self._sql), client_id, keys):
            if r["from_key"] not in keys:
                self._touch(client_id, r)
        counts = Counts()
        edges = await self._conn.execute(gsql.delete_touching_edges(self._sql), client_id, keys)
        counts["edges"] += int(edges.split()[-1])
        nodes = await self._conn.execute(gsql.delete_vertices(self._sql), client_id, keys)
        counts["nodes"] += int(nodes.split()[-1])
        counts["aliases"] += await self._count(
            """DELETE FROM aliases WHERE client_id = $1
               AND (alias_key = ANY($2::text[]) OR canonical_key = ANY($2::text[]))""",
            client_id,
            keys,
        )
        counts["otherRows"] += await self._count(
            "DELETE FROM source_mentions WHERE client_id = $1 AND node_key = ANY($2::text[])",
            client_id,
            keys,
        )
        counts["historyRows"] += await self._forget_intervals(client_id, keys)
        await self._conn.execute(
            """UPDATE sources SET main_node_key = NULL
               WHERE client_id = $1 AND main_node_key = ANY($2::text[])""",
            client_id,
            keys,
        )
        self._keys = keys
        return counts

    async def _forget_intervals(self, client_id: str, keys: Sequence[str]) -> int:
        """The erased nodes' edge timelines and property histories."""
        n = await self._count(
            """DELETE FROM node_property_versions
               WHERE client_id = $1 AND node_key = ANY($2::text[])""",
            client_id,
            list(keys),
        )
        for table in ("edge_intervals", "edge_endings"):
            n += await self._count(
                f"""DELETE FROM {table} WHERE client_id = $1
                    AND (from_key = ANY($2::text[]) OR to_key = ANY($2::text[]))""",
                client_id,
                list(keys),
            )
        return n

    async def redact_rows(self, client_id: str, names: NameMatch, mode: ErasureMode) -> Counts:
        dropped = await self._drop_originals(client_id, names)
        counts = await redact_columns(self._conn, client_id, names)
        counts["storedFiles"] += dropped
        for table in (self._sql.vertices, self._sql.edges):
            counts["otherRows"] += await self._redact_properties(table, client_id, names)
        await self._forget_lexemes(client_id, names)
        return counts

    async def _drop_originals(self, client_id: str, names: NameMatch) -> int:
        """Originals that name the subject are not kept: those of sources whose chunks
        named it, and those whose file name or source URN does."""
        sources = {(r["project_id"], r["group_id"], r["source_urn"]) for r in self._found.values()}
        rows = await self._conn.fetch(
            """SELECT id, project_id, group_id, source_urn, filename FROM source_files
               WHERE client_id = $1 AND not_kept IS DISTINCT FROM 'ERASED' FOR UPDATE""",
            client_id,
        )
        ids = [
            r["id"]
            for r in rows
            if (r["project_id"], r["group_id"], r["source_urn"]) in sources
            or names.mentions(r["filename"])
            or names.mentions(r["source_urn"])
        ]
        if not ids:
            return 0
        await self._conn.execute(
            """SELECT lo_unlink(f.content_oid) FROM source_files f
               WHERE f.id = ANY($1::text[]) AND f.content_oid IS NOT NULL
                 AND EXISTS (SELECT 1 FROM pg_largeobject_metadata m
                             WHERE m.oid = f.content_oid)""",
            ids,
        )
        return await self._count(
            """UPDATE source_files SET content_oid = NULL, not_kept = 'ERASED'
               WHERE id = ANY($1::text[])""",
            ids,
        )

    async def _redact_properties(self, table: str, client_id: str, names: NameMatch) -> int:
        rows = await self._conn.fetch(
            gsql.properties_naming(table), client_id, list(names.patterns)
        )
        changed = []
        for r in rows:
            old = json.loads(r["properties"])
            new = names.redact_value(old)
            if new != old:
                changed.append((r["at"], json.dumps(new)))
        if changed:
            await self._conn.executemany(gsql.set_properties(table), changed)
        return len(changed)

    async def _forget_lexemes(self, client_id: str, names: NameMatch) -> None:
        """The keyword index's terms of the names, once no chunk of the client holds them
        (their document counts are kept per term, so the term itself would stay)."""
        await self._conn.execute(
            """DELETE FROM bm25_terms t WHERE t.client_id = $1
               AND t.lexeme IN (SELECT l FROM unnest($2::text[]) AS n(name),
                                LATERAL unnest(tsvector_to_array(to_tsvector('english', n.name))) l)
               AND NOT EXISTS (SELECT 1 FROM bm25_postings p
                               WHERE p.client_id = $1 AND p.lexeme = t.lexeme)""",
            client_id,
            self._forms,
        )

    async def add_tombstones(self, client_id: str, hashes: Mapping[str, int]) -> None:
        await self._conn.executemany(
            """INSERT INTO erasure_tombstones (client_id, form_hash, words) VALUES ($1, $2, $3)
               ON CONFLICT DO NOTHING""",
            [(client_id, h, n) for h, n in sorted(hashes.items())],
        )

    async def finish_receipt(self, receipt_id: str, counts: Mapping[str, int]) -> None:
        await self._conn.execute(
            """UPDATE erasure_receipts SET status = 'DONE', finished_at = now(),
               counts = $2::jsonb WHERE id = $1""",
            receipt_id,
            json.dumps(dict(counts)),
        )
        # The job keeps its receipt and mode; the key it was asked with goes.
        await self._conn.execute(
            """UPDATE ingestion_jobs SET payload = payload - 'key'
               WHERE id = (SELECT job_id FROM erasure_receipts WHERE id = $1)""",
            receipt_id,
        )

    async def settle(self, client_id: str) -> None:
        """Recompute the touched timelines, then forget what that wrote of the subject."""
        await self._unit.settle()
        if self._keys:
            await self._forget_intervals(client_id, self._keys)

    def _touch(self, client_id: str, row: asyncpg.Record) -> None:
        if row["from_key"] is None:
            return
        parts = (client_id, row["project"], row["group"])
        self._unit.touched.setdefault(parts, set()).add((row["from_key"], row["edge_type"]))

    async def _count(self, statement: str, *args: object) -> int:
        return int((await self._conn.execute(statement, *args)).split()[-1])


class PgErasureStore:
    """The domain's ``ErasureStore``: each erasure in one transaction of the pool."""

    def __init__(self, pool: asyncpg.Pool, graph: str) -> None:
        if not GRAPH_NAME.match(graph):
            raise ValueError(f"graph name {graph!r} is not a plain identifier")
        self._pool, self._sql = pool, GraphSql(graph)

    async def erase(self, work: Callable[[PgErasureUnit], Awaitable[T]]) -> T:
        async with self._pool.acquire() as conn, conn.transaction():
            unit = PgErasureUnit(PgWriteUnit(conn, self._sql), self._sql)
            done = await work(unit)
            await unit.settle(unit.client_id)
            return done

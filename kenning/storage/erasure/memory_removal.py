"""The memory an erasure removes whole: sources whose URN names the subject, user-knowledge
items, session entries and procedures that name it or belong to it (``user_key``), with
their versions and their change history."""

from __future__ import annotations

from collections.abc import Collection

from kenning.domain.access.scope import Scope
from kenning.domain.erasure.model import Counts, Subject
from kenning.domain.erasure.names import NameMatch
from kenning.storage.db.pool import Connection
from kenning.storage.ingestion.knowledge_store import PgWriteUnit

_LIKE = "ILIKE ANY($2::text[])"


async def remove_memory(
    unit: PgWriteUnit, client_id: str, subject: Subject, names: NameMatch
) -> Counts:
    """Remove what names the subject or is its own; the counts per receipt kind."""
    conn, keys, patterns = unit.connection, sorted(subject.keys), list(names.patterns)
    counts = Counts()
    items: set[str] = set()
    sources = await _sources(conn, client_id, patterns, names)
    knowledge = await conn.fetch(
        f"""SELECT DISTINCT project_id, group_id, source_urn, user_key, subject, content
            FROM knowledge_versions WHERE client_id = $1
            AND (user_key = ANY($3::text[]) OR subject {_LIKE} OR content {_LIKE})""",
        client_id,
        patterns,
        keys,
    )
    known = {
        (r["project_id"], r["group_id"], r["source_urn"])
        for r in knowledge
        if r["user_key"] in subject.keys or names.mentions(f"{r['subject']}\n{r['content']}")
    }
    for project, group, urn in sorted(known):
        result = await conn.execute(
            """DELETE FROM knowledge_versions WHERE client_id = $1 AND project_id = $2
               AND group_id = $3 AND source_urn = $4""",
            client_id,
            project,
            group,
            urn,
        )
        counts["historyRows"] += int(result.split()[-1])
        counts["userKnowledge"] += 1
        sources.add((project, group, urn))
        items.add(urn)
    for project, group, urn in sorted(sources):
        scope = Scope(client_id, project, group)
        counts["storedFiles"] += await unit.remove_files(scope, urn)
        removed, _ = await unit.remove_source(scope, urn)
        counts["sources"] += removed.sources
        counts["chunksDeleted"] += removed.chunks
        counts["edges"] += removed.edges_deleted
        items.add(urn)
    entries = await _ids(
        conn, "session_entries", "summary", "details", client_id, patterns, keys, subject, names
    )
    if entries:
        await conn.execute("DELETE FROM session_entries WHERE id = ANY($1::text[])", entries)
        counts["sessionEntries"] += len(entries)
    procedures = await _procedures(conn, client_id, patterns, keys, subject, names)
    if procedures:
        await conn.execute("DELETE FROM procedures WHERE id = ANY($1::text[])", procedures)
        result = await conn.execute(
            "DELETE FROM procedure_versions WHERE procedure_id = ANY($1::text[])", procedures
        )
        counts["historyRows"] += int(result.split()[-1])
        counts["procedures"] += len(procedures)
    counts["historyRows"] += await _changes(conn, client_id, {*items, *entries, *procedures}, keys)
    return counts


async def _sources(
    conn: Connection, client_id: str, patterns: list[str], names: NameMatch
) -> set[tuple[str, str, str]]:
    rows = await conn.fetch(
        f"SELECT project_id, group_id, source_urn FROM sources WHERE client_id = $1 "
        f"AND source_urn {_LIKE}",
        client_id,
        patterns,
    )
    return {
        (r["project_id"], r["group_id"], r["source_urn"])
        for r in rows
        if names.mentions(r["source_urn"])
    }


async def _ids(
    conn: Connection,
    table: str,
    text: str,
    data: str,
    client_id: str,
    patterns: list[str],
    keys: list[str],
    subject: Subject,
    names: NameMatch,
    more: str = "",
) -> list[str]:
    """Ids of the rows of ``table`` whose ``text`` or ``data`` (jsonb) column (or ``more``
    columns, comma-separated) names the subject, or whose ``user_key`` is one of its keys."""
    extra = [c.strip() for c in more.split(",") if c.strip()]
    cols = [text, f"{data}::text AS {data}", *extra]
    tests = " OR ".join(f"{c}::text {_LIKE}" for c in (text, data, *extra))
    rows = await conn.fetch(
        f"SELECT id, user_key, {', '.join(cols)} FROM {table} WHERE client_id = $1 "
        f"AND (user_key = ANY($3::text[]) OR {tests})",
        client_id,
        patterns,
        keys,
    )
    return sorted(
        r["id"]
        for r in rows
        if r["user_key"] in subject.keys
        or names.mentions("\n".join(str(r[c]) for c in (text, data, *extra)))
    )


async def _procedures(
    conn: Connection,
    client_id: str,
    patterns: list[str],
    keys: list[str],
    subject: Subject,
    names: NameMatch,
) -> list[str]:
    current = await _ids(
        conn,
        "procedures",
        "description",
        "steps",
        client_id,
        patterns,
        keys,
        subject,
        names,
        more="trigger_pattern",
    )
    rows = await conn.fetch(
        f"""SELECT procedure_id, user_key, trigger_pattern, description, steps::text AS steps
            FROM procedure_versions WHERE client_id = $1 AND (user_key = ANY($3::text[])
            OR trigger_pattern {_LIKE} OR description {_LIKE} OR steps::text {_LIKE})""",
        client_id,
        patterns,
        keys,
    )
    past = {
        r["procedure_id"]
        for r in rows
        if r["user_key"] in subject.keys
        or names.mentions(f"{r['trigger_pattern']}\n{r['description']}\n{r['steps']}")
    }
    return sorted({*current, *past})


async def _changes(
    conn: Connection, client_id: str, items: Collection[str], keys: list[str]
) -> int:
    result = await conn.execute(
        """DELETE FROM changes WHERE client_id = $1
           AND (item_id = ANY($2::text[]) OR user_key = ANY($3::text[]))""",
        client_id,
        sorted(items),
        keys,
    )
    return int(result.split()[-1])

"""The 2-hop ``neighbors`` traversal written as AGE Cypher with a variable-length pattern,
measured beside the recursive SQL the server runs (issue 15 goal 5's comparison).

One statement per read::

    MATCH p = (a:Entity {key: $key})-[:REL*1..2]-(b:Entity)
    WHERE <a visible> AND <b visible> AND b.key <> $key
    UNWIND relationships(p) AS r
    WITH p, b, r WHERE <r visible>
    WITH p, b, count(r) AS seen WHERE seen = length(p)
    RETURN DISTINCT b.key

Scoping, as far as Cypher allows: the start vertex, every edge of the path and the far vertex
pass the same rule as ``kenning.storage.db.visibility`` (global, client-wide, the reader's
group and its projects), with the reader's group and the projects in it read first by one
SQL statement (the SQL path computes them as uncorrelated subqueries). What differs: the
middle vertex of a 2-hop path is not checked (AGE's Cypher has no ``all(x IN list WHERE
...)``), and there is no ``limit``/``truncated`` bookkeeping: every visible node within two
hops is returned. Answers are compared with the SQL path's node set for information only.
The start key goes through the same alias lookup as the other paths; values are passed as
the ``cypher()`` parameter map, never spliced into the text.
"""

from __future__ import annotations

import json

import asyncpg

from kenning.domain.access.scope import Scope
from kenning.storage.db.visibility import reader_group

_ALIASES = """SELECT alias_key, canonical_key FROM aliases
                   WHERE client_id = $1 AND alias_key = ANY($2::text[])"""


def _visible(alias: str) -> str:
    x = alias
    return (
        f"({x}.client = '' OR ({x}.client = $c AND (($p = '' AND $g = '') "
        f"OR ({x}.project = '' AND {x}.group = '') "
        f"OR ({x}.project = '' AND {x}.group <> '' AND {x}.group = $rg) "
        f"OR ({x}.project <> '' AND ({x}.project = $p OR {x}.project IN $projects)))))"
    )


def neighbors_cypher(graph: str) -> str:
    """The statement; ``graph`` is the validated setting (an identifier)."""
    if not graph.isidentifier():
        raise ValueError(f"not a graph name: {graph!r}")
    return f"""SELECT * FROM ag_catalog.cypher('{graph}', $$
        MATCH p = (a:Entity {{key: $key}})-[:REL*1..2]-(b:Entity)
        WHERE {_visible("a")} AND {_visible("b")} AND b.key <> $key
        UNWIND relationships(p) AS r
        WITH p, b, r WHERE {_visible("r")}
        WITH p, b, count(r) AS seen WHERE seen = length(p)
        RETURN DISTINCT b.key
    $$, $1) AS (key ag_catalog.agtype)"""


_GROUP = f"""SELECT rg, coalesce((
                SELECT array_agg(pg.project_id) FROM project_groups pg
                WHERE pg.client_id = $1 AND pg.group_id <> '' AND pg.group_id = rg
             ), '{{}}') AS projects
             FROM {reader_group(1)} AS x(rg)"""


async def _age_session(conn: asyncpg.Connection) -> None:
    # AGE resolves the operators of a property map (``{key: $key}``) by search path.
    await conn.execute("LOAD 'age'; SET search_path = ag_catalog, \"$user\", public")
    await conn.set_type_codec(
        "agtype", schema="ag_catalog", encoder=str, decoder=json.loads, format="text"
    )


class CypherReads:
    """``neighbors`` through one AGE Cypher statement on a connection of its own."""

    def __init__(self, dsn: str, graph: str, reader: Scope) -> None:
        self._dsn = dsn
        self._reader = reader
        self._statement = neighbors_cypher(graph)
        self._conn: asyncpg.Connection | None = None

    async def open(self) -> CypherReads:
        self._conn = await asyncpg.connect(self._dsn)
        await _age_session(self._conn)
        return self

    async def close(self) -> None:
        if self._conn is not None:
            await self._conn.close()

    async def neighbors(self, key: str) -> frozenset[str]:
        """Alias lookup, the reader's group, then the Cypher traversal: the visible node set
        (the start included when visible, as the other paths answer)."""
        assert self._conn is not None, "open() first"
        reader = self._reader
        aliases = await self._conn.fetch(_ALIASES, reader.client_id, [key])
        start = aliases[0]["canonical_key"] if aliases else key
        group = await self._conn.fetchrow(
            _GROUP, reader.client_id, reader.project_id, reader.group_id
        )
        assert group is not None
        params = {
            "key": start,
            "c": reader.client_id,
            "p": reader.project_id,
            "g": reader.group_id,
            "rg": group["rg"],
            "projects": list(group["projects"]),
        }
        rows = await self._conn.fetch(self._statement, json.dumps(params))
        found = frozenset(row["key"] for row in rows)
        return found | {start} if found else found

"""A scan of every text and JSON column of the database for the erasure tests' person
(``erasure_world``): a table added later is scanned too."""

from __future__ import annotations

import asyncpg

# What the scan looks for, as a PostgreSQL regular expression over lower-cased text: the
# stems of her name's words (so the keyword index's lexemes count too) and the alias's id.
SCANNED = "zephyrin|quillfeath|(^|[^a-z0-9])zq($|[^a-z0-9])"

_COLUMNS = """
    SELECT c.table_schema, c.table_name, c.column_name, c.udt_name,
           EXISTS (SELECT 1 FROM information_schema.columns k
                   WHERE k.table_schema = c.table_schema AND k.table_name = c.table_name
                     AND k.column_name = 'client_id') AS has_client
    FROM information_schema.columns c
    JOIN information_schema.tables t
      ON t.table_schema = c.table_schema AND t.table_name = c.table_name
    WHERE t.table_type = 'BASE TABLE'
      AND c.table_schema NOT IN ('pg_catalog', 'information_schema', 'ag_catalog')
      AND (c.data_type IN ('text', 'character varying', 'character', 'json', 'jsonb', 'ARRAY')
           OR c.udt_name = 'agtype')
      -- A partition or an AGE label table is read through its parent.
      AND NOT EXISTS (SELECT 1 FROM pg_inherits i
                      WHERE i.inhrelid = format('%I.%I', c.table_schema, c.table_name)::regclass)
    ORDER BY 1, 2, 3"""


async def scan_database(pool: asyncpg.Pool, client: str | None = None) -> list[str]:
    """Every ``schema.table.column`` of the database whose text holds the person: every
    text, varchar, array, json and jsonb column ``information_schema`` lists, and AGE's
    agtype ``properties`` as text, so a table added later is scanned too. With ``client``,
    only that client's rows (``client_id``, or the ``client`` property of graph rows)."""
    hits = []
    async with pool.acquire() as conn:
        for col in await conn.fetch(_COLUMNS):
            agtype = col["udt_name"] == "agtype"
            name = f'"{col["column_name"]}"'
            value = f"ag_catalog.agtype_out({name})::text" if agtype else f"{name}::text"
            where = [f"lower({value}) ~ $1"]
            if client is not None:
                if agtype:
                    where.append(f"{value}::jsonb ->> 'client' = $2")
                elif col["has_client"]:
                    where.append("client_id = $2")
                else:
                    continue
            table = f'"{col["table_schema"]}"."{col["table_name"]}"'
            args = [SCANNED] if client is None else [SCANNED, client]
            sql = f"SELECT count(*) FROM {table} WHERE {' AND '.join(where)}"
            if await conn.fetchval(sql, *args):
                hits.append(f"{col['table_schema']}.{col['table_name']}.{col['column_name']}")
    return hits

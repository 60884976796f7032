"""SQL of ``findNodes``: trigram candidates from the GIN indexes of migration 0012, scoped and
ranked in one statement (the ranking is documented in ``kenning.domain.graph.find``).

Parameters: ``$1..$3`` the reader's scope, ``$4`` the query text, ``$5`` the exact key (or
null), ``$6`` the exact id part, ``$7`` the limit, ``$8`` node types (or null: any type) and,
for a reader bound to a client, ``$9`` the clients whose vertices it may see (its own, and
``""`` for global ones).

The candidate step is a fenced lookup holding only what the indexes answer: the query's word
similarity to a vertex's names (``ix_entity_find_names``) or its description
(``ix_entity_find_text``), both led by the vertex's client, or its exact key
(``ix_entity_key``), read as one bitmap OR. Without the client, a client's reader would
recheck the matching vertices of every tenant (ten times the work on the benchmark). The
expressions are spelled exactly as the indexes are, or PostgreSQL would scan every vertex.
The word similarity threshold is a setting (``pg_trgm.word_similarity_threshold``) the reader
sets for its transaction.
"""

from __future__ import annotations

from functools import cache

from kenning.domain.graph.find import EXACT_SCORE, NAMES_WEIGHT, TEXT_WEIGHT
from kenning.storage.db.agtype import prop
from kenning.storage.db.visibility import visible_graph
from kenning.storage.ingestion.graph_write_sql import GraphSql

THRESHOLD_SETTING = "pg_trgm.word_similarity_threshold"


def id_part(alias: str) -> str:
    """The key's id part (ids never hold ``:``, see ``normalize_key``)."""
    return f"split_part({prop(alias, 'key')}, ':'::text, 2)"


def names(alias: str) -> str:
    """The id part, ``name`` and ``label`` as one text, as ``ix_entity_find_names`` holds it."""
    return (
        f"(({id_part(alias)} || ' '::text) || COALESCE({prop(alias, 'name')}, ''::text) "
        f"|| ' '::text || COALESCE({prop(alias, 'label')}, ''::text))"
    )


def text(alias: str) -> str:
    """The node's description, as ``ix_entity_find_text`` holds it."""
    return prop(alias, "description")


def _like(field: str) -> str:
    # Mean of "the query is inside the field" and "the field is about as long as the query".
    return f"((word_similarity($4::text, {field}) + similarity($4::text, {field})) / 2)"


def _candidates(every_client: bool) -> str:
    # Spelled as the indexes' first column (COALESCE keeps ix_entity_scope_key out of it).
    client = f"COALESCE({prop('v', 'client')}, ''::text)"
    clients = "" if every_client else f"{client} = ANY($9::text[]) AND "
    return (
        f"({clients}$4::text <% {names('v')}) OR ({clients}$4::text <% {text('v')}) "
        f"OR {prop('v', 'key')} = $5::text"
    )


@cache
def find_nodes_sql(graph: str, every_client: bool) -> str:
    """The ``findNodes`` statement of ``graph`` (see the module docstring for parameters);
    ``every_client`` for a global reader, which sees every client's vertices."""
    vertices = GraphSql(graph).vertices
    # Each step is MATERIALIZED: inlined, every use of a column would recompute its
    # expression (agtype reads, trigram similarities), which tripled the ranking's cost.
    return f"""
        WITH m AS MATERIALIZED (
            SELECT v.id, v.properties FROM {vertices} v WHERE {_candidates(every_client)}
        ),
        f AS MATERIALIZED (
            SELECT {prop("m", "key")} AS key, {id_part("m")} AS id_part,
                   {prop("m", "name")} AS name, {prop("m", "label")} AS label,
                   {text("m")} AS description
            FROM m
            WHERE ({visible_graph("m", 1)})
              AND ($8::text[] IS NULL OR {prop("m", "type")} = ANY($8::text[]))
        ),
        s AS MATERIALIZED (
            SELECT f.key,
                   coalesce(f.key = $5::text, false) AS exact_key,
                   coalesce(f.id_part = $6::text OR lower(f.name) = lower($4::text)
                            OR lower(f.label) = lower($4::text), false) AS exact_name,
                   coalesce({_like("f.id_part")}, 0) AS id_s,
                   coalesce(greatest({_like("f.name")}, {_like("f.label")}), 0) AS name_s,
                   coalesce(word_similarity($4::text, f.description), 0) AS text_s
            FROM f
        ),
        r AS (
            SELECT s.key, s.exact_key OR s.exact_name AS exact,
                   CASE WHEN s.exact_key THEN 0 WHEN s.exact_name THEN 1 ELSE 2 END AS tier,
                   CASE WHEN s.exact_key OR s.exact_name THEN {EXACT_SCORE}::float8
                        ELSE least({NAMES_WEIGHT} * greatest(s.id_s, s.name_s)
                                   + {TEXT_WEIGHT} * s.text_s, 0.9999)::float8 END AS score,
                   CASE WHEN s.exact_key THEN 'KEY'
                        WHEN {TEXT_WEIGHT} * s.text_s > {NAMES_WEIGHT} * greatest(s.id_s, s.name_s)
                             THEN 'TEXT'
                        WHEN s.name_s > s.id_s THEN 'NAME'
                        ELSE 'KEY' END AS matched_on
            FROM s
        )
        SELECT * FROM (
            SELECT DISTINCT ON (r.key) r.* FROM r ORDER BY r.key, r.tier, r.score DESC
        ) best
        ORDER BY best.tier, best.score DESC, best.key
        LIMIT $7
    """

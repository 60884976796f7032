"""SQL text of chunk search: built from fixed fragments, every value a parameter.

Parameters of both statements: ``$1..$3`` the reader's scope, ``$4`` the query (a vector
or the query text), ``$5`` the limit, then one array per filter that is set.
"""

from __future__ import annotations

from dataclasses import dataclass

from kenning.domain.retrieval.search import SearchFilters
from kenning.storage.db.visibility import visible_rows
from kenning.storage.graph.chunk_reads import CHUNK_COLUMNS

_FIRST_FILTER = 6

# Column and operator per filter, in the order their parameters follow ``$5``.
_FILTERS = (
    ("kinds", "c.kind = ANY(${n}::text[])"),
    ("knowledge_types", "c.knowledge_type = ANY(${n}::text[])"),
    ("tags", "c.tags && ${n}::text[]"),
    ("source_urns", "c.source_urn = ANY(${n}::text[])"),
)

SCAN_SETTINGS = (
    "SELECT set_config('hnsw.ef_search', $1, true), "
    "set_config('hnsw.iterative_scan', $2, true), "
    "set_config('hnsw.max_scan_tuples', $3, true)"
)
"""Transaction-local pgvector settings for the next nearest-neighbour statement."""


@dataclass(frozen=True, slots=True)
class Statement:
    """SQL text and the filter values that follow the five fixed parameters."""

    text: str
    filter_args: tuple[list[str], ...]


def _where(filters: SearchFilters) -> tuple[str, tuple[list[str], ...]]:
    clauses = [visible_rows(1, "c")]
    args: list[list[str]] = []
    for name, template in _FILTERS:
        values: tuple[str, ...] = getattr(filters, name)
        if values:
            clauses.append(template.format(n=_FIRST_FILTER + len(args)))
            args.append(list(values))
    return " AND ".join(clauses), tuple(args)


def nearest(filters: SearchFilters) -> Statement:
    """Visible chunks nearest to ``$4`` by cosine distance, score = cosine similarity.

    The inner query is what the HNSW index answers; with ``iterative_scan = relaxed_order``
    it may return rows slightly out of distance order, so the outer query sorts them again
    (``+ 0`` keeps PostgreSQL 17 from trusting the inner order and skipping the sort).
    """
    where, args = _where(filters)
    text = (
        "WITH nearest AS MATERIALIZED ("
        f"SELECT {CHUNK_COLUMNS}, c.embedding <=> $4 AS distance FROM chunks c "
        f"WHERE {where} ORDER BY c.embedding <=> $4 LIMIT $5) "
        "SELECT *, 1 - distance AS score FROM nearest ORDER BY distance + 0, id"
    )
    return Statement(text, args)


# The query text parsed as a web search (quoted phrases, -exclusions, "or"), then relaxed so
# that a chunk matches when it holds ANY of the wanted terms or phrases, while excluded ones
# stay excluded. websearch_to_tsquery alone requires every term, which turns a sentence into a
# query almost nothing matches (nDCG@10 0.05 on SciFact against 0.59 relaxed). The parsed
# tsquery's text joins its top-level parts with " & " and quotes every lexeme, so splitting
# on that separator is exact; a query with no wanted term (only stop words or exclusions)
# becomes NULL and matches nothing.
_ANY_TERM_QUERY = (
    "(SELECT CASE WHEN wanted IS NULL THEN NULL "
    "WHEN excluded IS NULL THEN wanted::tsquery "
    "ELSE ('(' || wanted || ') & ' || excluded)::tsquery END "
    "FROM (SELECT string_agg(part, ' | ') FILTER (WHERE part NOT LIKE '!%') AS wanted, "
    "string_agg(part, ' & ') FILTER (WHERE part LIKE '!%') AS excluded "
    "FROM unnest(string_to_array(websearch_to_tsquery('english', $4)::text, ' & ')) AS part"
    ") AS parts)"
)


def matching(filters: SearchFilters) -> Statement:
    """Visible chunks holding any wanted term of ``$4`` (web-search syntax), best first.

    Ranked by ``ts_rank`` with normalization 1 (divide by 1 + log of the chunk's length) and
    32 (``rank / (rank + 1)``, into [0, 1) without changing the order). Measured on SciFact,
    ``ts_rank_cd`` (cover density) ranks such any-term queries far worse (nDCG@10 0.39-0.43
    against 0.59), because its covers reward proximity that a list of alternatives lacks.
    """
    where, args = _where(filters)
    text = (
        f"SELECT {CHUNK_COLUMNS}, ts_rank(c.content_tsv, q.query, 33) AS score "
        f"FROM chunks c, {_ANY_TERM_QUERY} AS q(query) "
        f"WHERE c.content_tsv @@ q.query AND {where} "
        "ORDER BY score DESC, c.id LIMIT $5"
    )
    return Statement(text, args)

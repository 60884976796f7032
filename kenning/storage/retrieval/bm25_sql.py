"""SQL text of KEYWORD search (BM25 over ``bm25_postings`` and the chunks' ``content_tsv``):
built from fixed fragments, every value a parameter, numbered as ``StatementArgs`` says
(``$4`` the query text). Three statements answer it (``PgChunkIndex.matching`` says when
each runs): the top-k one over the head of each lexeme's postings (``matching``), the one
that scores every posting (``matching_exhaustive``), and the one that scores the chunks a
narrow filter passes (``matching_narrow``). The nearest-neighbour statements are in
``vector_sql`` and ``exact_sql``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import asyncpg

from kenning.domain.retrieval.search import SearchFilters
from kenning.storage.graph.chunk_reads import CHUNK_COLUMNS
from kenning.storage.retrieval.filter_sql import Statement, where_visible

# The query text parsed as a web search (quoted phrases, -exclusions, "or"), then relaxed so
# that a chunk matches when it holds ANY of the wanted terms or phrases, while excluded ones
# stay excluded. websearch_to_tsquery alone requires every term, which turns a sentence into a
# query almost nothing matches (nDCG@10 0.05 on SciFact against 0.59 relaxed). The parsed
# tsquery's text joins its top-level parts with " & " and quotes every lexeme, so splitting
# on that separator is exact; a query with no wanted term (only stop words or exclusions)
# becomes NULL and matches nothing. ``wanted`` keeps the wanted parts' text: BM25 scores
# their lexemes, quoted in it as 'lexeme' with ' doubled and \\ escaped.
_PARSED = (
    "parts AS (SELECT string_agg(part, ' | ') FILTER (WHERE part NOT LIKE '!%') AS wanted, "
    "string_agg(part, ' & ') FILTER (WHERE part LIKE '!%') AS excluded "
    "FROM unnest(string_to_array(websearch_to_tsquery('english', $4)::text, ' & ')) AS part), "
    "q AS (SELECT CASE WHEN wanted IS NULL THEN NULL "
    "WHEN excluded IS NULL THEN wanted::tsquery "
    "ELSE ('(' || wanted || ') & ' || excluded)::tsquery END AS query FROM parts), "
    r"terms AS (SELECT DISTINCT regexp_replace(m[1], '\\(.)|''('')', '\1\2', 'g') AS lexeme "
    r"FROM parts, regexp_matches(parts.wanted, '''((?:[^''\\]|''''|\\.)*)''', 'g') AS m)"
)


# The reader's statistics: the clients it counts (its own and the global one; a global
# reader every client), their chunk count and average length, and each wanted lexeme's IDF
# as Lucene's (never negative): ln(1 + (N - df + 0.5) / (df + 0.5)), its document
# frequency summed from the slots of ``bm25_terms`` (migration 0016). ``term`` numbers the
# lexemes in order, a cheaper sort key than the text when a chunk's terms are added up.
_STATISTICS = (
    "clients AS (SELECT CASE WHEN $1 = '' THEN "
    "(SELECT coalesce(array_agg(DISTINCT client_id::text), '{}') FROM bm25_lengths) "
    "ELSE ARRAY['', $1::text] END AS ids), "
    "s AS (SELECT greatest(coalesce(sum(chunks), 0), 1)::float8 AS n, "
    "greatest(coalesce(sum(total_length)::float8 / nullif(sum(chunks), 0), 1), 1) AS avgdl "
    "FROM bm25_lengths, clients WHERE client_id = ANY(clients.ids)), "
    "idf AS MATERIALIZED (SELECT t.lexeme, row_number() OVER (ORDER BY t.lexeme) AS term, "
    "ln(1 + (s.n - d.df + 0.5) / (d.df + 0.5)) AS idf, d.df "
    "FROM terms t, s, clients, LATERAL (SELECT coalesce(sum(b.df), 0)::float8 AS df "
    "FROM bm25_terms b WHERE b.client_id = ANY(clients.ids) AND b.lexeme = t.lexeme) d)"
)
# Every posting of every wanted lexeme the reader's clients hold, beside the lexeme's IDF.
_POSTINGS = (
    "idf w CROSS JOIN clients CROSS JOIN s "
    "JOIN bm25_postings x ON x.client_id = ANY(clients.ids) AND x.lexeme = w.lexeme"
)
# The head of each wanted lexeme's postings in each of the reader's clients: its ``budget``
# best by impact (the key read backwards, migration 0019), the whole list when it is no longer.
_HEADS = (
    "idf w CROSS JOIN s CROSS JOIN clients CROSS JOIN LATERAL unnest(clients.ids) k(id) "
    "CROSS JOIN LATERAL (SELECT h.client_id, h.chunk_id, h.tf, h.dl FROM bm25_postings h "
    "WHERE h.client_id = k.id AND h.lexeme = w.lexeme ORDER BY h.impact DESC LIMIT {budget}) x"
)


_BYTES = '(x.chunk_id COLLATE "C")'
# A lexeme's count in a chunk: its positions; a stripped lexeme has none and counts once.
_COUNT = "coalesce(cardinality(t.positions), 1)"
# A head candidate's bound adds its terms rounded to whole units of 2^-20: numbers below
# 2^53, which float8 adds exactly in any order. So the postings need no sort by chunk (by
# the chunk's text: 20 ms of a 43 ms sentence query at a million chunks) and may be grouped
# by hashing. A chunk appears once per wanted lexeme in the heads (the triggers write one
# posting per chunk and lexeme), so its bound is off by at most half a unit per wanted
# lexeme, and a chunk whose bound exceeds another's by more than their count has the higher
# sum. Every candidate within that many units of the rescoring depth's bound is rescored,
# and the depth's best by the exact score are kept: with every list whole, exactly the best
# as many by BM25. tests/unit/retrieval/test_bm25_bound.py runs this argument on random
# postings.
BOUND_UNITS = 2**20
_BOUND_UNITS = f"{BOUND_UNITS}::float8"


@dataclass(frozen=True, slots=True)
class Bm25:
    """Okapi BM25's parameters: ``k1`` (how fast a term's count saturates) and ``b`` (how
    much a chunk's length, against the average, discounts it); Robertson's and Lucene's
    defaults, which BEIR's BM25 baseline uses too.

    The top-k statement reads at most ``budget`` postings of each lexeme per client, best
    by impact, and rescores its best ``rescore_per_row`` candidates per wanted row exactly
    (and those tied with the last of them within the bound's rounding). A filtered search
    first scores every chunk that passes when at most ``narrow_cap`` do (``matching_narrow``).
    """

    k1: float = 1.2
    b: float = 0.75
    budget: int = 1000
    rescore_per_row: int = 4
    narrow_cap: int = 1000


def _term_score(p: Bm25) -> str:
    return (
        "w.idf * x.tf * "
        f"{p.k1 + 1}::float8 / (x.tf + {p.k1}::float8 * "
        f"({1 - p.b}::float8 + {p.b}::float8 * x.dl / s.avgdl))"
    )


def _rescored(p: Bm25) -> str:
    """Each head candidate ``r`` (with its length ``r.dl``) scored exactly: BM25 over every
    wanted lexeme, each lexeme's count read from the chunk's own ``content_tsv`` (one key
    probe of its partition), the length as the postings hold it, terms added in lexeme
    order, so the score equals the exhaustive statement's bit for bit. All candidates in one
    join (a scalar subquery per candidate cost a tenth of a millisecond each); the best
    ``$5 * rescore_per_row`` by that score are kept, so the rows walked are a prefix of the
    exact order whenever no list was cut."""
    return (
        f"SELECT r.client_id, r.chunk_id, sum({_term_score(p)} ORDER BY w.term) AS bm25 "
        "FROM picked r CROSS JOIN LATERAL (SELECT c.content_tsv FROM chunks c "
        "WHERE c.client_id = r.client_id AND c.id = r.chunk_id) c "
        f"CROSS JOIN LATERAL (SELECT t.lexeme, {_COUNT} AS tf, r.dl FROM unnest(c.content_tsv) t "
        "WHERE t.lexeme = ANY((SELECT array_agg(lexeme) FROM idf)::text[])) x "
        "JOIN idf w ON w.lexeme = x.lexeme CROSS JOIN s "
        "GROUP BY r.client_id, r.chunk_id ORDER BY bm25 DESC, r.chunk_id "
        f"LIMIT $5 * {p.rescore_per_row}"
    )


def _ranked_rows(where: str, p: Bm25, ranked: str) -> str:
    """``ranked`` (client_id, chunk_id, bm25) walked best first: each candidate's chunk is
    looked up (LATERAL: one index probe per candidate, its partition only) and checked
    against the full query (phrases, exclusions), the scope and the filters until ``$5``
    pass. The score is BM25 over the query's ceiling."""
    return (
        f"SELECT {CHUNK_COLUMNS}, r.bm25 / (SELECT sum(idf * {p.k1 + 1}) FROM idf) AS score "
        f"FROM (SELECT client_id, chunk_id, bm25 FROM {ranked} ORDER BY bm25 DESC, chunk_id) r "
        f"CROSS JOIN LATERAL (SELECT {CHUNK_COLUMNS} FROM chunks c "
        "WHERE c.client_id = r.client_id AND c.id = r.chunk_id "
        f"AND c.content_tsv @@ (SELECT query FROM q) AND {where} OFFSET 0) c "
        "ORDER BY r.bm25 DESC, r.chunk_id LIMIT $5"
    )


def matching(
    filters: SearchFilters, params: Bm25 | None = None, *, one_client: bool = False
) -> Statement:
    """Visible chunks holding any wanted term of ``$4`` (web-search syntax), by BM25, from
    the head of each lexeme's postings (see ``matching_exhaustive`` for the scoring).

    Each wanted lexeme contributes its ``budget`` best postings per client by impact (its
    whole list when that is shorter); a candidate's partial sum over the heads it appears
    in (rounded, see ``_BOUND_UNITS``) ranks it, and the ``$5 * rescore_per_row`` best by
    that sum (with any tied with the last of them within its rounding) are scored exactly,
    the best as many by that score walked. When no list was cut this is exactly
    ``matching_exhaustive``'s answer; when one was, a chunk outside every head can be
    missed, and the column ``cut`` says so. Fewer than ``$5`` rows back are the answer when
    every candidate was walked (``complete``: no head cut, fewer candidates than the
    rescoring depth); otherwise the scope or the filters rejected too many and the caller
    runs ``matching_exhaustive`` (see ``answered``).
    """
    p = params or Bm25()
    where, args = where_visible(filters, one_client)
    text = (
        f"WITH {_PARSED}, {_STATISTICS}, "
        "heads AS MATERIALIZED (SELECT x.client_id, x.chunk_id, max(x.dl) AS dl, "
        f"sum(round(({_term_score(p)}) * {_BOUND_UNITS})) AS bound "
        f"FROM {_HEADS.format(budget=p.budget)} GROUP BY x.client_id, x.chunk_id), "
        "edge AS (SELECT bound - (SELECT count(*) FROM idf) AS least FROM heads "
        f"ORDER BY bound DESC OFFSET greatest($5 * {p.rescore_per_row} - 1, 0) LIMIT 1), "
        "picked AS (SELECT * FROM heads "
        "WHERE bound >= coalesce((SELECT least FROM edge), '-Infinity')), "
        f"rescored AS ({_rescored(p)}), "
        f"cut AS (SELECT coalesce(bool_or(df > {p.budget}), false) AS cut FROM idf) "
        "SELECT found.*, cut.cut, NOT cut.cut AND NOT EXISTS (SELECT FROM edge) AS complete "
        f"FROM ({_ranked_rows(where, p, 'rescored')}) found, cut"
    )
    return Statement(text, args)


def answered(rows: Sequence[asyncpg.Record], limit: int) -> bool:
    """Whether the rows of ``matching`` are the answer, or ``matching_exhaustive`` must run:
    ``limit`` rows, or fewer from candidates that were all walked."""
    return len(rows) >= limit or bool(rows and rows[0]["complete"])


def matching_exhaustive(
    filters: SearchFilters, params: Bm25 | None = None, *, one_client: bool = False
) -> Statement:
    """Visible chunks holding any wanted term of ``$4`` (web-search syntax), by BM25, every
    posting of every wanted lexeme scored.

    Candidates come from the reader's client's and the global postings of the wanted
    lexemes; a term's document frequency, the chunk count and the average length are
    counted over those same clients only, so one tenant's text never moves another's
    scores. The score is the chunk's BM25 divided by the query's ceiling (the sum over its
    wanted lexemes of ``idf * (k1 + 1)``, what a chunk saturated with every term would
    reach), so it lies in [0, 1).
    """
    p = params or Bm25()
    where, args = where_visible(filters, one_client)
    # Terms add up in lexeme order, so equal chunks score bit for bit alike and tie on id.
    # Postings are grouped by the id's bytes (COLLATE "C": memcmp and abbreviated keys
    # instead of strcoll; equality is the same), the id then back in the column's collation
    # so the chunk lookup uses the primary key and ties order as before.
    text = (
        f"WITH {_PARSED}, {_STATISTICS}, "
        f'ranked AS (SELECT x.client_id, {_BYTES} COLLATE "default" AS chunk_id, '
        f"sum({_term_score(p)} ORDER BY w.term) AS bm25 FROM {_POSTINGS} "
        f"GROUP BY x.client_id, {_BYTES}) {_ranked_rows(where, p, 'ranked')}"
    )
    return Statement(text, args)


# Each passing chunk's wanted lexemes with their counts, read from its ``content_tsv`` with
# every other lexeme filtered out (the wanted ones weighted A, the rest D, the D ones
# dropped: two passes over the vector in C, where ``unnest`` builds a row with arrays of
# positions and weights for each of its lexemes). ``content_tsv`` is ``to_tsvector``'s, so
# every lexeme has positions and survives the filter.
_COUNTS = (
    f"SELECT r.client_id, r.chunk_id, t.lexeme, {_COUNT} AS tf, length(r.content_tsv) AS dl "
    "FROM passing r CROSS JOIN LATERAL unnest(ts_filter(setweight(setweight(r.content_tsv, "
    "'D'), 'A', (SELECT array_agg(lexeme) FROM idf)::text[]), '{a}')) t "
    "WHERE NOT (SELECT capped FROM capped)"
)


def _exact_over(rows: str, p: Bm25) -> str:
    """BM25 of the chunks ``rows`` names (client_id, chunk_id): the wanted lexemes' counts
    from ``counts``, the length as the BM25 triggers count it (every lexeme's positions),
    once per chunk (``OFFSET 0`` keeps the length from being summed per lexeme)."""
    return (
        f"SELECT x.client_id, x.chunk_id, sum({_term_score(p)} ORDER BY w.term) AS bm25 "
        "FROM (SELECT k.client_id, k.chunk_id, k.lexeme, k.tf, d.dl FROM (SELECT o.client_id, "
        f"o.chunk_id, (SELECT sum({_COUNT}) FROM unnest(r.content_tsv) t) AS dl FROM {rows} o "
        "JOIN passing r ON r.client_id = o.client_id AND r.chunk_id = o.chunk_id OFFSET 0) d "
        "JOIN counts k ON k.client_id = d.client_id AND k.chunk_id = d.chunk_id) x "
        "JOIN idf w ON w.lexeme = x.lexeme CROSS JOIN s GROUP BY x.client_id, x.chunk_id"
    )


def matching_narrow(
    filters: SearchFilters, params: Bm25 | None = None, *, one_client: bool = False
) -> Statement:
    """``matching_exhaustive``'s answer found from the filters' side: the chunks that pass
    the scope and filters and match ``$4`` (read by the filters' own indexes), when at most
    ``narrow_cap`` pass, scored from their own ``content_tsv``. A filter that keeps few
    chunks leaves the top-k statement few of its candidates (it reads postings before
    chunks) and the exhaustive one scores every posting of the query's words; here the work
    grows with what passes.

    A chunk's length needs every lexeme of its vector, its wanted counts only those: each
    passing chunk is first bounded with its lexeme count for its length (no longer than
    its length, so the bound is never below its score: every step of the term is monotone
    in floating point too), the best ``$5 * rescore_per_row`` by bound (with ties) are
    scored exactly, and when the ``$5``-th best of those beats every other bound they are
    the answer; otherwise every passing chunk is scored (``bounded`` false). Scores are bit
    for bit the exhaustive statement's (lengths and counts as the BM25 triggers count them,
    terms added in lexeme order).

    Rows as ``matching``'s, with ``capped``: true on the one row (its other columns null)
    when more than ``narrow_cap`` pass, and the caller searches the other way. With no hit
    the one row's columns are all null and ``capped`` false.
    """
    p = params or Bm25()
    where, args = where_visible(filters, one_client)
    text = (
        f"WITH {_PARSED}, {_STATISTICS}, "
        "passing AS MATERIALIZED (SELECT c.client_id, c.id AS chunk_id, c.content_tsv "
        f"FROM chunks c WHERE c.content_tsv @@ (SELECT query FROM q) AND {where} "
        f"LIMIT {p.narrow_cap + 1}), "
        f"capped AS (SELECT count(*) > {p.narrow_cap} AS capped FROM passing), "
        f"counts AS MATERIALIZED ({_COUNTS}), "
        f"bounds AS MATERIALIZED (SELECT x.client_id, x.chunk_id, sum({_term_score(p)} "
        "ORDER BY w.term) AS bound FROM counts x JOIN idf w ON w.lexeme = x.lexeme "
        "CROSS JOIN s GROUP BY x.client_id, x.chunk_id), "
        "edge AS (SELECT bound FROM bounds ORDER BY bound DESC "
        f"OFFSET greatest($5 * {p.rescore_per_row} - 1, 0) LIMIT 1), "
        "picked AS (SELECT client_id, chunk_id FROM bounds "
        "WHERE bound >= coalesce((SELECT bound FROM edge), '-Infinity')), "
        f"exact AS MATERIALIZED ({_exact_over('picked', p)}), "
        "bounded AS (SELECT coalesce((SELECT bm25 FROM exact ORDER BY bm25 DESC "
        "OFFSET greatest($5 - 1, 0) LIMIT 1), 'Infinity') > coalesce((SELECT max(bound) "
        "FROM bounds WHERE bound < (SELECT bound FROM edge)), '-Infinity') AS bounded), "
        "scored AS (SELECT * FROM exact WHERE (SELECT bounded FROM bounded) UNION ALL "
        f"SELECT * FROM ({_exact_over('passing', p)}) e WHERE NOT (SELECT bounded FROM bounded)) "
        "SELECT found.*, capped.capped, (SELECT bounded FROM bounded) AS bounded "
        "FROM capped LEFT JOIN LATERAL "
        f"({_ranked_rows(where, p, 'scored')}) found ON true"
    )
    return Statement(text, args)

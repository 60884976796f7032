"""The reader's scope and a search's filters as a ``WHERE`` predicate: fixed fragments, every
value a parameter numbered after the statements' five fixed ones (``StatementArgs``:
``$1..$3`` the reader's scope, ``$4`` the query, ``$5`` the limit).

Each filter is a clause of the statement that ranks, so rows are filtered before any limit.
``chunk_vectors`` (the exact scan's side table, migration 0021) holds the first four filters'
columns; the others are read from the row's chunk in the same statement, restricted to the
reader's clients so PostgreSQL may read a filter's own index (``graph_refs``' GIN index for
``entity_keys``, ``(client_id, connection_id)`` for ``connection_ids``) in their partitions.
"""

from __future__ import annotations

from dataclasses import dataclass

from kenning.domain.access.scope import Scope
from kenning.domain.retrieval.search import SearchFilters
from kenning.storage.db.visibility import reader_params, visible_rows

_FIRST_FILTER = 6  # after StatementArgs' five

# Column and operator per filter, in the order their parameters follow ``$5``.
_FILTERS = (
    ("kinds", "{a}.kind = ANY(${n}::text[])"),
    ("knowledge_types", "{a}.knowledge_type = ANY(${n}::text[])"),
    ("tags", "{a}.tags && ${n}::text[]"),
    ("source_urns", "{a}.source_urn = ANY(${n}::text[])"),
    ("info_types", "{a}.info_type = ANY(${n}::text[])"),
    ("source_kinds", "{a}.source_kind = ANY(${n}::text[])"),
    ("connection_ids", "{a}.connection_id = ANY(${n}::text[])"),
    ("entity_keys", "{a}.graph_refs && ${n}::text[]"),
    ("created_after", "{a}.created_at >= ${n}::timestamptz"),
    ("created_before", "{a}.created_at < ${n}::timestamptz"),
    ("observed_after", "{a}.observed_at >= ${n}::timestamptz"),
    ("observed_before", "{a}.observed_at < ${n}::timestamptz"),
)
# The filters ``chunk_vectors`` (migration 0021) has columns for; the others are checked on
# the row's ``chunks`` row (one primary-key probe), still before any limit.
_SIDE_TABLE_FILTERS = frozenset({"kinds", "knowledge_types", "tags", "source_urns"})
_ON_CHUNK = (
    "EXISTS (SELECT FROM chunks f WHERE f.client_id = {a}.client_id AND f.id = {a}.id AND {p})"
)


def reads_chunks(filters: SearchFilters) -> bool:
    """Whether a filter is set that ``chunk_vectors`` has no column for (read on ``chunks``)."""
    return any(
        getattr(filters, name) not in (None, ())
        for name, _ in _FILTERS
        if name not in _SIDE_TABLE_FILTERS
    )


@dataclass(frozen=True, slots=True)
class Statement:
    """SQL text and the filter values that follow the five fixed parameters."""

    text: str
    filter_args: tuple[object, ...]


@dataclass(frozen=True, slots=True)
class StatementArgs:
    """A search's values in the order every search statement numbers them: ``$1..$3`` the
    reader's scope (``visible_rows``' parameters), ``$4`` the query (the vector, or the
    text for BM25), ``$5`` the limit, then a ``Statement``'s filter values from ``$6``.

    Example: ``conn.fetch(s.text, *StatementArgs(reader, text).values(s, 10))``.
    """

    reader: Scope
    query: object

    @property
    def scope(self) -> tuple[str, str, str]:
        """``$1..$3`` alone, for the statements that take no query (the keys that pass)."""
        return reader_params(self.reader)

    def fixed(self, limit: int) -> tuple[object, ...]:
        """``$1..$5``."""
        return (*self.scope, self.query, limit)

    def values(self, statement: Statement, limit: int) -> tuple[object, ...]:
        """Every value of ``statement``: ``$1..$5``, then its filters'."""
        return (*self.fixed(limit), *statement.filter_args)


# ``chunks`` is partitioned by client (migration 0016): naming the reader's client and the
# global one lets PostgreSQL skip every other partition, at plan time or at executor start.
# Only for a reader of one client: a global reader (``$1 = ''``) sees every client's rows.
# Written as ``= ANY(ARRAY[text, text])``: ``IN ($1, '')`` becomes an array cast to the
# column's type, which PostgreSQL cannot prune a generic plan by.
_ONE_CLIENT = "{a}.client_id = ANY(ARRAY[$1::text, ''])"


def where_visible(
    filters: SearchFilters,
    one_client: bool,
    alias: str = "c",
    scope: str | None = None,
    side_table: bool = False,
    first: int = _FIRST_FILTER,
) -> tuple[str, tuple[object, ...]]:
    """The scope predicate (or ``scope``, a predicate standing for it) and the set filters
    over the rows aliased ``alias`` (columns named as in ``chunks``; ``side_table``: as in
    ``chunk_vectors``, whose missing columns are read from the chunk), and the filters'
    values, numbered from ``first`` (after ``$5``, unless told)."""
    clauses = [scope or visible_rows(1, alias)]
    if one_client:
        clauses.insert(0, _ONE_CLIENT.format(a=alias))
    args: list[object] = []
    on_chunk: list[str] = []
    for name, template in _FILTERS:
        value = getattr(filters, name)
        if value is None or value == ():
            continue
        n = first + len(args)
        args.append(list(value) if isinstance(value, tuple) else value)
        if side_table and name not in _SIDE_TABLE_FILTERS:
            on_chunk.append(template.format(a="f", n=n))
        else:
            clauses.append(template.format(a=alias, n=n))
    if on_chunk:
        # Naming the reader's clients again lets PostgreSQL read the filter's own index in
        # their partitions only, instead of in all sixteen, when it joins by hashing.
        if one_client:
            on_chunk.insert(0, _ONE_CLIENT.format(a="f"))
        clauses.append(_ON_CHUNK.format(a=alias, p=" AND ".join(on_chunk)))
    return " AND ".join(clauses), tuple(args)

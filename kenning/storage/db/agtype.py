"""AGE's agtype as SQL text: property access, and conversion to and from jsonb.

AGE stores vertex and edge properties as agtype; Kenning's SQL reads them through these
fragments, spelled exactly as the expression indexes of migration 0001 so that PostgreSQL
can use them. Values never appear in the fragments; they are always query parameters.
"""

from __future__ import annotations

import re

GRAPH_NAME = re.compile(r"^[a-z_][a-z0-9_]{2,62}$")


def _prop(alias: str, name: str) -> str:
    # Spelled exactly as in the index definitions so ON CONFLICT can infer them.
    return f"({alias}properties OPERATOR(ag_catalog.->>) '{name}'::text)"


def prop(alias: str, name: str) -> str:
    """``alias.properties ->> 'name'`` as text (``alias`` may be ``""``)."""
    return _prop(f"{alias}." if alias else "", name)


def as_jsonb(expr: str) -> str:
    """An agtype expression as jsonb (AGE has no direct cast for maps)."""
    return f"(ag_catalog.agtype_out({expr})::text::jsonb)"


def to_agtype(expr: str) -> str:
    """A jsonb expression as agtype."""
    return f"(({expr})::text::ag_catalog.agtype)"


def iso_text(expr: str) -> str:
    """A timestamptz expression as the fixed-width UTC text edges store times in
    (``kenning.domain.ingestion.validity.iso``)."""
    return f"""to_char(({expr}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')"""

"""A plain table for list commands: a header line, then one line a row, columns aligned by
two spaces (easy to read, and to cut or grep); what to print when there are no rows."""

from __future__ import annotations

from collections.abc import Sequence

import typer


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """``header`` over ``rows``, each column as wide as its widest cell."""
    widths = [max(len(cell) for cell in column) for column in zip(header, *rows, strict=True)]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in (header, *rows)
    )


def echo_table(header: Sequence[str], rows: Sequence[Sequence[str]], empty: str) -> None:
    """Print the table, or ``empty`` (on stderr: there is no data) when there are no rows."""
    if rows:
        typer.echo(table(header, rows))
    else:
        typer.echo(empty, err=True)

"""`KenningGroup`, the command group that turns known failures into one ``error:`` line, and
`PlainCommand`, a command whose arguments read like click's (``REVISION``, not
``REVISION <str>`` and ``{REVISION}``)."""

from __future__ import annotations

from typing import Any

import typer
from typer.core import TyperArgument, TyperCommand, TyperGroup

from kenning.cli.failures import explain


def report(message: str, exit_code: int) -> typer.Exit:
    """Print ``error: message`` on stderr; the caller raises the returned ``Exit``."""
    typer.secho(f"error: {message}", fg=typer.colors.RED, err=True)
    return typer.Exit(code=exit_code)


class KenningGroup(TyperGroup):
    """Runs a command; a failure `explain` knows becomes one line on stderr and a non-zero
    exit code, anything else (a bug) keeps its traceback."""

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except typer.BadParameter as error:
            # Typer checks a choice with pydantic, whose message starts with its error type.
            error.message = error.message.removeprefix("Value error, ")
            raise
        except (typer.Exit, typer.Abort, typer.TyperException):
            raise
        except Exception as error:
            failure = explain(error)
            if failure is None:
                raise
            raise report(failure.message, failure.exit_code) from None


class PlainArgument(TyperArgument):
    """An argument shown by its name only, in the help and in the usage line."""

    def display_type_rich(self, ctx: Any) -> str | None:
        return None

    def _usage_display_name(self) -> str:
        name = self.display_name_raw
        return name if self.required else f"[{name}]"


class PlainCommand(TyperCommand):
    """A command whose positional arguments are `PlainArgument`s (pass as ``cls=``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            if type(param) is TyperArgument:
                # Same fields, other display: swapping the class keeps Typer's own setup.
                param.__class__ = PlainArgument

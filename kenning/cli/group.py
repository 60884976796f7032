"""`KenningGroup`, the command group that turns known failures and usage errors into one
``error:`` line with the exit code of `kenning.cli.exit_codes`, and `PlainCommand`, a command
whose arguments read like click's (``REVISION``, not ``REVISION <str>`` and ``{REVISION}``).

A usage error reads ``error: Invalid value for '--max-pages': ... (see kenning crawl -h)``,
one line, where click prints the usage, a hint and the error on four."""

from __future__ import annotations

from typing import Any

import typer

# Typer carries its own copy of click: its usage errors are these classes, not click's.
from typer._click.exceptions import NoArgsIsHelpError, UsageError
from typer.core import TyperArgument, TyperCommand, TyperGroup

from kenning.cli.exit_codes import ExitCode
from kenning.cli.failures import explain


def report(message: str, exit_code: int) -> typer.Exit:
    """Print ``error: message`` on stderr; the caller raises the returned ``Exit``."""
    typer.secho(f"error: {message}", fg=typer.colors.RED, err=True)
    return typer.Exit(code=exit_code)


def usage_line(error: UsageError) -> str:
    """A usage error as one line: what is wrong, and where the options are shown."""
    if isinstance(error, typer.BadParameter):
        # Typer checks a choice with pydantic, whose message starts with its error type.
        error.message = error.message.removeprefix("Value error, ")
    message = " ".join(error.format_message().split()).removeprefix("Invalid value: ")
    if error.ctx is None:
        return message
    return f"{message.rstrip('.')} (see {_command_path(error.ctx)} -h)"


def _command_path(ctx: Any) -> str:
    """``kenning keys create``, however the program was started (``python -m kenning``)."""
    names: list[str] = []
    while ctx.parent is not None:
        names.insert(0, ctx.info_name)
        ctx = ctx.parent
    return " ".join(["kenning", *names])


class KenningGroup(TyperGroup):
    """Runs a command; a usage error or a failure `explain` knows becomes one line on stderr
    and its exit code, anything else (a bug) keeps its traceback."""

    def make_context(self, *args: Any, **kwargs: Any) -> Any:
        # The top level's own options and arguments are parsed here, before `invoke`.
        try:
            return super().make_context(*args, **kwargs)
        except NoArgsIsHelpError:
            raise
        except UsageError as error:
            raise report(usage_line(error), ExitCode.USAGE) from None

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except NoArgsIsHelpError:
            raise  # prints the help: ``kenning keys`` alone
        except UsageError as error:
            raise report(usage_line(error), ExitCode.USAGE) from None
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

"""The exit codes of every ``kenning`` command, in one table (the end of ``kenning --help``
prints it too), so a script can tell "fix the command" from "try again later":

===  ============  ===========================================================================
0    OK            done (a repository run that refused some files still ends 0: its table
                   names every refused file and why)
1    FAILED        the work failed: a job or a file failed, a port in use, a database not
                   migrated, a schema out of date; the ``error:`` line says why
2    USAGE         a bad option, argument or ``KENNING_*`` setting; nothing was done
3    UNREACHABLE   a server is not running or cannot be reached: the Kenning server, PostgreSQL
                   or Redis (``stack status``: one of the local servers is down)
4    REFUSED       the server refused the credentials: the API key, or PostgreSQL's user or
                   password
130  INTERRUPTED   stopped by Ctrl-C (SIGINT); a job already handed to the server keeps running
===  ============  ===========================================================================

Every failure a user can fix prints one line, ``error: what is wrong: what to do``, on
stderr, and never a traceback; a traceback means a bug.
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """How a command ended; see the module's table."""

    OK = 0
    FAILED = 1
    USAGE = 2
    UNREACHABLE = 3
    REFUSED = 4
    INTERRUPTED = 130  # the shell's own code for SIGINT, which click returns


MEANINGS: dict[ExitCode, str] = {
    ExitCode.OK: "done",
    ExitCode.FAILED: "the work failed (the error line says why and what to do)",
    ExitCode.USAGE: "a bad option, argument or setting",
    ExitCode.UNREACHABLE: "a server (Kenning, PostgreSQL, Redis) is not running or cannot be "
    "reached",
    ExitCode.REFUSED: "the server refused the API key or the database user",
    ExitCode.INTERRUPTED: "stopped by Ctrl-C (a job already sent keeps running on the server)",
}


def epilog() -> str:
    """The table as one paragraph for ``--help``:
    ``Exit codes: 0 done; 1 the work failed (...); ...``."""
    return "Exit codes: " + "; ".join(f"{code.value} {MEANINGS[code]}" for code in ExitCode) + "."

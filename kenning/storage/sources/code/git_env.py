"""How every git command runs: a minimal environment and configuration that nothing on the
server (its proxies, credential helpers, keys, ``~/.gitconfig``, ``/etc/gitconfig``, ``GIT_*``
variables, the repository it happens to run in) nor the repository read (its ``.git/config``
hooks, fsmonitor, external diff, promisor remote) can steer.

Each command runs in its own empty ``home`` with the ceiling just above it, so a command that
names no repository (``init``, ``ls-remote``) finds none; a local repository is named by
``--git-dir``/``--work-tree`` (``git_dir``), never searched for.

Example: ``subprocess.run([git, *HARDENED, *place.options, ...], cwd=home,
env=git_environment(home))``.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping

# Repository config that would run programs: neutralised on the command line, which wins.
HARDENED: tuple[str, ...] = (
    "-c",
    "core.fsmonitor=",
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "diff.external=",
    "-c",
    "credential.helper=",
    "-c",
    "gc.auto=0",
    "-c",
    "maintenance.auto=false",
    # An http server silent for a minute is dropped rather than holding a thread.
    "-c",
    "http.lowSpeedLimit=1",
    "-c",
    "http.lowSpeedTime=60",
)
# ssh never offers the server's keys or agent, never prompts, and reads no ssh_config.
_SSH = [
    "ssh",
    "-F",
    "/dev/null",
    "-o",
    "BatchMode=yes",
    "-o",
    "IdentitiesOnly=yes",
    "-i",
    "/dev/null",
    "-o",
    "IdentityAgent=none",
    "-o",
    "ProxyCommand=none",
    "-o",
    "PasswordAuthentication=no",
    "-o",
    "KbdInteractiveAuthentication=no",
    "-o",
    "UserKnownHostsFile=/dev/null",
    "-o",
    "StrictHostKeyChecking=accept-new",
    "-o",
    "ConnectTimeout=30",
]
_DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin"


def ssh_command(address: str | None = None) -> str:
    """``GIT_SSH_COMMAND``: hardened ssh, connecting to ``address`` (the checked one) if given."""
    pinned = ["-o", f"HostName={address}"] if address else []
    return shlex.join([*_SSH, *pinned])


def git_environment(
    home: str, ssh_address: str | None = None, *, local: bool = False
) -> Mapping[str, str]:
    """The whole environment git runs with (in ``home``, its working directory): no proxy
    variables, an empty ``HOME``, no system or global config, no prompt, no search above
    ``home``, no lazy fetch, and only the http, https, ssh and file transports, or none at
    all when ``local`` (reading a repository reaches no other)."""
    return {
        "PATH": os.environ.get("PATH", _DEFAULT_PATH),
        "HOME": home,
        "XDG_CONFIG_HOME": home,
        "LC_ALL": "C",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_CEILING_DIRECTORIES": os.path.dirname(home),
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_ASKPASS": "true",
        "SSH_ASKPASS": "true",
        # A partial clone would fetch a missing object from the promisor remote its own
        # config names (another repository on this machine, say): git >= 2.39.4 honours
        # this; for a local read the empty transport list stops older ones too.
        "GIT_NO_LAZY_FETCH": "1",
        "GIT_ALLOW_PROTOCOL": "" if local else "http:https:ssh:file",
        "GIT_SSH_COMMAND": ssh_command(ssh_address),
    }

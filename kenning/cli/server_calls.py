"""What the client commands (``ingest``, ``ingest-repo``, ``crawl``) share to talk to a
running server: kenning-client's async client for a URL and key, and the job statuses a
followed job ends in."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kenning_client import AsyncKenningClient

FINISHED = frozenset({"INDEXED", "SKIPPED_DUPLICATE", "FAILED", "CANCELLED"})


def server_client(url: str, api_key: str) -> AsyncKenningClient:
    """The client of the server at ``url`` as ``api_key``: two minutes for an answer, enough
    for a large upload."""
    # Imported when a command calls a server, not when any command starts.
    from kenning_client import connect_async

    return connect_async(url, api_key, timeout=120)

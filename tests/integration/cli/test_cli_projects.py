"""``kenning projects move`` on the real stack: the move is stored and open queue feeds are
told to re-read at once (a RESYNC on the queue's Redis channel); ``projects list`` and ``keys
list`` print a header over their rows, and say so on stderr when there are none."""

from __future__ import annotations

import asyncio
import time

import pytest
import redis

from kenning.domain.queue.events import RESYNC_MESSAGE
from kenning.settings import Settings
from kenning.storage.db.database_url import with_database
from kenning.storage.queue.event_bus import channel_for
from tests.support.cli_runner import run
from tests.support.database import TEST_DATABASE, recreate_database

pytestmark = pytest.mark.integration

DATABASE = f"{TEST_DATABASE}_cli_projects"


@pytest.fixture
def migrated_url(test_settings: Settings) -> str:
    url = with_database(test_settings.database_url, DATABASE)
    asyncio.run(recreate_database(url, DATABASE))
    migrated = run("migrate", KENNING_DATABASE_URL=url, KENNING_EMBEDDER="hash")
    assert migrated.exit_code == 0, migrated.output
    return url


def next_message(pubsub: redis.client.PubSub, within: float) -> object:
    """The next published payload on the subscribed channel, or None."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        message = pubsub.get_message(timeout=0.2)
        if message is not None and message["type"] == "message":
            return message["data"]
    return None


def test_a_move_tells_open_queue_feeds_to_re_read(
    migrated_url: str, test_settings: Settings
) -> None:
    client = redis.Redis.from_url(test_settings.redis_url)
    pubsub = client.pubsub()  # type: ignore[no-untyped-call]  # redis-py's sync pubsub is untyped
    pubsub.subscribe(channel_for(DATABASE))
    try:
        moved = run(
            "projects", "move", "p3", "--client", "acme", "--group", "g2",
            KENNING_DATABASE_URL=migrated_url, KENNING_REDIS_URL=test_settings.redis_url,
            KENNING_EMBEDDER="hash",
        )  # fmt: skip
        assert moved.exit_code == 0, moved.output
        assert "project p3 of client acme: group (none) -> g2" in moved.stdout
        assert next_message(pubsub, within=5) == RESYNC_MESSAGE.encode()
    finally:
        pubsub.close()
        client.close()
    listed = run("projects", "list", "--client", "acme", KENNING_DATABASE_URL=migrated_url)
    assert listed.stdout.splitlines() == ["PROJECT  GROUP", "p3       g2"]


def test_a_move_without_redis_is_stored_and_says_feeds_catch_up_later(
    migrated_url: str,
) -> None:
    moved = run(
        "projects", "move", "p3", "--client", "acme", "--group", "g2",
        KENNING_DATABASE_URL=migrated_url, KENNING_REDIS_URL="redis://127.0.0.1:9/0",
    )  # fmt: skip
    assert moved.exit_code == 0, moved.output
    assert "did not take the re-read signal" in moved.stderr
    listed = run("projects", "list", "--client", "acme", KENNING_DATABASE_URL=migrated_url)
    assert listed.stdout.splitlines() == ["PROJECT  GROUP", "p3       g2"]


def test_lists_have_a_header_and_say_when_they_are_empty(migrated_url: str) -> None:
    empty = run("projects", "list", "--client", "acme", KENNING_DATABASE_URL=migrated_url)
    assert (empty.exit_code, empty.stdout) == (0, "")
    assert empty.stderr.strip() == "no projects recorded for client 'acme'"
    none = run("keys", "list", "--client", "acme", KENNING_DATABASE_URL=migrated_url)
    assert (none.exit_code, none.stdout) == (0, "")
    assert none.stderr.strip() == "no keys of client 'acme': kenning keys create makes one"
    made = run(
        "keys",
        "create",
        "--client",
        "acme",
        "--role",
        "ui",
        "--label",
        "wall screen",
        KENNING_DATABASE_URL=migrated_url,
        KENNING_REDIS_URL="redis://127.0.0.1:9/0",
    )
    assert made.exit_code == 0, made.output
    header, row = run("keys", "list", KENNING_DATABASE_URL=migrated_url).stdout.splitlines()
    assert header.split() == ["ID", "ROLE", "STATE", "SCOPE", "CREATED", "LABEL"]
    assert row.split()[1:4] == ["ui", "active", "client=acme"] and row.endswith("wall screen")

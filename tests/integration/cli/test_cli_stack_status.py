"""``kenning stack status`` on the running local stack names the database and the Redis
database Kenning uses (from its settings), never the URL's password."""

from __future__ import annotations

import pytest

from kenning.settings import Settings
from tests.support.cli_runner import run

pytestmark = pytest.mark.integration


def test_status_names_kennings_databases_without_the_password(test_settings: Settings) -> None:
    url = test_settings.database_url.replace("postgres@", "postgres:hunter2@", 1)
    shown = run(
        "stack",
        "status",
        KENNING_DATABASE_URL=url.rsplit("/", 1)[0] + "/kenning_elsewhere",
        KENNING_REDIS_URL=test_settings.redis_url.rsplit("/", 1)[0] + "/7",
    )
    assert shown.exit_code == 0, shown.output
    lines = [line.strip() for line in shown.stdout.splitlines()]
    assert "kenning database kenning_elsewhere (KENNING_DATABASE_URL)" in lines
    assert "kenning database 7 (KENNING_REDIS_URL)" in lines
    assert "hunter2" not in shown.output

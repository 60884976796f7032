"""Run Alembic programmatically with Kenning's settings; read the head revision."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory

from kenning.settings import Settings

_ROOT = Path(__file__).resolve().parents[2]


def alembic_config(settings: Settings) -> Config:
    """An Alembic config bound to ``settings`` (URL, graph name, embedding dimension)."""
    config = Config(str(_ROOT / "alembic.ini"))
    config.set_main_option("script_location", str(_ROOT / "migrations"))
    config.attributes["settings"] = settings
    return config


def head_revision(settings: Settings) -> str:
    """The newest revision the code knows."""
    head = ScriptDirectory.from_config(alembic_config(settings)).get_current_head()
    assert head is not None, "the migrations folder has no revision"
    return head


def run_upgrade(settings: Settings, revision: str = "head") -> None:
    """Apply migrations up to ``revision``."""
    command.upgrade(alembic_config(settings), revision)


def run_downgrade(settings: Settings, revision: str) -> None:
    """Roll migrations back to ``revision`` (``base`` removes everything)."""
    command.downgrade(alembic_config(settings), revision)

"""Tables of Kenning's own model calls: ``check_ins`` (the audit record of every
``structureKnowledge`` call) and ``extraction_cache`` (what the model extracted from a chunk's
content, so unchanged content is never sent again).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import JSONB
from sqlmodel import Field, SQLModel


def _created() -> Any:
    return Field(
        sa_column=sa.Column(
            sa.DateTime(timezone=True), nullable=False, server_default=sa.text("now()")
        )
    )


def _json(default: str) -> Any:
    return sa.Column(JSONB(), nullable=False, server_default=sa.text(f"'{default}'::jsonb"))


class CheckInRow(SQLModel, table=True):
    """One structuring call: input (or only its hash), output, model, attempts, caller."""

    __tablename__ = "check_ins"
    __table_args__ = (
        sa.Index("ix_check_ins_recent", "client_id", "project_id", "group_id", "created_at"),
    )

    id: str = Field(primary_key=True, max_length=36)
    client_id: str = Field(max_length=200)
    project_id: str = Field(default="", sa_column_kwargs={"server_default": ""}, max_length=200)
    group_id: str = Field(default="", sa_column_kwargs={"server_default": ""}, max_length=200)
    caller: str = Field(max_length=200)
    # LOADED, DRY_RUN or INVALID (the model's answer stayed invalid).
    status: str = Field(max_length=20)
    source_urn: str | None = Field(default=None, max_length=2048)
    # NULL when the server keeps only the hash (KENNING_CHECK_IN_KEEP_TEXT=false).
    input_text: str | None = Field(default=None, sa_column=sa.Column(sa.Text(), nullable=True))
    input_hash: str = Field(max_length=64)
    hints: str | None = Field(default=None, sa_column=sa.Column(sa.Text(), nullable=True))
    output: dict[str, Any] | None = Field(default=None, sa_column=sa.Column(JSONB(), nullable=True))
    model: str = Field(max_length=200)
    prompt_version: str = Field(max_length=40)
    attempts: list[dict[str, Any]] = Field(default_factory=list, sa_column=_json("[]"))
    duration_ms: float = Field(sa_column=sa.Column(sa.Float(), nullable=False))
    created_at: datetime = _created()


class ExtractionCacheRow(SQLModel, table=True):
    """What one model and prompt version extracted from one chunk content, per client."""

    __tablename__ = "extraction_cache"

    client_id: str = Field(primary_key=True, max_length=200)
    content_hash: str = Field(primary_key=True, max_length=64)
    model: str = Field(primary_key=True, max_length=200)
    prompt_version: str = Field(primary_key=True, max_length=40)
    result: dict[str, Any] = Field(default_factory=dict, sa_column=_json("{}"))
    created_at: datetime = _created()

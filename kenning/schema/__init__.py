"""Strawberry types and the schema factory; no logic lives here."""

from kenning.schema.build import build_schema

__all__ = ["build_schema"]

"""Memory's enums as GraphQL names and describes them, registered once by the package's
``__init__``, before any type of the package resolves a field that uses them (a type
resolving first would make a second, undescribed GraphQL enum of the same name)."""

from __future__ import annotations

import strawberry

from kenning.domain.memory.user_knowledge import KnowledgeCategory

strawberry.enum(KnowledgeCategory, description="What a piece of user knowledge is about.")

__all__ = ["KnowledgeCategory"]

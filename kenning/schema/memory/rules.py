"""Types of hard rules: a rule version, and the results of storing and deleting one."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry

from kenning.domain.memory.rules import RuleType
from kenning.schema.errors import NotFoundError, ScopeError, SensitiveContentError, ValidationError

strawberry.enum(RuleType, description="What a hard rule governs.")


@strawberry.type(description="One version of a client's hard rule (mandatory, never searched).")
class HardRule:
    rule_key: str
    rule_type: RuleType
    content: str
    description: str
    client_id: str
    project_id: str | None = strawberry.field(description="Null for a client-wide rule.")
    version: int = strawberry.field(description="1 for the first version, then n+1.")
    created_by: str = strawberry.field(description="The id of the API key that stored it.")
    created_at: datetime
    superseded_at: datetime | None = strawberry.field(
        description="When the next version replaced it; null for the current version."
    )
    deleted_at: datetime | None = strawberry.field(
        description="When deleteRule removed it; null while active."
    )


@strawberry.type(description="Versions of one rule, newest first (first: 1..50, default 20).")
class RuleHistoryPage:
    nodes: list[HardRule]
    end_cursor: str | None = strawberry.field(
        description="Pass as after for the older versions; null on an empty page."
    )
    has_next_page: bool


@strawberry.type(description="The rule's new version is current; the previous one superseded.")
class StoreRuleSuccess:
    rule: HardRule


@strawberry.type(description="The rule's current version is deleted; its history stays.")
class DeleteRuleSuccess:
    rule: HardRule


StoreRuleResult = Annotated[
    StoreRuleSuccess | ValidationError | SensitiveContentError | ScopeError,
    strawberry.union("StoreRuleResult"),
]
DeleteRuleResult = Annotated[
    DeleteRuleSuccess | ValidationError | ScopeError | NotFoundError,
    strawberry.union("DeleteRuleResult"),
]

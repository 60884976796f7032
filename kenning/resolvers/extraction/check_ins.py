"""Resolver of `checkIns`: the check-ins the caller may read, newest first."""

from __future__ import annotations

import strawberry
from strawberry.scalars import JSON

from kenning.domain.extraction.check_ins import CheckIn, check_page_size
from kenning.graphql.context import Info
from kenning.resolvers.access.scope import read_scope
from kenning.resolvers.errors import error_members
from kenning.resolvers.extraction.model_errors import model_attempts
from kenning.schema.access.scope import NarrowScope, scope_info
from kenning.schema.extraction import check_ins as gql


def to_check_in(found: CheckIn) -> gql.CheckIn:
    """The GraphQL form of a stored check-in."""
    c = found.record
    return gql.CheckIn(
        id=strawberry.ID(c.id),
        status=c.status,
        caller=c.caller,
        scope=scope_info(c.scope),
        source_urn=c.source_urn,
        input_text=c.input_text,
        input_hash=c.input_hash,
        hints=c.hints,
        output=None if c.output is None else JSON(dict(c.output)),
        model=c.model,
        prompt_version=c.prompt_version,
        attempts=model_attempts(c.attempts),
        duration_ms=c.duration_ms,
        created_at=found.created_at,
    )


@error_members
async def resolve_check_ins(
    info: Info, first: int = 20, after: str | None = None, scope: NarrowScope = None
) -> gql.CheckInsResult:
    """Check-ins the caller may read, newest first, paged by cursor."""
    check_page_size(first)
    page = await info.context.runtime.check_ins.page(read_scope(info, scope), first, after)
    return gql.CheckInPage(
        nodes=[to_check_in(c) for c in page.check_ins],
        end_cursor=page.end_cursor,
        has_next_page=page.has_next_page,
    )

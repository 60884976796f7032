"""Resolvers of ``viewer`` and of API key management (admin keys, inside their scope)."""

from __future__ import annotations

import strawberry

from kenning.domain.access.api_keys import ApiKeyInfo, create_key, list_keys, revoke_key
from kenning.domain.access.principal import Principal
from kenning.graphql.context import Info
from kenning.resolvers.access.scope import principal, to_scope
from kenning.resolvers.errors import error_members
from kenning.schema.access import keys as gql
from kenning.schema.access.scope import scope_info


def _key(info: ApiKeyInfo) -> gql.ApiKey:
    return gql.ApiKey(
        id=strawberry.ID(info.id),
        role=info.role,
        scope=scope_info(info.scope),
        label=info.label,
        created_at=info.created_at,
        revoked_at=info.revoked_at,
    )


def resolve_viewer(info: Info) -> gql.Viewer:
    """Who the caller is: the key's id, role and scope."""
    caller = principal(info)
    return gql.Viewer(
        key_id=caller.key_id,
        role=caller.role,
        scope=scope_info(caller.scope),
        anonymous=caller.anonymous,
    )


async def resolve_api_keys(info: Info, include_revoked: bool = False) -> list[gql.ApiKey]:
    """Keys inside the admin key's scope, newest first (never their secrets)."""
    keys = await list_keys(
        principal(info), info.context.runtime.api_keys, include_revoked=include_revoked
    )
    return [_key(key) for key in keys]


async def resolve_create_api_key(
    info: Info, input: gql.CreateApiKeyInput
) -> gql.CreateApiKeyResult:
    """A new key inside the admin key's scope; its text is in the answer, once."""
    # principal() outside the mapping: a missing key is a top-level error here, not a
    # ScopeError member (the view refuses keyless requests before any resolver runs).
    return await _create_key(info, principal(info), input)


@error_members
async def _create_key(
    info: Info, caller: Principal, input: gql.CreateApiKeyInput
) -> gql.CreateApiKeyResult:
    scope = to_scope(input.scope) or caller.scope
    text, stored = await create_key(
        caller,
        scope,
        input.role,
        input.label,
        info.context.runtime.api_keys,
        info.context.runtime.project_groups,
    )
    return gql.CreateApiKeySuccess(key=text, api_key=_key(stored))


@error_members
async def resolve_revoke_api_key(info: Info, id: strawberry.ID) -> gql.RevokeApiKeyResult:
    """Revoke a key inside the admin key's scope."""
    revoked = await revoke_key(principal(info), str(id), info.context.runtime.api_keys)
    return gql.RevokeApiKeySuccess(api_key=_key(revoked))

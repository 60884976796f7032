"""One reader's whole audit: every read path in one GraphQL request as its key's own scope
and then as its narrowing, each block checked by ``audit.Audit``, the MCP read tools beside
them (``mcp_reads``), and a narrowing the key may not make refused on every path."""

from __future__ import annotations

from tests.support.graph_data import scope_input
from tests.support.graphql_api import Api
from tests.support.leaks.audit import Audit, Json
from tests.support.leaks.corpus import Reader
from tests.support.leaks.ground_truth import Stored
from tests.support.leaks.mcp_reads import audit_mcp, refused_mcp
from tests.support.leaks.read_paths import Probe, block, document, execute


async def audit_reader(
    api: Api, stored: Stored, reader: Reader, probe: Probe, *, mcp: bool = True
) -> dict[str, Json]:
    """Read every path as ``reader`` (its own scope, then its narrowing) and audit it, the
    MCP read tools too unless ``mcp`` is False; returns the answers of the request."""
    own = Audit(stored, reader.principal.scope, f"{reader} reading with its key's scope")
    chunk_ids = sorted(stored.chunks)
    fields = block(probe, "own_", "own", chunk_ids)
    variables: dict[str, object] = {"own": None}
    if reader.narrow is not None and reader.allowed:
        fields += block(probe, "narrow_", "narrow", chunk_ids)
        variables["narrow"] = scope_input(reader.narrow)
    result = await execute(api, reader.principal, document(fields, list(variables)), variables)
    assert result.errors is None and result.data is not None, (reader, result.errors)
    own.block(result.data, "own_", probe, chunk_ids)
    if mcp:
        await audit_mcp(api.runtime, own, reader.principal, None, probe)
    if reader.narrow is None:
        return result.data
    narrowed = Audit(stored, reader.narrow, f"{reader} narrowing to {reader.narrow.describe()}")
    if reader.allowed:
        narrowed.block(result.data, "narrow_", probe, chunk_ids)
        if mcp:
            await audit_mcp(api.runtime, narrowed, reader.principal, reader.narrow, probe)
        return result.data
    if mcp:
        await refused_mcp(api.runtime, reader.principal, reader.narrow, probe)
    for alias, text in block(probe, "", "narrow", chunk_ids):
        single = await execute(
            api,
            reader.principal,
            document([(alias, text)], ["narrow"]),
            {"narrow": scope_input(reader.narrow)},
        )
        narrowed.refused(alias, single)
    return result.data

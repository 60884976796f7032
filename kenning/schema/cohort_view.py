"""``CohortGraphQL``: the GraphQL view, encoding a result shared by a cohort only once.

Every member of a subscription cohort (``cohorts.py``) is handed the very same ``data``
object; the websocket message around it differs only by the operation id, so the data's
JSON is built once and each member's message is assembled around it. Over
graphql-transport-ws, members that keep up skip Strawberry's per-event path altogether
(``fan_out.py``: ``CohortTransportWSHandler``) and write the same message themselves.
"""

from __future__ import annotations

from typing import Any

from kenning.graphql_view import KenningGraphQL
from kenning.schema.fan_out import CohortTransportWSHandler, encoded_payloads, next_frame


class CohortGraphQL(KenningGraphQL):
    """``KenningGraphQL`` whose subscription messages reuse the JSON of shared data."""

    graphql_transport_ws_handler_class = CohortTransportWSHandler

    def encode_json(self, data: object) -> str | bytes:
        shared = _shared_data(data)
        if shared is None or not isinstance(data, dict):
            return super().encode_json(data)
        return next_frame(data["id"], encoded_payloads(shared), data["type"])


def _shared_data(message: object) -> object | None:
    """The ``data`` of a subscription message that carries nothing else, else ``None``."""
    if not isinstance(message, dict) or message.keys() != {"id", "type", "payload"}:
        return None
    payload: Any = message["payload"]
    if not isinstance(payload, dict) or payload.keys() != {"data"}:
        return None
    data = payload["data"]
    return data if isinstance(data, dict) else None

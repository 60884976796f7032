"""``CohortGraphQL``: the GraphQL view, encoding a result shared by a cohort only once.

Every member of a subscription cohort (``cohorts.py``) is handed the very same ``data``
object; the websocket message around it differs only by the operation id, so the data's
JSON is built once and each member's message is assembled around it.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from typing import Any

from kenning.graphql_view import KenningGraphQL

ENCODED_KEPT = 64


class CohortGraphQL(KenningGraphQL):
    """``KenningGraphQL`` whose subscription messages reuse the JSON of shared data."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # The data is kept alongside, so its id cannot be reused while cached.
        self._encoded: OrderedDict[int, tuple[object, str]] = OrderedDict()

    def encode_json(self, data: object) -> str | bytes:
        shared = _shared_data(data)
        if shared is None:
            return super().encode_json(data)
        assert isinstance(data, dict)
        hit = self._encoded.get(id(shared))
        if hit is None or hit[0] is not shared:
            hit = (shared, json.dumps({"data": shared}, separators=(",", ":")))
            self._encoded[id(shared)] = hit
            if len(self._encoded) > ENCODED_KEPT:
                self._encoded.popitem(last=False)
        head = json.dumps({"id": data["id"], "type": data["type"]}, separators=(",", ":"))
        return f'{head[:-1]},"payload":{hit[1]}}}'


def _shared_data(message: object) -> object | None:
    """The ``data`` of a subscription message that carries nothing else, else ``None``."""
    if not isinstance(message, dict) or message.keys() != {"id", "type", "payload"}:
        return None
    payload: Any = message["payload"]
    if not isinstance(payload, dict) or payload.keys() != {"data"}:
        return None
    data = payload["data"]
    return data if isinstance(data, dict) else None

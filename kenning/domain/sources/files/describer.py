"""``ModelImageDescriber``: the ``ImageDescriber`` port over Kenning's model client, one chat
call per image with the image attached (Ollama's ``messages[].images``) at the router's
DOCUMENT priority (2): ahead of background extraction, behind an agent waiting.

Example: ``ModelImageDescriber(runtime.models, "llava:7b")``.
"""

from __future__ import annotations

import base64

from kenning.domain.models.ports import (
    ChatMessage,
    ChatRequest,
    ModelClient,
    ModelPriority,
    Role,
)

PROMPT = (
    "Describe this image for a search index in at most five sentences: what it shows, "
    "any text in it, and for a chart or diagram what it says. Plain text, no preamble."
)


class ModelImageDescriber:
    """Describes images with ``model`` through ``client``."""

    def __init__(self, client: ModelClient, model: str) -> None:
        self._client = client
        self._model = model

    async def describe(self, image: bytes, media_type: str) -> str:
        """What the image shows; ``ModelCallError`` when the backend cannot answer."""
        message = ChatMessage(Role.USER, PROMPT, images=(base64.b64encode(image).decode(),))
        reply = await self._client.chat(
            ChatRequest(
                model=self._model,
                messages=(message,),
                priority=ModelPriority.DOCUMENT,
                options={"temperature": 0},
            )
        )
        return reply.content.strip()

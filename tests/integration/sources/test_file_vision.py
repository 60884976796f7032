"""Images described by a vision model through the fake Ollama: the chat request carries the
image as ``messages[].images`` at priority 2 (DOCUMENT), and the description is indexed
with the image as its part; an image whose OCR text holds a credential is sent to no model."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from kenning.domain.sources.files import FileLimits, OcrMode, PartOrigin, extract_file
from kenning.domain.sources.files.describer import ModelImageDescriber
from kenning.domain.sources.files.extract import NOT_SENT
from kenning.storage.models.ollama import OllamaModelClient
from kenning.storage.sources.files import LibraryFileParser
from tests.fakes.ollama import FakeFactory
from tests.support.file_samples import text_image

pytestmark = pytest.mark.integration

VISION = "llama3.2:1b"  # a model the fake serves; any name works against a real Ollama


async def test_an_image_is_described_at_document_priority_with_the_image_attached(
    fake_ollama_factory: FakeFactory,
) -> None:
    fake = fake_ollama_factory("vision")
    seen: list[dict[str, Any]] = []

    def describe(body: dict[str, Any]) -> str:
        seen.append(body)
        return "A whiteboard listing the release steps."

    fake.replier = describe
    image = text_image(["Release steps", "Tag and deploy"])
    client = OllamaModelClient(fake.url, timeout=10)
    try:
        describer = ModelImageDescriber(client, VISION)
        extracted = await extract_file(
            image, filename="board.png", ocr=OcrMode.AUTO, limits=FileLimits(),
            parser=LibraryFileParser(), describer=describer,
        )  # fmt: skip
    finally:
        await client.aclose()
    assert seen and seen[0]["messages"][0]["images"] == [base64.b64encode(image).decode()]
    assert fake.count("/api/chat", model=VISION, priority="2") == 1
    described = [p for p in extracted.parts if p.origin is PartOrigin.IMAGE]
    assert described
    text = extracted.part_text(described[0])
    assert "A whiteboard listing the release steps." in text
    assert "Release" in text  # the OCR text rides along


async def test_an_image_whose_text_holds_a_credential_is_sent_to_no_model(
    fake_ollama_factory: FakeFactory,
) -> None:
    fake = fake_ollama_factory("vision-secret")
    fake.replier = lambda body: "A note with a key."
    clean = text_image(["Release steps", "Tag and deploy"], size=56)
    secret = text_image(["Deploy notes", "key AKIAVXMTRGHKWNCPDLEM"], size=56)
    client = OllamaModelClient(fake.url, timeout=10)
    try:
        describer = ModelImageDescriber(client, VISION)
        extracted = [
            await extract_file(
                image,
                filename=name,
                ocr=OcrMode.AUTO,
                limits=FileLimits(),
                parser=LibraryFileParser(),
                describer=describer,
            )
            for name, image in (("secret.png", secret), ("clean.png", clean))
        ]
    finally:
        await client.aclose()
    # Only the clean image reached the model; the other says why it was not described.
    assert fake.count("/api/chat", model=VISION) == 1
    assert NOT_SENT in extracted[0].notes
    assert [p.origin for p in extracted[0].parts] == [PartOrigin.OCR]
    assert "AKIAVXMTRGHKWNCPDLEM" in extracted[0].text  # the policy handles it at ingest
    assert PartOrigin.IMAGE in [p.origin for p in extracted[1].parts]

"""Fake Ollama servers: the fake itself lives in the package (`kenning.router.demo`, where
``kenning router demo`` uses it too); tests start them with the ``fake_ollama_factory``
fixture of ``tests/conftest.py`` and script what generations answer with ``fake.script``,
``fake.replier`` and ``fake.busy_for`` (see ``kenning/router/demo/fake_replies.py``)."""

from __future__ import annotations

from collections.abc import Callable

from kenning.router.demo import FakeOllama
from kenning.router.demo.fake_replies import Replier, Reply

FakeFactory = Callable[..., FakeOllama]

__all__ = ["FakeFactory", "Replier", "Reply"]

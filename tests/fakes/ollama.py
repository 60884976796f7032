"""Fake Ollama servers: the fake itself lives in the package (`kenning.router.demo`, where
``kenning router demo`` uses it too); tests start them with the ``fake_ollama_factory``
fixture of ``tests/conftest.py``."""

from __future__ import annotations

from collections.abc import Callable

from kenning.router.demo import FakeOllama

FakeFactory = Callable[..., FakeOllama]

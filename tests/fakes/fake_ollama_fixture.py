"""Pytest fixture that starts fake Ollama servers on loopback ports and stops them after.

The fake itself lives in the package (`kenning.router.demo`), where ``kenning router demo``
uses it too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from kenning.router.demo import FakeOllama

FakeFactory = Callable[..., FakeOllama]


@pytest.fixture
def fake_ollama_factory() -> Iterator[FakeFactory]:
    """Start fakes on demand: ``gpu = fake_ollama_factory("gpu0", load_time=0.1)``."""
    started: list[FakeOllama] = []

    def make(name: str = "fake", **config: Any) -> FakeOllama:
        fake = FakeOllama(name, **config)
        fake.start()
        started.append(fake)
        return fake

    yield make
    for fake in started:
        fake.stop()

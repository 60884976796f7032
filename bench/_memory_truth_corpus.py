"""The memory truth benchmark's synthetic organisation: which facts are written, and when.

Each service has six relations (``RELATIONS``, declared ONE by ``bench.memory_truth``), each a
``Fact``: its ``Note`` values oldest first, and the order they are written in. ``facts`` draws
them deterministically from a seed: half change once or twice, a tenth of those arrive out of
order (a backfill). A ``Note`` knows its source URN, its relationship line and its content.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

RELATIONS = {
    "database": ("postgres", "mysql", "oracle", "mongodb", "sqlite", "cockroach"),
    "owner": ("payments", "platform", "growth", "identity", "data", "search"),
    "region": ("eu-west", "eu-central", "us-east", "us-west", "ap-south", "ap-east"),
    "queue": ("kafka", "rabbitmq", "sqs", "nats", "pulsar", "redis-streams"),
    "cache": ("redis", "memcached", "varnish", "hazelcast", "none", "caffeine"),
    "runtime": ("jvm", "python", "go", "node", "rust", "dotnet"),
}
START = datetime(2023, 1, 1, tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class Note:
    """One assertion of one fact: the service's relation has ``value`` from ``at``."""

    service: str
    relation: str
    value: str
    at: datetime
    version: int

    @property
    def urn(self) -> str:
        return f"note:{self.service}:{self.relation}:{self.version}"

    @property
    def line(self) -> str:
        return f"{self.service}|{self.relation}|{self.relation}:{self.value}"

    @property
    def content(self) -> str:
        said = f"{self.service.split(':')[1]} {self.relation} is {self.value}"
        return f"Configuration note: {said}.\n\n{self.line}"


@dataclass(frozen=True, slots=True)
class Fact:
    """A (service, relation) and its notes, oldest first; ``order`` is how they are written."""

    notes: tuple[Note, ...]
    order: tuple[Note, ...]

    @property
    def current(self) -> Note:
        return self.notes[-1]


def facts(entities: int, seed: int = 37) -> list[Fact]:
    """Deterministic facts: half change once or twice, a tenth of those written backwards."""
    rng = random.Random(seed)
    found = []
    for n in range(entities):
        service = f"service:s{n:03d}"
        for relation, values in RELATIONS.items():
            changes = rng.choice((0, 0, 1, 2))
            picked = rng.sample(values, changes + 1)
            times = [START + timedelta(days=d) for d in sorted(rng.sample(range(900), len(picked)))]
            notes = tuple(Note(service, relation, v, t, k)
                          for k, (v, t) in enumerate(zip(picked, times, strict=True)))  # fmt: skip
            backfill = changes > 0 and rng.random() < 0.1
            found.append(Fact(notes, tuple(reversed(notes)) if backfill else notes))
    return found

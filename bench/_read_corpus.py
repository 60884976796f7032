"""The synthetic read corpus: scopes, node keys, chunk rows and queries, all deterministic.

Ten clients share one key space (``service:billing-17`` exists in every client, as common
names do across tenants), so a key lookup meets other clients' vertices and the scope
predicate has work to do. Within a client, rows spread over seven scopes (``SLOTS``): the
client itself, two groups and four projects. The benchmark reads as project ``p0`` of group
``g0`` of the first client, which sees the client-wide rows, both ``g0`` projects and the
group itself (4 of 7 slots) plus the global chunks: about 7.6 % of the chunks and 5.7 % of
the vertices.

Every vertex ``j`` of a client lives in slot ``j % 7``; vertex ``j`` and ``j + shift`` carry
the same key in two different slots (a node known at two scopes, merged on read). Chunk
text is engineering prose from word lists plus component code names drawn from a Zipf
distribution over 4,000 names, so full-text queries match from a handful to thousands of
chunks, as on a real tracker.
"""

from __future__ import annotations

import bisect
import hashlib
import itertools
import json
import random
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass

import numpy as np

from kenning.domain.access.scope import ProjectGroups, Scope
from kenning.domain.ingestion.node_keys import parse_key
from kenning.storage.embedders.words import words_vector

VERSION = 3  # bump when anything below changes what is stored (3: edges carry validFrom)
SLOTS = (("", ""), ("", "g0"), ("", "g1"), ("p0", "g0"), ("p1", "g0"), ("p2", "g1"), ("p3", "g1"))
READER = Scope("client-00", "p0", "g0")
GLOBAL_EVERY = 50  # one chunk in 50 of every client's share is global
EDGE_TYPES = ("affects", "depends_on", "modifies", "related_to", "blocks", "owned_by", "calls")
CHUNK_COLUMNS = (
    "id", "source_urn", "ordinal", "kind", "client_id", "project_id", "group_id", "content",
    "embedding", "graph_refs", "knowledge_type", "info_type", "tags", "source_kind",
    "connection_id", "external_id", "revision", "content_hash", "metadata",
)  # fmt: skip

_NAMES = (
    "alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy",
    "mallory", "niaj", "olivia", "peggy", "rupert", "sybil", "trent", "victor", "walter", "zoe",
)  # fmt: skip
_SERVICES = (
    "billing", "auth", "search", "ledger", "gateway", "notifications", "catalog", "checkout",
    "inventory", "reporting", "scheduler", "ingest", "profile", "payments", "audit",
)  # fmt: skip
_DIRS = ("auth", "billing", "search", "core", "api", "storage", "jobs", "web", "sync")
_PROJECTS = ("pay", "ops", "ken", "web")
_KINDS = ("jira_issue", "git_commit", "design_note", "chat_message")
_SUBJECTS = (
    "the retry loop", "the nightly export", "the cache layer", "the session handler",
    "this migration", "the background worker", "the query planner", "the rate limiter",
    "the connection pool", "the webhook consumer", "the index rebuild", "the health probe",
)  # fmt: skip
_VERBS = (
    "drops", "delays", "duplicates", "reorders", "retries", "rejects", "caches", "batches",
    "blocks", "serializes", "skips", "times out on", "double counts", "truncates",
)  # fmt: skip
_OBJECTS = (
    "pending invoices", "stale sessions", "large payloads", "partial updates",
    "concurrent writes", "expired entries", "out of order events", "empty batches",
    "slow responses", "unicode file names", "cross region calls", "archived records",
)  # fmt: skip
_CONDITIONS = (
    "under load", "after a deploy", "when the replica lags", "during the nightly window",
    "on cold start", "if the queue backs up", "for tenants with many projects",
    "when two requests race", "after a failover", "on the first request of the day",
)  # fmt: skip
_ACTIONS = (
    "add a bounded backoff", "move the check before the write", "split the batch in two",
    "log the request id", "index the lookup column", "keep the old path behind a flag",
    "add an integration test", "document the ordering rule", "cap the page size",
)  # fmt: skip
_OUTCOMES = (
    "p95 latency went down by a third", "the error rate is back to baseline",
    "nothing changed for small tenants", "memory use is flat over a week",
)  # fmt: skip
_ONSETS = ("b", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "br", "kr", "st")
_VOWELS = ("a", "e", "i", "o", "u", "ai", "ou")
_CODAS = ("", "", "n", "r", "l", "x", "s", "m")
_CODE_NAMES = 4000


@dataclass(frozen=True, slots=True)
class Spec:
    """What the benchmark database holds; stored with it to decide whether to reuse it."""

    chunks: int = 100_000
    vertices: int = 100_000
    edges_per_vertex: int = 5
    clients: int = 10
    dim: int = 384
    seed: int = 20261122
    version: int = VERSION

    def __post_init__(self) -> None:
        if self.vertices % self.clients or self.vertices // self.clients < 7 * 12:
            raise ValueError("vertices must be a multiple of clients, at least 84 per client")
        if self.chunks < 7 * self.clients * 4:
            raise ValueError("too few chunks for the scopes")

    @property
    def edges(self) -> int:
        return self.vertices * self.edges_per_vertex

    @property
    def per_client(self) -> int:
        return self.vertices // self.clients

    @property
    def shift(self) -> int:
        """Vertex ``j`` and ``j + shift`` of a client share a key (in different slots)."""
        shift = self.per_client // 2 + 1
        while shift % len(SLOTS) == 0:
            shift += 1
        return shift

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)


def client_name(index: int) -> str:
    return f"client-{index:02d}"


def node_key(k: int) -> str:
    """The ``k``-th key of the shared key space (already normalized and canonical)."""
    kind = k % 6
    if kind == 0:
        return f"user:{_NAMES[k % len(_NAMES)]}-{k}"
    if kind == 1:
        return f"service:{_SERVICES[k % len(_SERVICES)]}-{k}"
    if kind == 2:
        return f"file:src/{_DIRS[k % len(_DIRS)]}/module{k}.py"
    if kind == 3:
        return f"jira:{_PROJECTS[k % len(_PROJECTS)]}-{k}"
    if kind == 4:
        return f"commit:{hashlib.sha1(str(k).encode()).hexdigest()[:10]}"
    return f"doc:adr-{k:05d}"


def node_keys(spec: Spec) -> list[str]:
    """Every key of the key space, checked to be what ``parse_key`` makes of it."""
    keys = [node_key(k) for k in range(spec.shift)]
    for key in keys:
        if parse_key(key).key != key:
            raise AssertionError(f"{key!r} is not canonical")
    return keys


def key_index(spec: Spec, j: int) -> int:
    """The key of vertex ``j`` of a client."""
    return j if j < spec.shift else j - spec.shift


def chunk_id(n: int) -> str:
    """Chunk ``n``'s id (the same text as ``md5('bench-read-' || n)`` in SQL)."""
    return hashlib.md5(f"bench-read-{n}".encode()).hexdigest()


def chunk_scope(spec: Spec, n: int) -> tuple[str, int]:
    """(client, slot) of chunk ``n``; client ``""`` is global."""
    turn = n // spec.clients
    if turn % GLOBAL_EVERY == 0:
        return "", 0
    return client_name(n % spec.clients), turn % len(SLOTS)


class _Words:
    """Code names and their Zipf weights, shared by chunk text and queries."""

    def __init__(self, seed: int) -> None:
        rng = random.Random(seed)
        names: dict[str, None] = {}
        while len(names) < _CODE_NAMES:
            syllables = rng.choice((2, 2, 3))
            word = "".join(rng.choice(_ONSETS) + rng.choice(_VOWELS) for _ in range(syllables))
            names[word + rng.choice(_CODAS)] = None
        self.names = list(names)
        self.cumulative = list(itertools.accumulate(1 / (r + 1) for r in range(_CODE_NAMES)))

    def pick(self, rng: random.Random, count: int, *, skip_top: int = 0) -> list[str]:
        start = self.cumulative[skip_top - 1] if skip_top else 0.0
        points = [start + rng.random() * (self.cumulative[-1] - start) for _ in range(count)]
        last = _CODE_NAMES - 1
        return [self.names[min(bisect.bisect_left(self.cumulative, p), last)] for p in points]


def _sentence(rng: random.Random) -> str:
    return (
        f"{rng.choice(_SUBJECTS).capitalize()} {rng.choice(_VERBS)} {rng.choice(_OBJECTS)} "
        f"{rng.choice(_CONDITIONS)}."
    )


def _content(rng: random.Random, words: _Words, refs: Sequence[str]) -> str:
    first, second = rng.sample(_ACTIONS, 2)
    parts = [_sentence(rng) for _ in range(rng.randint(3, 6))]
    parts.append(f"We should {first} and {second}.")
    parts.append(f"After the change {rng.choice(_OUTCOMES)}.")
    rng.shuffle(parts)
    names = words.pick(rng, rng.randint(3, 6))
    parts.append(f"Components: {', '.join(names)}.")
    parts.append(f"The problem shows up in {' and '.join(refs)} {rng.choice(_CONDITIONS)}.")
    return " ".join(parts)


def chunk_rows(spec: Spec, keys: Sequence[str], start: int, stop: int) -> list[tuple[object, ...]]:
    """Rows of chunks ``start..stop-1`` in ``CHUNK_COLUMNS`` order, vectors from the words
    embedder (as a server configured with it would store them: texts sharing words lie
    near each other, as with a real model; the hash embedder's unrelated vectors would
    leave an approximate index nothing to navigate by)."""
    words = _Words(spec.seed)
    rows: list[tuple[object, ...]] = []
    for n in range(start, stop):
        rng = random.Random(spec.seed * 1_000_003 + n)
        client, slot = chunk_scope(spec, n)
        groups = (spec.per_client - slot + len(SLOTS) - 1) // len(SLOTS)
        vertices = [len(SLOTS) * rng.randrange(groups) + slot for _ in range(rng.randint(2, 4))]
        refs = sorted({keys[key_index(spec, j)] for j in vertices})
        content = _content(rng, words, refs)
        kind = _KINDS[n % len(_KINDS)]
        project, group = SLOTS[slot] if client else ("", "")
        rows.append(
            (
                chunk_id(n), f"bench-read:{kind}/{n // 2}", n % 2, kind, client, project,
                group, content, np.asarray(words_vector(content, spec.dim), dtype=np.float32),
                refs, "FACT" if n % 5 == 0 else None, None, ["bench"] if n % 3 == 0 else [],
                kind, None, None, None, hashlib.sha256(content.encode()).hexdigest(), "{}",
            )
        )  # fmt: skip
    return rows


def search_queries(spec: Spec, count: int, *, salt: int) -> list[str]:
    """Agent-style queries: half code names only, half a sentence with a code name."""
    words = _Words(spec.seed)
    rng = random.Random(spec.seed + 7919 * salt)
    queries = []
    for index in range(count):
        if index % 2 == 0:
            queries.append(" ".join(words.pick(rng, rng.randint(2, 3), skip_top=10)))
        else:
            [name] = words.pick(rng, 1, skip_top=10)
            subject, verb, thing = rng.choice(_SUBJECTS), rng.choice(_VERBS), rng.choice(_OBJECTS)
            queries.append(f"why does {subject} in {name} {verb} {thing}")
    return queries


def visible_start_keys(spec: Spec, keys: Sequence[str]) -> list[str]:
    """Distinct keys of vertices the reader sees, in a fixed shuffled order."""
    row = READER.client_id
    groups = ProjectGroups.stamped(Scope(row, p, g) for p, g in SLOTS)
    visible = {i for i, (p, g) in enumerate(SLOTS) if READER.can_see(Scope(row, p, g), groups)}
    found = {keys[key_index(spec, j)] for j in range(spec.per_client) if j % len(SLOTS) in visible}
    ordered = sorted(found)
    random.Random(spec.seed).shuffle(ordered)
    return ordered


def batches(total: int, size: int) -> Iterator[tuple[int, int]]:
    """(start, stop) pairs covering ``range(total)``."""
    for start in range(0, total, size):
        yield start, min(start + size, total)

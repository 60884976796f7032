"""A deterministic synthetic corpus of engineering documents for the ingest benchmark.

Tickets, commits and design notes of about 1,500 characters: a title, paragraphs of
English-like prose assembled from word lists, 5-10 node references drawn from one shared
pool (popular entities are mentioned by many documents, as in a real tracker), and
relationships in the four formats Kenning reads: pipe ``a|REL|b`` and arrow ``a->REL->b``
lines, a bracket ``a -[REL]-> b`` line and a ``relationships: [...]`` block, often in the
main node's short-hand (``PAY-12|AFFECTS|service:billing``). Nothing here looks like a
credential, so the secret check lets every document through.

Example: ``documents(3)[0].main_node_key`` → ``"jira:PAY-1000"``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

TARGET_LENGTH = 1500
TICKETS = 700  # fixed, so the first n documents are the same whatever the count

_USERS = (
    "alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy",
    "mallory", "niaj", "olivia", "peggy", "rupert", "sybil", "trent", "victor", "walter",
    "yvonne", "zoe", "aaron", "bianca", "chen", "dmitri", "esme", "farid", "greta", "hiro",
    "ines", "jonas", "kira", "lars", "mina", "noor", "oskar", "priya", "quinn", "rosa", "sven",
)  # fmt: skip
_SERVICES = (
    "billing", "auth", "search", "ledger", "gateway", "notifications", "catalog", "checkout",
    "inventory", "reporting", "scheduler", "ingest", "profile", "payments", "audit",
    "shipping", "pricing", "webhooks", "exports", "identity",
)  # fmt: skip
_DIRECTORIES = ("auth", "billing", "search", "core", "api", "storage", "jobs", "web", "sync")
_CLASSES = (
    "Login", "Session", "Invoice", "Retry", "Cache", "Query", "Index", "Router", "Client",
    "Mapper", "Validator", "Scheduler", "Worker", "Exporter", "Parser", "Handler",
)  # fmt: skip
_ROLES = ("Controller", "Service", "Repository", "Factory", "Policy", "Store")
_EXTENSIONS = ("kt", "py", "ts", "go")
_PROJECTS = ("PAY", "OPS", "KEN", "WEB")
_HEX = "0123456789abcdef"

_SUBJECTS = (
    "the retry loop", "the nightly export", "the cache layer", "the session handler",
    "this migration", "the background worker", "the query planner", "the rate limiter",
    "the connection pool", "the webhook consumer", "the index rebuild", "the health probe",
    "the request router", "the audit trail", "the schema check", "the feature flag",
)  # fmt: skip
_VERBS = (
    "drops", "delays", "duplicates", "reorders", "retries", "rejects", "caches", "batches",
    "logs", "blocks", "serializes", "skips", "times out on", "double counts", "truncates",
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
    "make the handler idempotent", "measure the tail latency", "drop the unused column",
)  # fmt: skip
_OUTCOMES = (
    "p95 latency went down by a third", "the error rate is back to baseline",
    "nothing changed for small tenants", "memory use is flat over a week",
    "the flaky test passes a hundred runs in a row", "the dashboard shows fewer retries",
)  # fmt: skip
_TITLES = (
    "Retry storm after deploy", "Slow search on large tenants", "Duplicate invoices",
    "Session expiry too early", "Export job misses records", "Cache stampede at midnight",
    "Webhook ordering", "Flaky checkout test", "Index rebuild blocks writes",
    "Rate limiter too strict", "Audit events lost on failover", "Schema drift in reports",
)  # fmt: skip
_EDGES = ("AFFECTS", "DEPENDS_ON", "MODIFIES", "RELATED_TO", "BLOCKS", "OWNED_BY", "CALLS")
_KINDS = ("jira_issue", "git_commit", "design_note")


@dataclass(frozen=True, slots=True)
class Document:
    """One document to ingest: what the ``ingest`` mutation needs."""

    source_urn: str
    kind: str
    main_node_key: str
    content: str


class _Pool:
    """The shared entities; earlier ones are picked more often (a Zipf-like skew)."""

    def __init__(self, rng: random.Random, tickets: int) -> None:
        files = [
            f"src/{d}/{c}{r}.{e}"
            for d in _DIRECTORIES
            for c in _CLASSES
            for r, e in zip(_ROLES, _EXTENSIONS * 2, strict=False)
        ]
        rng.shuffle(files)
        self.kinds: dict[str, list[str]] = {
            "user": list(_USERS),
            "service": list(_SERVICES),
            "file": files[:240],
            "jira": [f"{_PROJECTS[i % len(_PROJECTS)]}-{1000 + i}" for i in range(tickets)],
        }
        self.weights = {
            kind: [1 / (rank + 1) ** 0.9 for rank in range(len(values))]
            for kind, values in self.kinds.items()
        }

    def pick(self, rng: random.Random, kind: str) -> str:
        return f"{kind}:{rng.choices(self.kinds[kind], self.weights[kind])[0]}"


def documents(count: int, *, seed: int = 20261121) -> list[Document]:
    """``count`` documents; the first ``n`` are the same for any ``count >= n`` (same seed)."""
    rng = random.Random(seed)
    pool = _Pool(rng, tickets=TICKETS)
    return [_document(rng, pool, index) for index in range(count)]


def _document(rng: random.Random, pool: _Pool, index: int) -> Document:
    kind = _KINDS[index % len(_KINDS)]
    if kind == "jira_issue":
        short = f"{_PROJECTS[index % len(_PROJECTS)]}-{1000 + index // 3}"
        main, urn, title = f"jira:{short}", f"jira:{short}", f"# {short}: {rng.choice(_TITLES)}"
    elif kind == "git_commit":
        short = "".join(rng.choice(_HEX) for _ in range(10))
        main, urn = f"commit:{short}", f"git:bench/commit/{short}"
        title = f"commit {short}\n\n{rng.choice(_TITLES)} ({rng.choice(_ACTIONS)})"
    else:
        short = f"adr-{index:05d}"
        main, urn, title = f"doc:{short}", f"doc:{short}", f"# {short}: {rng.choice(_TITLES)}"
    refs = _references(rng, pool, main, rng.randint(5, 10))
    head = [title, f"Reported by {refs[0]} and reviewed by {refs[1]}."]
    tail = [_relationship_lines(rng, main, short, refs), _relationship_block(rng, short, refs)]
    prose = refs[2:]
    body = [_paragraph(rng, prose[i : i + 2]) for i in range(0, len(prose), 2)]
    while len("\n\n".join(head + body + tail)) < TARGET_LENGTH - 150:
        body.insert(rng.randrange(len(body) + 1), _paragraph(rng, []))
    return Document(urn, kind, main, "\n\n".join(head + body + tail) + "\n")


def _references(rng: random.Random, pool: _Pool, main: str, count: int) -> list[str]:
    """``count`` distinct keys: two people, then services, files and tickets."""
    picked: list[str] = []
    plan = ["user", "user", *rng.choices(["service", "file", "jira"], [3, 4, 2], k=count - 2)]
    for kind in plan:
        for _ in range(20):  # bounded: a few retries to avoid repeats, then accept fewer
            key = pool.pick(rng, kind)
            if key not in picked and key != main:
                picked.append(key)
                break
    return picked


def _paragraph(rng: random.Random, mentions: list[str]) -> str:
    first, second = rng.sample(_ACTIONS, 2)
    sentences = [
        f"{rng.choice(_SUBJECTS).capitalize()} {rng.choice(_VERBS)} {rng.choice(_OBJECTS)} "
        f"{rng.choice(_CONDITIONS)}.",
        f"We should {first} and {second}.",
    ]
    if not mentions:
        sentences.append(f"After the change {rng.choice(_OUTCOMES)}.")
    sentences += [f"The problem shows up in {m} {rng.choice(_CONDITIONS)}." for m in mentions]
    rng.shuffle(sentences)
    return " ".join(sentences)


def _relationship_lines(rng: random.Random, main: str, short: str, refs: list[str]) -> str:
    """Pipe and arrow lines (short-hand and full keys) and a bracket line between two
    other entities, as authors write them."""
    a, b, c = rng.sample(refs[2:], 3) if len(refs) >= 5 else (refs[0], refs[1], refs[0])
    return "\n".join(
        (
            "Links:",
            f"{short}|{rng.choice(_EDGES)}|{a}",
            f"{main} -> {rng.choice(_EDGES)} -> {b}",
            f"{b} -[{rng.choice(_EDGES)}]-> {c}",
        )
    )


def _relationship_block(rng: random.Random, short: str, refs: list[str]) -> str:
    items = [f'  "{short}|ASSIGNED_TO|{refs[0]}"', f'  "{short}|REVIEWED_BY|{refs[1]}"']
    items += [f'  "{short}|{rng.choice(_EDGES)}|{ref}"' for ref in rng.sample(refs[2:], 2)]
    return "relationships: [\n" + ",\n".join(items) + "\n]"

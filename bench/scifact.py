"""BEIR SciFact as the relevance benchmark reads it: documents, test queries, judgments.

Follows ``../shared/data/scifact/SOURCE.md``: a document is ``title`` + ``text``; a query is
its ``text`` only (its ``metadata`` holds the gold evidence and never leaves this module);
only the 300 queries of ``qrels/test.tsv`` are evaluated, and that file ends lines in CRLF.
"""

from __future__ import annotations

import json
import random
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "scifact"
CORPUS_SIZE = 5183
TEST_QUERIES = 300
QUICK_QUERIES = 50
QUICK_DOCS = 800
QUICK_SEED = 15


@dataclass(frozen=True, slots=True)
class Doc:
    """One abstract: its id (the source URN) and the content sent to ``ingest``."""

    id: str
    content: str


@dataclass(frozen=True, slots=True)
class Query:
    """One test claim: id and text, nothing else."""

    id: str
    text: str


def load_docs(data: Path = DATA) -> list[Doc]:
    """Every document, title and abstract separated by a blank line, in file order."""
    docs = []
    with (data / "corpus.jsonl").open(encoding="utf-8") as lines:
        for line in lines:
            row = json.loads(line)
            docs.append(Doc(row["_id"], f"{row['title'].strip()}\n\n{row['text'].strip()}"))
    if len(docs) != CORPUS_SIZE:
        raise SystemExit(f"expected {CORPUS_SIZE} SciFact documents, read {len(docs)}")
    return docs


def load_qrels(data: Path = DATA) -> dict[str, set[str]]:
    """Relevant document ids per test query id (every judgment is a 1)."""
    qrels: dict[str, set[str]] = defaultdict(set)
    with (data / "qrels" / "test.tsv").open(encoding="utf-8", newline="") as lines:
        header = next(lines).rstrip("\r\n").split("\t")
        if header != ["query-id", "corpus-id", "score"]:
            raise SystemExit(f"unexpected qrels header {header}")
        for line in lines:
            query_id, doc_id, score = line.rstrip("\r\n").split("\t")
            if int(score) > 0:
                qrels[query_id].add(doc_id)
    if len(qrels) != TEST_QUERIES:
        raise SystemExit(f"expected {TEST_QUERIES} judged test queries, read {len(qrels)}")
    return dict(qrels)


def load_test_queries(qrels: dict[str, set[str]], data: Path = DATA) -> list[Query]:
    """The judged queries, text only, in file order."""
    queries = []
    with (data / "queries.jsonl").open(encoding="utf-8") as lines:
        for line in lines:
            row = json.loads(line)
            if row["_id"] in qrels:
                queries.append(Query(row["_id"], row["text"]))
    if len(queries) != len(qrels):
        raise SystemExit(f"{len(qrels) - len(queries)} judged queries are missing their text")
    return queries


def quick_subset(
    docs: list[Doc], qrels: dict[str, set[str]], queries: list[Query]
) -> tuple[list[Doc], list[Query]]:
    """The first ``QUICK_QUERIES`` test queries and ``QUICK_DOCS`` documents: every one judged
    relevant to those queries plus a fixed random sample (seed ``QUICK_SEED``) of the others,
    in file order. A smaller corpus has fewer distractors, so its figures run higher than the
    full set's and only compare with other quick runs."""
    chosen = queries[:QUICK_QUERIES]
    relevant = set().union(*(qrels[q.id] for q in chosen))
    others = sorted(doc.id for doc in docs if doc.id not in relevant)
    sample = random.Random(QUICK_SEED).sample(others, QUICK_DOCS - len(relevant))
    kept = relevant.union(sample)
    return [doc for doc in docs if doc.id in kept], chosen

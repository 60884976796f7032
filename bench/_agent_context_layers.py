"""The reader's memory layers for the agentContext benchmark (``bench.agent_context``): hard
rules, user knowledge (one chunk per item), session entries and procedures, added for a run
and removed again after it, so ``bench.read`` still reuses its corpus."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

import asyncpg

from bench._read_corpus import READER
from kenning.domain.ingestion.secrets.scan import SecretPolicy
from kenning.domain.memory.procedures import (
    ProcedureDraft,
    ProcedureSource,
    ProcedureStep,
    embedding_text,
)
from kenning.domain.memory.rules import RuleDraft, RuleType
from kenning.domain.memory.session import SessionDraft, SessionSource, new_entry
from kenning.domain.memory.user_knowledge import USER_KNOWLEDGE_KINDS
from kenning.settings import Settings
from kenning.storage.embedders.factory import create_embedder
from kenning.storage.memory.procedures import PgProcedureStore
from kenning.storage.memory.rules import PgRuleStore
from kenning.storage.memory.session_entries import PgSessionStore

KEY_LABEL = "bench-agent-context"
KNOWLEDGE_ID = "bench-uk-"  # the chunks this run adds, and removes again


async def forget(pool: asyncpg.Pool) -> None:
    """Remove what a run added (the corpus's row counts decide whether it is reused)."""
    await pool.execute("DELETE FROM chunks WHERE id LIKE $1", f"{KNOWLEDGE_ID}%")
    for table in ("session_entries", "procedures", "hard_rules"):
        await pool.execute(f"DELETE FROM {table} WHERE client_id = $1", READER.client_id)
    await pool.execute("DELETE FROM api_keys WHERE label = $1", KEY_LABEL)


async def remember(pool: asyncpg.Pool, settings: Settings, triggers: Sequence[str]) -> None:
    """The reader's other layers: rules, user knowledge, session entries, procedures."""
    client, project = READER.client_id, READER.project_id
    rules = PgRuleStore(pool)
    for n in range(10):
        await rules.store(
            RuleDraft(
                client,
                "" if n % 2 else project,
                f"rule-{n}",
                RuleType.PROCESSING,
                f"Rule {n}: always do step {n}.",
                "",
                "bench",
            )
        )
    await pool.execute(
        """INSERT INTO chunks (id, source_urn, ordinal, kind, client_id, project_id, group_id,
                               content, embedding, content_hash, info_type, metadata)
           SELECT $1 || n, 'user-knowledge:bench:' || n, 0, ($2::text[])[1 + n % 6], $3,
                  CASE WHEN n % 2 = 0 THEN $4 ELSE '' END, '',
                  'What is known about subject ' || n || ': a short fact.',
                  array_fill(0.1::real, ARRAY[$5::int])::vector, md5(n::text), 'user_profile',
                  jsonb_build_object('subject', 'subject ' || n)
           FROM generate_series(0, 59) AS n""",
        KNOWLEDGE_ID,
        list(USER_KNOWLEDGE_KINDS),
        client,
        project,
        settings.embedding_dim,
    )
    sessions = PgSessionStore(pool)
    for n in range(20):
        said = SessionDraft(SessionSource.CHAT, f"Looked at item {n}.", {"n": n})
        entry = new_entry(said, READER, "bench", SecretPolicy.REJECT)
        await sessions.append(entry, timedelta(days=7), 50)
    procedures, embedder = PgProcedureStore(pool), create_embedder(settings)
    for n, trigger in enumerate([*triggers, *(f"recurring task {n}" for n in range(15))]):
        draft = ProcedureDraft(
            trigger, f"How task {n} is done.", [ProcedureStep("coder", "run_tests", {})], _source(n)
        )
        [vector] = await embedder.embed([embedding_text(draft)])
        await procedures.save(client, draft, vector, "bench")


def _source(n: int) -> ProcedureSource:
    return ProcedureSource.USER_DEFINED if n % 3 == 0 else ProcedureSource.LEARNED

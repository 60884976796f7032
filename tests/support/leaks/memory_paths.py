"""Every memory read path the leak audit reads, as ``(alias, field)`` scoped by ``$s``: the
alias before its first ``_`` names the check (``MemoryTruth._<path>`` in
tests/integration/access/test_memory_leaks.py), the rest its argument."""

from __future__ import annotations

from collections.abc import Iterator

from tests.support.leaks.corpus import PROJECTS
from tests.support.leaks.memory import KNOWLEDGE as KNOWLEDGE_ITEMS
from tests.support.leaks.memory import RULE_KEYS, TRIGGERS
from tests.support.leaks.memory_rows import MemoryRows

S = "fragment S on ScopeInfo { clientId projectId groupId }"
RULE = "{ ruleKey projectId version content description createdBy }"
HISTORY_PAGE = 50  # ruleHistory's largest page: every version the corpus stores
KNOWLEDGE = "{ markdown categories { category items { subject content scope { ...S } } } }"
PROCEDURE = "{ exactMatch procedure { id triggerPattern description source createdBy steps { parameters } } }"  # noqa: E501
CHANGE = "itemKind itemId itemKey action old new"
MEMORY_KINDS = ("task_outcome", "session_entry", "user_knowledge_preference", "user_knowledge_team")


def memory_fields() -> Iterator[tuple[str, str]]:
    """``(alias, field)`` for every memory read path, scoped by ``$s``."""
    yield "userContext_all", f"userContext(limitPerCategory: 500, scope: $s) {KNOWLEDGE}"
    yield "userContext_one", f"userContext(limitPerCategory: 1, scope: $s) {KNOWLEDGE}"
    yield (
        "sessionMemory",
        ("sessionMemory(limit: 50, scope: $s) { summary details taskId createdBy createdAt }"),
    )
    for i, trigger in enumerate(TRIGGERS):
        yield (
            f"procedures_{i}",
            f'procedures(triggerPattern: "{trigger}", limit: 50, scope: $s) {PROCEDURE}',
        )
    yield "procedures_query", f'procedures(query: "steps ledger", limit: 50, scope: $s) {PROCEDURE}'
    for project in (None, "", *PROJECTS):
        arg = "null" if project is None else f'"{project}"'
        yield f"rules_{project}", f"rules(projectId: {arg}, scope: $s) {RULE}"
        for i, key in enumerate(RULE_KEYS):
            yield (
                f"ruleHistory_{project}_{i}",
                (
                    f'ruleHistory(ruleKey: "{key}", projectId: {arg}, first: {HISTORY_PAGE}, '
                    f"scope: $s) {{ nodes {RULE} hasNextPage }}"
                ),
            )
    for i, (category, subject) in enumerate(KNOWLEDGE_ITEMS):
        yield (
            f"knowledgeHistory_{i}",
            (
                f'knowledgeHistory(category: {category}, subject: "{subject}", first: 50, '
                "scope: $s) { nodes { category subject content version scope { ...S } } }"
            ),
        )
    yield "changes", f"changes(first: 50, scope: $s) {{ nodes {{ {CHANGE} }} }}"
    for kind in MEMORY_KINDS:
        yield (
            f"chunksByKind_{kind}",
            (
                f'chunksByKind(kind: "{kind}", limit: 100, scope: $s) '
                "{ __typename id kind content sourceUrn scope { ...S } }"
            ),
        )


def procedure_histories(rows: MemoryRows) -> Iterator[tuple[str, str]]:
    """``procedureHistory`` of every stored procedure, by its index in ``rows``."""
    for i, row in enumerate(rows.procedures):
        yield (
            f"procedureHistory_{i}",
            f'procedureHistory(id: "{row["id"]}", first: 50, scope: $s) '
            "{ nodes { version description } }",
        )


def document(field: str) -> str:
    # GraphQL rejects an unused fragment.
    return f"query($s: ScopeInput) {{ {field} }}" + (f"\n{S}" if "...S" in field else "")

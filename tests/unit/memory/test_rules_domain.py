"""Hard rules' domain: validation, who may write, versions, and a project overriding its client."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from kenning.domain.access.principal import Role
from kenning.domain.access.scope import Scope
from kenning.domain.errors import NotFoundError, ScopeError, ValidationError
from kenning.domain.ingestion.secrets.findings import SensitiveContentError
from kenning.domain.memory.rules import (
    MAX_CONTENT,
    MAX_KEY,
    HardRule,
    RuleType,
    active_rules,
    check_rule_key,
    delete_rule,
    effective_rules,
    rule_history,
    rule_scope,
    store_rule,
)
from tests.support.memory_rules import FakeRuleStore, RecordedGroups, caller

ACME = caller("acme")
SECRET = "AKIAIOSFODNN7EXAMPLF"


async def _store(store: FakeRuleStore, key: str, content: str, project: str = "") -> None:
    await store_rule(ACME, Scope("acme", project), key, RuleType.ROUTING, (content, "why"), store)


def _rule(key: str, project: str, content: str) -> HardRule:
    return HardRule(
        "acme", project, key, 1, RuleType.CUSTOM, content, "", "k", datetime.now(UTC), None, None
    )


@pytest.mark.parametrize("key", ["", " lead", "trail ", "a\nb", "x" * (MAX_KEY + 1)])
def test_a_rule_key_must_be_short_printable_and_trimmed(key: str) -> None:
    with pytest.raises(ValidationError) as error:
        check_rule_key(key)
    assert error.value.field == "ruleKey"


def test_a_good_rule_key_passes_unchanged() -> None:
    assert check_rule_key("deploy.approval:prod") == "deploy.approval:prod"


@pytest.mark.parametrize(
    ("content", "description", "field"),
    [("", "", "content"), ("   ", "", "content"), ("x" * (MAX_CONTENT + 1), "", "content"),
     ("ok", "d" * 2001, "description")],
)  # fmt: skip
async def test_content_and_description_have_limits(
    content: str, description: str, field: str
) -> None:
    store = FakeRuleStore()
    with pytest.raises(ValidationError) as error:
        await store_rule(ACME, Scope("acme"), "k", RuleType.CUSTOM, (content, description), store)
    assert error.value.field == field
    assert store.rows == []


@pytest.mark.parametrize("field", ["content", "description"])
async def test_credentials_are_refused_and_name_their_field(field: str) -> None:
    store = FakeRuleStore()
    texts = (f"use {SECRET}", "d") if field == "content" else ("ok", f"key {SECRET}")
    with pytest.raises(SensitiveContentError) as error:
        await store_rule(ACME, Scope("acme"), "k", RuleType.SECURITY, texts, store)
    assert error.value.field == field
    assert store.rows == []


async def test_storing_again_makes_the_next_version_and_supersedes_the_current() -> None:
    store = FakeRuleStore()
    await _store(store, "route", "to ops")
    await _store(store, "route", "to dev")
    page = await rule_history(Scope("acme"), Scope("acme"), "route", store, RecordedGroups())
    history = page.rules
    assert [(r.version, r.content) for r in history] == [(2, "to dev"), (1, "to ops")]
    assert not page.has_next_page
    assert history[0].superseded_at is None
    assert history[1].superseded_at == history[0].created_at
    assert {r.created_by for r in history} == {ACME.key_id}


async def test_ui_keys_and_keys_outside_the_target_may_not_write() -> None:
    store = FakeRuleStore()
    viewer = caller("acme", role=Role.UI)
    with pytest.raises(ScopeError):
        await store_rule(viewer, Scope("acme"), "k", RuleType.CUSTOM, ("c", ""), store)
    project_key = caller("acme", "web")
    with pytest.raises(ScopeError):  # a project key does not own the client-wide rules
        await store_rule(project_key, Scope("acme"), "k", RuleType.CUSTOM, ("c", ""), store)
    with pytest.raises(ScopeError):
        await delete_rule(viewer, Scope("acme"), "k", store)
    assert store.rows == []


async def test_deleting_marks_the_current_version_and_twice_is_not_found() -> None:
    store = FakeRuleStore()
    await _store(store, "route", "to ops")
    deleted = await delete_rule(ACME, Scope("acme"), "route", store)
    assert deleted.version == 1 and deleted.deleted_at is not None
    assert await active_rules(Scope("acme"), Scope("acme"), store, RecordedGroups()) == []
    with pytest.raises(NotFoundError) as error:
        await delete_rule(ACME, Scope("acme"), "route", store)
    assert error.value.field == "ruleKey"


async def test_a_project_rule_overrides_the_client_rule_of_its_key_only() -> None:
    store = FakeRuleStore()
    await _store(store, "route", "client route")
    await _store(store, "notify", "client notify")
    await _store(store, "route", "web route", project="web")
    await _store(store, "route", "api route", project="api")
    groups = RecordedGroups()
    at_web = await active_rules(Scope("acme"), Scope("acme", "web"), store, groups)
    assert [(r.rule_key, r.content) for r in at_web] == [
        ("notify", "client notify"),
        ("route", "web route"),
    ]
    client_wide = await active_rules(Scope("acme"), Scope("acme"), store, groups)
    assert [r.content for r in client_wide] == ["client notify", "client route"]


def test_effective_rules_override_whatever_the_order_and_skip_other_projects() -> None:
    rows = [_rule("b", "web", "web b"), _rule("b", "", "client b"), _rule("a", "api", "api a"),
            _rule("a", "", "client a"), _rule("c", "api", "api c")]  # fmt: skip
    chosen = effective_rules(rows, "web")
    assert [(r.rule_key, r.content) for r in chosen] == [("a", "client a"), ("b", "web b")]


def test_rule_scope_takes_the_key_s_project_unless_named_and_needs_a_client() -> None:
    assert rule_scope(Scope("acme", "web", "front"), None) == Scope("acme", "web")
    assert rule_scope(Scope("acme", "web"), "") == Scope("acme")
    assert rule_scope(Scope("acme"), "api") == Scope("acme", "api")
    with pytest.raises(ValidationError) as error:
        rule_scope(Scope(), None)
    assert error.value.field == "scope"


async def test_readers_see_their_project_and_their_group_s_projects_only() -> None:
    store = FakeRuleStore()
    await _store(store, "route", "api route", project="api")
    groups = RecordedGroups({("acme", "api"): "back", ("acme", "web"): "front"})
    with pytest.raises(ScopeError) as error:
        await active_rules(Scope("acme", "web"), Scope("acme", "api"), store, groups)
    assert error.value.field == "projectId"
    in_group = await active_rules(Scope("acme", "", "back"), Scope("acme", "api"), store, groups)
    assert [r.content for r in in_group] == ["api route"]
    with pytest.raises(ScopeError):
        await rule_history(Scope("acme", "web"), Scope("acme", "api"), "route", store, groups)

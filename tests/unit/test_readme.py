"""README.md is the front door, the documentation in ``docs/`` the rest: the README short,
with the two set-up commands and the quickstart, every operation shown once at least across
both, every example valid against the schema, every setting documented.

The examples also run against a real server in ``tests/e2e/test_readme_examples.py``; the
generated pages are checked in ``tests/unit/test_docs_pages.py``.
"""

from __future__ import annotations

import re

import pytest
from graphql import validate

from kenning.router.config import RouterSettings
from kenning.schema.build import build_schema
from kenning.settings import Settings
from tests.support.readme import DOCS, README, Example, documentation, examples, pages

MAKEFILE = README.parent / "Makefile"
README_MOST_LINES = 300


def test_the_readme_is_there_with_the_two_set_up_commands() -> None:
    text = README.read_text()
    assert 100 <= len(text.splitlines()) <= README_MOST_LINES, "README.md is the front door"
    setup = text.split("## Set-up: two commands", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"^\| .* \| `(make \w+)` \|$", setup, re.MULTILINE)
    assert commands == ["make run", "make test"], commands
    assert "## Quickstart (five minutes)" in text
    targets = re.findall(r"^(\w+):", MAKEFILE.read_text(), re.MULTILINE)
    assert {"run", "test", "docs"} <= set(targets)


def test_the_readme_links_to_pages_that_exist() -> None:
    links = re.findall(r"\]\((docs/[^)#]+)(?:#[^)]*)?\)", README.read_text())
    assert len(links) >= 15, links
    missing = [link for link in links if not (README.parent / link).is_file()]
    generated = {"docs/reference/settings.md"} | {
        link for link in missing if link.startswith("docs/reference/api/")
    }
    assert set(missing) <= generated, missing


def test_every_page_of_the_docs_is_read_for_examples() -> None:
    written = {p for p in DOCS.rglob("*.md")}
    assert written and written <= set(pages()), sorted(written - set(pages()))


def test_every_query_mutation_and_subscription_has_an_example() -> None:
    schema = build_schema()._schema
    shown = {(e.kind.value, field) for e in examples() for field in e.root_fields}
    missing = [
        f"{kind}.{field}"
        for kind, root in (
            ("query", schema.query_type),
            ("mutation", schema.mutation_type),
            ("subscription", schema.subscription_type),
        )
        if root is not None
        for field in root.fields
        if (kind, field) not in shown
    ]
    assert not missing, f"README.md and docs/ have no example of {missing}"


@pytest.mark.parametrize("example", examples(), ids=str)
def test_every_example_is_valid_against_the_schema(example: Example) -> None:
    errors = validate(build_schema()._schema, example.operation_document)
    assert not errors, f"{example}: {[e.message for e in errors]}"


def test_every_setting_is_documented() -> None:
    text = documentation()
    names = [f"KENNING_{name.upper()}" for name in Settings.model_fields if name != "router"]
    names += [f"KENNING_ROUTER_{name.upper()}" for name in RouterSettings.model_fields]
    missing = [name for name in names if f"`{name}`" not in text]
    assert not missing, f"README.md and docs/ do not document {missing}"


def test_an_example_expected_to_fail_names_its_code() -> None:
    failing = [e for e in examples() if e.expect_error is not None]
    assert failing and all(e.expect_error for e in failing), failing

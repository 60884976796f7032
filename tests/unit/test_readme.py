"""README.md is the front door: present, with the two commands, every operation shown once
at least, every example valid against the schema, every setting documented.

The examples also run against a real server in ``tests/e2e/test_readme_examples.py``.
"""

from __future__ import annotations

import re

import pytest
from graphql import validate

from kenning.router.config import RouterSettings
from kenning.schema.build import build_schema
from kenning.settings import Settings
from tests.support.readme import README, Example, examples

MAKEFILE = README.parent / "Makefile"


def test_the_readme_is_there_with_the_two_set_up_commands() -> None:
    text = README.read_text()
    assert len(text.splitlines()) >= 100, "README.md lost its content"
    assert "`make run`" in text and "`make test`" in text
    targets = re.findall(r"^(\w+):", MAKEFILE.read_text(), re.MULTILINE)
    assert {"run", "test"} <= set(targets)


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
    assert not missing, f"README.md has no example of {missing}"


@pytest.mark.parametrize("example", examples(), ids=str)
def test_every_example_is_valid_against_the_schema(example: Example) -> None:
    errors = validate(build_schema()._schema, example.operation_document)
    assert not errors, f"{example}: {[e.message for e in errors]}"


def test_every_setting_is_documented() -> None:
    text = README.read_text()
    names = [f"KENNING_{name.upper()}" for name in Settings.model_fields if name != "router"]
    names += [f"KENNING_ROUTER_{name.upper()}" for name in RouterSettings.model_fields]
    missing = [name for name in names if f"`{name}`" not in text]
    assert not missing, f"README.md does not document {missing}"


def test_an_example_expected_to_fail_names_its_code() -> None:
    failing = [e for e in examples() if e.expect_error is not None]
    assert failing and all(e.expect_error for e in failing), failing

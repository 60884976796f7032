"""The documentation site: the pages its build generates cover the whole API (every type,
field, argument, enum value and error code of ``schema.graphql``) and every setting (its
variable, default and meaning), the errors table every top-level ``extensions.code``, and
the strict build passes as the docs stand but fails on a broken link, a setting no page
explains or a page left out of the navigation."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from graphql import (
    GraphQLEnumType,
    GraphQLInputObjectType,
    GraphQLInterfaceType,
    GraphQLObjectType,
    build_schema,
)

from docs.hooks.api_reference import api_pages
from docs.hooks.generated import generated_pages
from docs.hooks.settings_reference import UndocumentedSettings, setting_fields, settings_page
from kenning.graphql.execution.error_shaping import TopCode
from kenning.settings import Settings
from tests.support.readme import DOCS, ROOT

SCHEMA = ROOT / "schema.graphql"


def sections(page: str) -> dict[str, str]:
    """``## Name`` heading → the text under it."""
    parts = page.split("\n## ")[1:]
    return {part.split("\n", 1)[0]: part for part in parts}


def test_the_api_reference_has_every_type_field_argument_value_and_error_code() -> None:
    schema = build_schema(SCHEMA.read_text())
    pages = api_pages(SCHEMA.read_text())
    entries = {
        name: text
        for page in pages.values()
        for name, text in sections(page).items()
        if name != "Error members and the operations that answer them"
    }
    roots = {schema.query_type, schema.mutation_type, schema.subscription_type}
    checked = 0
    for name, named in schema.type_map.items():
        if name.startswith("__"):
            continue
        if named in roots:
            assert isinstance(named, GraphQLObjectType)
            for field_name, field in named.fields.items():
                entry = entries[field_name]
                assert all(f"`{arg}`" in entry for arg in field.args), (name, field_name)
                checked += 1 + len(field.args)
            continue
        entry = entries[name]
        if isinstance(named, GraphQLObjectType | GraphQLInterfaceType):
            for field_name, field in named.fields.items():
                assert f"`{field_name}`" in entry, (name, field_name)
                assert all(f"`{arg}`" in entry for arg in field.args), (name, field_name)
                checked += 1 + len(field.args)
        if isinstance(named, GraphQLInputObjectType):
            assert all(f"`{field_name}`" in entry for field_name in named.fields), name
        if isinstance(named, GraphQLEnumType):
            assert all(f"`{value}`" in entry for value in named.values), name
    assert checked > 800
    codes = schema.get_type("ErrorCode")
    assert isinstance(codes, GraphQLEnumType)
    error_codes = pages["reference/api/error-codes.md"]
    assert all(f"| `{code}` |" in error_codes for code in codes.values)
    assert "[ValidationError](types.md#validationerror): " in error_codes
    assert "`Mutation.ingest`" in error_codes.split("[ValidationError]", 1)[1].split("\n")[0]


def test_the_settings_page_has_every_setting_with_its_default_and_meaning() -> None:
    page = generated_pages(ROOT)["reference/settings.md"]
    rows = {line.split(" | ")[0].strip("| `"): line for line in page.splitlines()}
    variables = [variable for variable, _ in setting_fields()]
    assert len(variables) >= 90
    assert set(variables) <= set(rows)
    port = rows["KENNING_PORT"]
    assert f"`{Settings().port}`" in port and "≤ 65535" in port and "listens" in port
    assert "unset" in rows["KENNING_ROUTER_CPU_BACKEND"]


def test_a_setting_no_page_explains_stops_the_build() -> None:
    with pytest.raises(UndocumentedSettings) as refused:
        settings_page({"KENNING_PORT": "where it listens"})
    assert "KENNING_DATABASE_URL" in refused.value.variables
    assert "KENNING_PORT" not in refused.value.variables
    assert "docs/reference/configuration.md" in str(refused.value)


def test_the_home_page_is_the_readme_with_its_links_into_the_site() -> None:
    home = generated_pages(ROOT)["index.md"]
    assert home.startswith("# Kenning")
    assert "](guides/writing.md)" in home and "](docs/" not in home


def _build(root: Path, site: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=root,
        env={"PATH": "/usr/bin:/bin", "NO_MKDOCS_2_WARNING": "1", "HOME": str(root)},
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture(scope="module")
def copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """What the build reads, copied: the docs, mkdocs.yml, README.md and schema.graphql."""
    root = tmp_path_factory.mktemp("docs-build")
    shutil.copytree(DOCS, root / "docs", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("mkdocs.yml", "README.md", "schema.graphql"):
        shutil.copy(ROOT / name, root / name)
    return root


def test_the_strict_build_passes_and_writes_every_page(copy: Path, tmp_path: Path) -> None:
    built = _build(copy, tmp_path / "site")
    assert built.returncode == 0, built.stderr
    pages = ["index.html", "guides/writing/index.html", "reference/settings/index.html"]
    pages += ["reference/api/mutations/index.html", "benchmarks/index.html"]
    for page in pages:
        assert (tmp_path / "site" / page).is_file(), page
    assert "ingestRepository" in (tmp_path / "site/reference/api/mutations/index.html").read_text()


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ("broken link", "contains a link 'no-such-page.md'"),
        ("left out of the navigation", 'not included in the "nav"'),
        ("undocumented setting", "KENNING_GRAPH_NAME"),
    ],
)
def test_the_strict_build_fails_on(copy: Path, tmp_path: Path, change: str, says: str) -> None:
    broken = tmp_path / "copy"
    shutil.copytree(copy, broken)
    if change == "broken link":
        with (broken / "docs" / "layout.md").open("a") as page:
            page.write("\nSee [nothing](no-such-page.md).\n")
    elif change == "left out of the navigation":
        (broken / "docs" / "stray.md").write_text("# Stray\n")
    else:
        table = broken / "docs" / "reference" / "configuration.md"
        kept = [
            line for line in table.read_text().splitlines() if "`KENNING_GRAPH_NAME`" not in line
        ]
        table.write_text("\n".join(kept) + "\n")
    built = _build(broken, tmp_path / "site")
    assert built.returncode != 0
    assert says in built.stderr + built.stdout, built.stderr


def test_every_top_level_error_code_is_in_the_errors_table() -> None:
    table = (DOCS / "reference" / "errors.md").read_text().splitlines()
    listed = {line.split(" | ")[0].strip("| `") for line in table if line.startswith("| `")}
    assert {code.value for code in TopCode} <= listed, set(TopCode) - listed
    assert {"BAD_REQUEST", "PAYLOAD_TOO_LARGE"} <= listed

"""kenning-client's packaging: its version is Kenning's (and the one Kenning depends on), and
the drift check of its generated code passes on this tree and fails, naming the fix, once
the schema changes in a copy of it without regenerating."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import kenning_client

ROOT = Path(__file__).resolve().parents[2]
CLIENT = ROOT / "clients" / "python"


def _project(path: Path) -> dict[str, object]:
    project: dict[str, object] = tomllib.loads(path.read_text())["project"]
    return project


def test_the_client_version_is_kennings() -> None:
    kenning = _project(ROOT / "pyproject.toml")
    client = _project(CLIENT / "pyproject.toml")
    assert client["version"] == kenning["version"]
    assert kenning_client.__version__ == kenning["version"]
    dependencies = kenning["dependencies"]
    assert isinstance(dependencies, list)
    assert f"kenning-client=={kenning['version']}" in dependencies


def _tree_copy(tmp: Path) -> Path:
    """What the drift check reads, copied: the schema, ruff's settings, the script, the
    client's operations, settings and committed code."""
    copy = tmp / "repo"
    (copy / "scripts").mkdir(parents=True)
    for name in ("schema.graphql", "pyproject.toml", "scripts/client_codegen.sh"):
        shutil.copy2(ROOT / name, copy / name)
    shutil.copytree(
        CLIENT, copy / "clients" / "python", ignore=shutil.ignore_patterns("__pycache__")
    )
    return copy


def _check(repo: Path) -> subprocess.CompletedProcess[str]:
    # The generator's venv sits inside the test run's venv (scripts/install.sh makes both).
    env = {
        **os.environ,
        "KENNING_CODEGEN": str(Path(sys.prefix) / "codegen" / "bin" / "ariadne-codegen"),
        "KENNING_RUFF": str(Path(sys.prefix) / "bin" / "ruff"),
    }
    script = repo / "scripts" / "client_codegen.sh"
    return subprocess.run(
        [str(script), "--check"], env=env, capture_output=True, text=True, timeout=120
    )


def test_the_drift_check_fails_on_a_schema_changed_without_regenerating(tmp_path: Path) -> None:
    repo = _tree_copy(tmp_path)
    clean = _check(repo)
    assert clean.returncode == 0, clean.stderr

    schema = repo / "schema.graphql"
    changed = re.sub(r"(enum SearchMode \{\n)", r"\1  SEMANTIC\n", schema.read_text(), count=1)
    assert changed != schema.read_text()
    schema.write_text(changed)
    drifted = _check(repo)
    assert drifted.returncode == 1
    assert "out of date with schema.graphql" in drifted.stderr
    assert "run scripts/client_codegen.sh" in drifted.stderr
    assert "SEMANTIC" in drifted.stderr  # the diff shows what changed

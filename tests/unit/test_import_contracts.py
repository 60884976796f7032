"""The import-linter contracts (``[tool.importlinter]`` in pyproject.toml) stay complete and
able to fail: the domain's forbidden list names every other top-level module of kenning, and
an injected violation of each kind breaks a contract."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


def contracts() -> dict[str, dict[str, object]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return {c["name"]: c for c in config["tool"]["importlinter"]["contracts"]}


def test_the_domain_contract_forbids_every_other_top_level_module() -> None:
    top_level = {
        f"kenning.{p.stem if p.suffix == '.py' else p.name}"
        for p in (ROOT / "kenning").iterdir()
        if (p.suffix == ".py" or (p / "__init__.py").exists()) and not p.name.startswith("__")
    }
    forbidden = contracts()["domain imports no adapter, no GraphQL and no driver"]
    listed = {m for m in forbidden["forbidden_modules"] if str(m).startswith("kenning.")}  # type: ignore[attr-defined]
    assert listed == top_level - {"kenning.domain"}


def lint_with(tmp_path: Path, module: str, line: str) -> subprocess.CompletedProcess[str]:
    """``lint-imports`` over a copy of the project with ``line`` added to ``module``."""
    shutil.copytree(ROOT / "kenning", tmp_path / "kenning", ignore=shutil.ignore_patterns(
        "__pycache__", "static", "node_modules"))  # fmt: skip
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    target = tmp_path / "kenning" / module
    target.write_text(target.read_text() + f"\n{line}\n")
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"],
        cwd=tmp_path,
        env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize(
    ("module", "line", "broken"),
    [
        ("domain/errors.py", "import kenning.metrics", "domain imports no adapter"),
        ("domain/ingestion/chunking.py", "import redis", "domain imports no adapter"),
        ("domain/ingestion/chunking.py", "import kenning.domain.queue.jobs", "domain features"),
        ("domain/errors.py", "import kenning.domain.embedding", "domain features"),
        ("storage/db/pool.py", "import kenning.storage.queue.job_rows", "storage features"),
        ("resolvers/health.py", "import kenning.storage.db.pool", "resolvers reach storage"),
        ("router/state/state.py", "import kenning.domain.errors", "the router is self-contained"),
    ],
)
def test_an_injected_violation_breaks_its_contract(
    tmp_path: Path, module: str, line: str, broken: str
) -> None:
    result = lint_with(tmp_path, module, line)
    assert result.returncode != 0, result.stdout
    assert any(broken in row and "BROKEN" in row for row in result.stdout.splitlines()), (
        result.stdout + result.stderr
    )


def test_the_copy_without_a_violation_keeps_every_contract(tmp_path: Path) -> None:
    result = lint_with(tmp_path, "domain/errors.py", "import json")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "BROKEN" not in result.stdout

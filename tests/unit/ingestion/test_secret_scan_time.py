"""Scanning is linear in the input: 2 MB of adversarial text in well under a second.

Times are CPU time of this process (``time.process_time``), best of a few tries after a
warm-up: the scan is single-threaded and CPU-bound, and wall time on a shared two-core
machine also counts other sessions' work.
"""

from __future__ import annotations

import random
import string
import time
from collections.abc import Callable

import pytest

from kenning.domain.ingestion.secrets.detectors import SHAPES
from kenning.domain.ingestion.secrets.rules import RULES
from kenning.domain.ingestion.secrets.scan import SecretKind, scan

SIZE = 2_000_000
_RNG = random.Random(7)


def _repeat(unit: str, size: int) -> str:
    return (unit * (size // len(unit) + 1))[:size]


def _base64_run(size: int) -> str:
    alphabet = string.ascii_letters + string.digits + "+/"
    return "".join(_RNG.choice(alphabet) for _ in range(size))


# The inputs that took seconds to hours before, each as one 2 MB document.
ADVERSARIAL: dict[str, Callable[[int], str]] = {
    "token_ run": lambda n: _repeat("token_", n),
    "password_ run": lambda n: _repeat("password_", n),
    "base64 run": _base64_run,
    "password= lines": lambda n: _repeat("password=\n", n),
    "password= code lines": lambda n: _repeat("db_password = get_password(name)\n", n),
    "one password= line": lambda n: _repeat("password=", n),
    "quotes": lambda n: _repeat("secret='", n),
    "jwt prefixes": lambda n: _repeat("eyJa", n),
    "jwt parts": lambda n: _repeat("eyJa.", n),
    "aws words": lambda n: _repeat("aws key ", n),
    "sk- prefixes": lambda n: _repeat("sk-", n),
    "url fragments": lambda n: _repeat("://a:", n),
    "key headers": lambda n: _repeat("-----BEGIN RSA PRIVATE KEY-----\n", n),
    "prose": lambda n: _repeat("the password is ", n),
    "bearer": lambda n: _repeat("Bearer ", n),
    "gitlab agent": lambda n: _repeat("glagent-", n),
    "vault": lambda n: _repeat("hvs.", n),
}


def _cpu_seconds(content: str, tries: int = 2) -> float:
    scan(content[:1000])  # warm-up: compiled patterns, imports
    best = float("inf")
    for _ in range(tries):
        started = time.process_time()
        scan(content)
        best = min(best, time.process_time() - started)
    return best


@pytest.mark.parametrize("name", list(ADVERSARIAL))
def test_two_megabytes_of_adversarial_text_scan_in_under_a_second(name: str) -> None:
    content = ADVERSARIAL[name](SIZE)
    assert _cpu_seconds(content) < 1.0


@pytest.mark.parametrize("name", ["token_ run", "one password= line", "jwt parts", "prose"])
def test_four_times_the_input_takes_about_four_times_as_long(name: str) -> None:
    quarter = _cpu_seconds(ADVERSARIAL[name](SIZE // 4), tries=3)
    whole = _cpu_seconds(ADVERSARIAL[name](SIZE), tries=3)
    # Linear gives 4, quadratic 16: the margin between absorbs a loaded machine's noise.
    assert whole < 8.0 * quarter + 0.05


def test_a_document_dense_with_real_findings_stays_linear() -> None:
    # A finding every 20 characters: the cost is per finding, never per pair of them.
    def dense(size: int) -> str:
        lines, total, index = [], 0, 0
        while total < size:
            lines.append(f"password=hunter{index}x\n")
            total += len(lines[-1])
            index += 1
        return "".join(lines)

    quarter, whole = dense(SIZE // 4), dense(SIZE)
    assert len(scan(whole)) == whole.count("\n")
    assert _cpu_seconds(whole, tries=3) < 8.0 * _cpu_seconds(quarter, tries=3) + 0.05


def test_the_unbounded_detect_secrets_patterns_start_only_where_a_run_starts() -> None:
    # The structural reason for linearity: these plugins' patterns repeat without bound
    # after their prefix, so unwrapped they restart inside every run they already rejected
    # ("eyJa" * 8000 is quadratic). Wrapped, a lookbehind after the prefix stops that.
    by_plugin = {shape.plugin.__name__: shape.patterns for shape in SHAPES}
    for plugin, prefix in [
        ("JwtTokenDetector", "eyJ"),
        ("OpenAIDetector", "sk-"),
        ("PypiTokenDetector", "pypi-"),
        ("SlackDetector", "xox"),
        ("GitLabTokenDetector", "glagent-"),
    ]:
        wrapped = [p for p in by_plugin[plugin] if p.pattern.startswith(prefix)]
        assert wrapped
        for pattern in wrapped:
            assert pattern.pattern.startswith(f"{prefix}(?<![\\w-]{prefix})"), pattern.pattern
    unbounded_rules = [r for r in RULES if r.kind is not SecretKind.AZURE_SHARED_ACCESS_KEY]
    for rule in unbounded_rules:
        if "{35}" not in rule.pattern.pattern and "{40}" not in rule.pattern.pattern:
            assert "(?<!" in rule.pattern.pattern, rule.pattern.pattern

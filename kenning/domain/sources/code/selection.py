"""Which files of a repository the code source reads: language by extension, and no
binaries, vendored or generated trees, minified bundles or over-size files."""

from __future__ import annotations

from kenning.domain.sources.code.structure import CodeLanguage

DEFAULT_MAX_FILE_BYTES = 1_000_000
# A line this long, or an average this long, is a bundle or generated data, not code to read.
MINIFIED_LINE = 2_000
MINIFIED_AVERAGE = 300

_EXTENSIONS = {
    ".py": CodeLanguage.PYTHON,
    ".pyi": CodeLanguage.PYTHON,
    ".kt": CodeLanguage.KOTLIN,
    ".kts": CodeLanguage.KOTLIN,
    ".java": CodeLanguage.JAVA,
    ".ts": CodeLanguage.TYPESCRIPT,
    ".mts": CodeLanguage.TYPESCRIPT,
    ".cts": CodeLanguage.TYPESCRIPT,
    ".tsx": CodeLanguage.TSX,
    ".js": CodeLanguage.JAVASCRIPT,
    ".mjs": CodeLanguage.JAVASCRIPT,
    ".cjs": CodeLanguage.JAVASCRIPT,
    ".jsx": CodeLanguage.JAVASCRIPT,
    ".go": CodeLanguage.GO,
}
_VENDORED_DIRS = frozenset(
    {
        "node_modules",
        "vendor",
        "third_party",
        "thirdparty",
        "bower_components",
        "dist",
        "build",
        "out",
        "target",
        ".venv",
        "venv",
        "site-packages",
        "__pycache__",
        ".git",
    }
)
_GENERATED_SUFFIXES = (".min.js", ".min.mjs", ".bundle.js", ".d.ts", "_pb2.py", ".pb.go")


def language_for_path(path: str) -> CodeLanguage | None:
    """The language a path's extension says, or ``None``: ``a/b.kt`` → ``KOTLIN``."""
    name = path.rsplit("/", 1)[-1]
    dot = name.rfind(".")
    return _EXTENSIONS.get(name[dot:].lower()) if dot > 0 else None


def is_vendored(path: str) -> bool:
    """Whether a path lies in a vendored or build tree or names a generated file."""
    parts = path.split("/")
    lowered = parts[-1].lower()
    return bool(_VENDORED_DIRS.intersection(parts[:-1])) or lowered.endswith(_GENERATED_SUFFIXES)


def selected_path(path: str) -> CodeLanguage | None:
    """The language of a path the code source reads, judged by the path alone."""
    return None if is_vendored(path) else language_for_path(path)


def skip_reason(content: bytes, max_bytes: int = DEFAULT_MAX_FILE_BYTES) -> str | None:
    """Why file ``content`` is not read (``"too large"``, ``"binary"``, ``"minified"``,
    ``"not utf-8"``), or ``None`` when it is."""
    if len(content) > max_bytes:
        return "too large"
    if b"\x00" in content[:8192]:
        return "binary"
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError:
        return "not utf-8"
    lines = text.splitlines() or [""]
    if (
        max(len(line) for line in lines) > MINIFIED_LINE
        or len(text) / len(lines) > MINIFIED_AVERAGE
    ):
        return "minified"
    return None

"""``kenning ingest``'s functions against the real app over HTTP (ASGI): a folder of mixed
files uploaded, each job followed to its end, chunks read back, a bad file failed with its
problem in the summary; folders are walked recursively, hidden entries skipped."""

from __future__ import annotations

from pathlib import Path

import pytest
from kenning_client import async_client_over
from rich.console import Console

from kenning.cli.ingest_files import collect, ingest_all, summary
from tests.support.file_samples import sample_docx, text_pdf
from tests.support.file_uploads import Uploads

pytestmark = pytest.mark.integration


def folder(root: Path) -> Path:
    (root / "docs" / "nested").mkdir(parents=True)
    (root / "docs" / ".git").mkdir()
    (root / "docs" / "report.pdf").write_bytes(text_pdf(["Revenue grew.", "Costs fell."]))
    (root / "docs" / "nested" / "handbook.docx").write_bytes(sample_docx())
    (root / "docs" / "nested" / "notes.md").write_text("# Notes\n\nDeploy on Tuesdays.\n")
    (root / "docs" / "blob.bin").write_bytes(b"\x00\x01\x02\xff" * 64)
    (root / "docs" / ".git" / "config").write_text("[core]\n")
    return root / "docs"


async def test_a_folder_is_ingested_and_summarised(uploads: Uploads, tmp_path: Path) -> None:
    files = collect([folder(tmp_path)])
    assert [p.name for p in files] == ["blob.bin", "handbook.docx", "notes.md", "report.pdf"]
    uploads.http.headers.update(uploads.auth("acme"))
    console = Console(record=True, width=200)
    runs = await ingest_all(async_client_over(uploads.http), files, {"tags": ["cli"]}, console)
    by_name = {run.path.name: run for run in runs}
    assert by_name["report.pdf"].status == "INDEXED"
    assert by_name["report.pdf"].chunks == 2
    assert by_name["report.pdf"].media_type == "application/pdf"
    assert by_name["notes.md"].status == "INDEXED"
    assert by_name["handbook.docx"].chunks and by_name["handbook.docx"].chunks > 0
    assert by_name["blob.bin"].failed
    assert by_name["blob.bin"].error.startswith("UNSUPPORTED_TYPE")
    console.print(summary(runs))
    text = console.export_text()
    assert "INDEXED" in text and "UNSUPPORTED_TYPE" in text and "application/pdf" in text
    assert any(run.failed for run in runs)  # the command exits 1

"""The multipart request's map applied to its operations: files placed in nested objects,
lists and batches; a path that cannot hold a file refused by name."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from cross_web import HTTPException
from starlette.datastructures import FormData, UploadFile

from kenning.graphql.http.upload_request import operations_with_files


def _form(operations: Any, files_map: Any, *files: str) -> FormData:
    parts: list[tuple[str, str | UploadFile]] = [
        ("operations", json.dumps(operations)),
        ("map", json.dumps(files_map)),
    ]
    parts += [(name, UploadFile(io.BytesIO(b"x"), filename=f"{name}.txt")) for name in files]
    return FormData(parts)


def test_files_go_into_objects_lists_and_batches() -> None:
    operations = [{"variables": {"input": {"files": [None, None]}, "file": None}}]
    form = _form(operations, {"a": ["0.variables.input.files.1", "0.variables.file"]}, "a")
    [placed] = operations_with_files(form)
    file = form["a"]
    assert placed["variables"] == {"input": {"files": [None, file]}, "file": file}


@pytest.mark.parametrize(
    ("path", "says"),
    [
        ("variables.files.2", "does not exist in operations"),
        ("variables.files.-1", "does not exist in operations"),
        ("variables.files.x", "does not exist in operations"),
        ("variables.files.0.name", "goes through null at 'variables.files.0'"),
        ("variables.count.x", "goes through a number at 'variables.count'"),
        ("variables.flag.x", "goes through a boolean at 'variables.flag'"),
        ("variables", "holds a value, not the null placeholder"),
    ],
)
def test_a_path_that_cannot_hold_a_file_is_refused_by_name(path: str, says: str) -> None:
    operations = {"variables": {"files": [None, None], "count": 3, "flag": True}}
    with pytest.raises(HTTPException) as refused:
        operations_with_files(_form(operations, {"a": [path]}, "a"))
    assert refused.value.status_code == 400
    assert refused.value.reason == f"map path '{path}' of part 'a' {says}"


def test_a_part_sent_twice_is_refused() -> None:
    form = FormData([*_form({"variables": {"f": None}}, {}).multi_items(), ("map", "{}")])
    with pytest.raises(HTTPException) as refused:
        operations_with_files(form)
    assert refused.value.reason == "part 'map' appears more than once"

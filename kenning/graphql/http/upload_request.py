"""The GraphQL multipart request (``ingestFile``'s uploads) read strictly: every mistake in
it is a 400 naming what is wrong, found before any operation runs.

The request (github.com/jaydenseric/graphql-multipart-request-spec) has an ``operations``
part (the GraphQL request as JSON, a null where each file goes), a ``map`` part (JSON: each
file part's name → the paths in ``operations`` it fills) and the file parts. Strawberry
reads it leniently: a path through a null or a multipart syntax error crashed as a 500, a
path to a variable that does not exist or a file part the map does not name went unnoticed,
a text part named in the map reached the resolver as a string.

Limits (besides the body's ``KENNING_MAX_FILE_BYTES`` plus 1 MiB): at most ``MAX_FILES``
file parts and ``MAX_FIELDS`` text parts of at most ``MAX_FIELD_BYTES`` each, and a part's
headers at most 4,224 bytes (python-multipart's bound).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from typing import Any

from cross_web import FormData, HTTPException, StarletteRequestAdapter
from starlette.datastructures import FormData as StarletteForm
from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.formparsers import MultiPartException
from starlette.requests import Request

from kenning.graphql.http.upload_guard import MULTIPART_SLACK

MAX_FILES = 1000
# operations and map: the spec has no other text part; a few more leave room for a client's
# extra part to be named in the refusal rather than counted.
MAX_FIELDS = 10
MAX_FIELD_BYTES = MULTIPART_SLACK


# What a path steps through instead of an object or a list, as JSON names it.
_JSON_KINDS = {
    type(None): "null",
    str: "a string",
    int: "a number",
    float: "a number",
    bool: "a boolean",
}


def _refused(reason: str) -> HTTPException:
    return HTTPException(400, reason)


def _malformed(error: StarletteHTTPException | MultiPartException) -> HTTPException:
    """The 400 for a body Starlette could not read, with python-multipart's own reason
    when Starlette only says "Invalid multipart data."."""
    refused = error if isinstance(error, MultiPartException) else error.__context__
    cause = refused.__cause__ if refused is not None else None
    if cause is not None:
        detail = str(cause)
    elif isinstance(error, MultiPartException):
        detail = error.message
    else:
        detail = str(error.detail)
    return _refused(f"malformed multipart body: {detail}")


class UploadRequestAdapter(StarletteRequestAdapter):
    """Strawberry's view of a Starlette request, reading a multipart body within Kenning's
    limits and answering a malformed one with a 400 (Starlette's refusal would be a 500)."""

    def __init__(self, request: Request) -> None:
        super().__init__(request)
        self._starlette = request

    async def get_form_data(self) -> FormData:
        try:
            form = await self._starlette.form(
                max_files=MAX_FILES, max_fields=MAX_FIELDS, max_part_size=MAX_FIELD_BYTES
            )
        except (StarletteHTTPException, MultiPartException) as error:
            raise _malformed(error) from None
        return FormData(files=form, form=form)


def _json_part(form: Mapping[str, Any], name: str) -> Any:
    value = form.get(name)
    if value is None:
        raise _refused(f"the multipart request has no {name} part")
    if not isinstance(value, str):
        raise _refused(f"the {name} part must be text, not a file")
    try:
        return json.loads(value)
    except RecursionError:
        raise _refused(f"the {name} part nests deeper than the server parses") from None
    except json.JSONDecodeError:
        raise _refused(f"the {name} part is not JSON") from None


def _paths(files_map: Any) -> dict[str, list[str]]:
    if not isinstance(files_map, dict):
        raise _refused("the map part must be a JSON object")
    for part, paths in files_map.items():
        if not (isinstance(paths, list) and paths and all(isinstance(p, str) for p in paths)):
            raise _refused(f"the map entry of part '{part}' must be a list of paths")
    return files_map


def _has(container: dict[str, Any] | list[Any], key: str) -> bool:
    if isinstance(container, dict):
        return key in container
    return key.isdecimal() and int(key) < len(container)


def _place(operations: Any, path: str, part: str, file: UploadFile) -> None:
    """Put ``file`` at ``path`` in ``operations``, where the spec wants a null."""
    keys = path.split(".")
    target = operations
    for depth, key in enumerate(keys):
        if not isinstance(target, dict | list):
            walked = ".".join(keys[:depth])
            what = _JSON_KINDS.get(type(target), "a value")
            raise _refused(f"map path '{path}' of part '{part}' goes through {what} at '{walked}'")
        if not _has(target, key):
            raise _refused(f"map path '{path}' of part '{part}' does not exist in operations")
        index: Any = key if isinstance(target, dict) else int(key)
        if depth < len(keys) - 1:
            target = target[index]
        elif target[index] is not None:
            raise _refused(
                f"map path '{path}' of part '{part}' holds a value, not the null placeholder"
            )
        else:
            target[index] = file


def operations_with_files(form: Mapping[str, Any]) -> Any:
    """The request's ``operations`` with each file at the paths the map gives it; a 400
    (``cross_web.HTTPException``) naming the first mistake otherwise."""
    items = form.multi_items() if isinstance(form, StarletteForm) else list(form.items())
    parts = Counter(name for name, _ in items)
    if repeated := sorted(name for name, count in parts.items() if count > 1):
        raise _refused(f"part '{repeated[0]}' appears more than once")
    operations = _json_part(form, "operations")
    if not isinstance(operations, dict | list):
        raise _refused("the operations part must be a JSON object or list")
    files_map = _paths(_json_part(form, "map"))
    for part, paths in files_map.items():
        file = form.get(part)
        if file is None:
            raise _refused(f"the map names part '{part}', which the request does not have")
        if not isinstance(file, UploadFile):
            raise _refused(f"part '{part}' of the map is not a file (a file part has a filename)")
        for path in paths:
            _place(operations, path, part, file)
    _refuse_unmapped(form, files_map)
    return operations


def _refuse_unmapped(form: Mapping[str, Any], files_map: Mapping[str, object]) -> None:
    """A 400 for a part that is neither operations, map, nor a file the map places."""
    for name, value in form.items():
        if name in ("operations", "map") or name in files_map:
            continue
        if isinstance(value, UploadFile):
            raise _refused(f"file part '{name}' is not named in the map")
        raise _refused(f"text part '{name}' is neither operations nor map")

"""CSRF protection for multipart GraphQL requests (``ingestFile``'s uploads).

``multipart/form-data`` is a "simple" content type: a browser sends it cross-site without
a CORS preflight, so a hostile page could post a form to ``/graphql``. As Apollo Server
does, a multipart request must carry a non-empty ``Apollo-Require-Preflight`` or
``X-Apollo-Operation-Name`` header, which no form can set and which makes a browser ask
first (and the CORS configuration answers). JSON requests are untouched: their content type
already needs a preflight.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse

PREFLIGHT_HEADERS = ("apollo-require-preflight", "x-apollo-operation-name")


def upload_refusal(request: Request) -> JSONResponse | None:
    """A 400 for a multipart request without a preflight header; None when it may go on."""
    content_type = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if request.method != "POST" or content_type != "multipart/form-data":
        return None
    if any(request.headers.get(name, "").strip() for name in PREFLIGHT_HEADERS):
        return None
    message = (
        "a multipart request needs an Apollo-Require-Preflight: true header "
        "(CSRF protection: a plain form cannot send it)"
    )
    body = {"errors": [{"message": message, "extensions": {"code": "BAD_REQUEST"}}]}
    return JSONResponse(body, status_code=400)


# What a multipart request carries besides the file: its operations and map fields.
MULTIPART_SLACK = 1024 * 1024


def body_limit(request: Request, max_request_bytes: int, max_file_bytes: int) -> int:
    """The bytes a ``/graphql`` request body may have: a multipart upload may hold a whole
    file (``KENNING_MAX_FILE_BYTES``) even when that is over ``KENNING_MAX_REQUEST_BYTES``."""
    content_type = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if content_type == "multipart/form-data":
        return max(max_request_bytes, max_file_bytes + MULTIPART_SLACK)
    return max_request_bytes

"""Talking to one Ollama backend: the calls, the HTTP/1.1 client under them, the breaker.

Read `upstream` first: one buffered or streamed call to one backend, its transport failures
turned into `BackendFailure`. It runs over `http11` (a keep-alive pool per backend;
`http11_connection` one connection and its response, `http11_errors` the exception tree).
`breaker` says when a failing backend gets traffic again. Which backend a call goes to is
decided above this room, in `kenning.router.scheduling`.
"""

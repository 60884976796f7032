"""The router's HTTP face: the Ollama-compatible API and the router's own endpoints.

Read `app` first: `create_router_app` mounts `proxy` (``/api/*`` model calls handed to the
relay, the catalogue aggregated; `unproxied` answers the endpoints it does not relay) and
`control` (``/router/*``: announce, release, status, metrics, events). `access` is the gate
every endpoint asks first (who may do what, up to which priority); `bodies` reads a request
body within its limit; `ndjson` frames the NDJSON lines Ollama streams (the relay and the
in-process client read them with it).
"""

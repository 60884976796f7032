"""Who may do what on the router: the app serving it decides, the router enforces.

The router knows nothing of API keys. Whoever serves it passes a `Gate`: an async callable
that reads a request and returns the caller's `Access`, or raises `AccessDenied` (no or a
bad credential, or the credential store down). Each endpoint asks the gate before it does
anything; a refusal is answered in that endpoint family's error shape. `open_gate` lets
everyone do everything: the standalone router on a trusted network.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from starlette.requests import Request
from starlette.responses import Response

from kenning.router.errors import AccessDenied
from kenning.router.scheduling.policy import Priority, PriorityDecision, PrioritySource
from kenning.router.scheduling.sessions import KEYLESS, SessionOwner


@dataclass(frozen=True)
class Access:
    """What one caller may do.

    ``control``: announce and release. ``private``: see backend URLs and session names.
    ``top_priority``: the most urgent priority it may claim. ``owner``: whose sessions it
    announces and may release (`kenning.router.scheduling.sessions`); ``all_sessions``: it may
    release every owner's. ``who`` and ``needs`` phrase a refusal: ``"this key has role ui"``,
    ``"an agent or admin key"``.
    """

    control: bool = False
    private: bool = False
    top_priority: Priority = Priority.CODING
    owner: SessionOwner = KEYLESS
    all_sessions: bool = False
    who: str = "this caller"
    needs: str = "more rights"

    def deny(self, what: str) -> AccessDenied:
        """The 403 for something this caller may not do, e.g. ``deny("/router/announce")``."""
        return AccessDenied(403, f"{what} needs {self.needs} ({self.who})")

    def claim(self, decision: PriorityDecision) -> PriorityDecision:
        """The priority a request runs at, capped by ``top_priority``.

        An explicit claim above the cap (the ``X-Ollama-Priority`` header) is refused; a
        model rule's priority is lowered to the cap, since the caller asked for nothing.
        """
        if decision.priority >= self.top_priority:
            return decision
        if decision.source is PrioritySource.HEADER:
            allowed = [str(int(p)) for p in Priority if p >= self.top_priority]
            hint = " or ".join([", ".join(allowed[:-1]), allowed[-1]] if allowed[:-1] else allowed)
            refusal = self.deny(f"priority {int(decision.priority)}")
            raise AccessDenied(403, f"{refusal.message}: send X-Ollama-Priority {hint}")
        return PriorityDecision(self.top_priority, decision.source)


OPEN = Access(
    control=True, private=True, top_priority=Priority.CRITICAL, all_sessions=True, who="anyone"
)

Gate = Callable[[Request], Awaitable[Access]]
Endpoint = Callable[[Request], Awaitable[Response]]
Guarded = Callable[[Request, Access], Awaitable[Response]]


async def open_gate(_: Request) -> Access:
    """Everyone may do everything (``kenning router --allow-anonymous``)."""
    return OPEN


def guarded(gate: Gate, handler: Guarded, refuse: Callable[[AccessDenied], Response]) -> Endpoint:
    """An endpoint that asks ``gate`` first and answers a refusal with ``refuse(denied)``;
    ``handler`` may raise `AccessDenied` too (a 403 for what it was asked)."""

    async def endpoint(request: Request) -> Response:
        try:
            return await handler(request, await gate(request))
        except AccessDenied as denied:
            return refuse(denied)

    return endpoint

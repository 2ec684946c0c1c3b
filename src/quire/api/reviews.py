"""The review loop's requests and answers: requests, waits, decisions, annotations.

Models only: the server reads and dumps them, the client builds and parses them.
"""

from __future__ import annotations

from quire.api.base import StrictBody
from quire.core.views import Decision


class RequestBody(StrictBody):
    path: str | None = None
    content: str | None = None
    timeout_ms: int | None = None
    requested_by: str | None = None
    wait_ms: int | None = None


class WaitBody(StrictBody):
    wait_ms: int | None = None
    path: str | None = None
    content: str | None = None
    timeout_ms: int | None = None


class DecisionBody(StrictBody):
    verdict: Decision
    comments: str | None = None

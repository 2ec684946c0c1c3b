"""The agents page's requests and answers: coding agents, registrations and hooks.

Models only: the server reads and dumps them, the client builds and parses them.
"""

from __future__ import annotations

from quire.api.base import StrictBody


class HookBody(StrictBody):
    chat: bool = False
    remove: bool = False


class ConnectBody(StrictBody):
    pass

"""Who the save being made now is by, as history names it: the request's person and agent.

The web layer sets ``acting`` for each request (the signed-in account and the agent a token
request names); the recorder reads it when a save is noted, so the live documents and the
file operations need not carry it. Outside a request the save's own author name is used.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Final

from quire.core.history import CommitAuthor, commit_author
from quire.core.views import OWNER

acting: Final[ContextVar[CommitAuthor | None]] = ContextVar("quire_history_author", default=None)
"""The author of the request being served (None outside a request)."""


def author_of(name: str) -> CommitAuthor:
    """The commit author of a save ``name`` made: the request's when one is being served,
    else ``name`` as an agent working for the owner (the person's own saves come through a
    request)."""
    found = acting.get()
    if found is not None:
        return found
    return commit_author(OWNER) if name == OWNER else commit_author(OWNER, agent=name)

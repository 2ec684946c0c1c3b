"""The ``more`` object of a result that was cut: how much is left and the exact call that
reads the next part. One shape for every tool and resource whose result grows with a
document or a chat.

Models only; ``quire.core.pages`` cuts, ``quire.mcp.pages`` builds these from a cut.
"""

from __future__ import annotations

from typing import Any

from quire.api.base import Answer, omitted_when_none


class NextCall(Answer):
    """A call to make as written: a tool's name and its arguments, or ``resources/read``
    with the ``uri`` to read."""

    name: str
    arguments: dict[str, Any]


class More(Answer):
    """What a cut result left out: ``remaining`` lines (or messages, or candidates: the
    tool says which) from ``next_offset`` on, and ``call``, which reads them (left out when
    nothing follows).
    ``cut_line`` names a line longer than a whole page, of which only the start was shown."""

    next_offset: int
    remaining: int
    call: NextCall | None = omitted_when_none()
    cut_line: int | None = omitted_when_none()

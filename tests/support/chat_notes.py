"""Chat note text for tests: messages appended the way a post is, checked once first.

``append_message`` and ``message_block`` take an author and a body already checked (the chat
service checks a post once); these helpers run the same two checks so tests can pass raw text.
"""

from __future__ import annotations

from quire.core.chat import sanitize_label
from quire.markdown.chat import append_message, check_message, message_block


def with_message(text: str, author: str, time: str, body: str) -> str:
    """``text`` with the message appended, after the checks a post makes."""
    return append_message(text, sanitize_label(author), time, check_message(body))


def checked_block(author: str, time: str, body: str) -> str:
    """The text of one message, after the checks a post makes."""
    return message_block(sanitize_label(author), time, check_message(body))

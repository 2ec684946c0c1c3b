"""Waiting on a Yjs client's text in tests: until it satisfies a condition, with no polling."""

from __future__ import annotations

from collections.abc import Callable

import anyio
from pycrdt import Doc, Text

from quire.services.live.document import CONTENT


async def until(ydoc: Doc[Text], condition: Callable[[str], bool], *, seconds: float = 20) -> None:
    """Wait until the text of ``ydoc`` satisfies ``condition`` (checked after each update),
    at most ``seconds``."""
    updated = anyio.Event()

    def on_update(_event: object) -> None:
        updated.set()

    text = ydoc.get(CONTENT, type=Text)
    subscription = ydoc.observe(on_update)
    try:
        with anyio.fail_after(seconds):
            while not condition(str(text)):
                await updated.wait()
                updated = anyio.Event()
    finally:
        ydoc.unobserve(subscription)

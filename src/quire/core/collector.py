"""The cyclic garbage collector held off while a parse or a render builds its token tree.

Owns when Python's cycle collector may run around allocation-heavy pure work: a 1 MB parse
creates some 120 000 tokens, each allocation counts towards a collection, and the older
generations are scanned again and again as the tree grows (a third of a parse's time). Must
not hold anything else: reference counting still frees what those calls drop at once.
"""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

LONGEST_PAUSE_S = 2.0
"""How long overlapping pauses (renders in several threads of a busy server) may keep the
collector off: a pause that ends after this long while others still hold it collects once,
so cycles cannot pile up for as long as the pauses keep overlapping."""

_lock = threading.Lock()
_holders = 0
_was_enabled = False
_since = 0.0


@contextmanager
def collection_paused() -> Iterator[None]:
    """Run the block with the cycle collector off, then put it back as it was.

    Re-entrant and thread-safe: the collector is turned off by the first holder and back on
    (when it was on before) by the last one, however their blocks overlap. While pauses
    overlap without a break, one collection runs every ``LONGEST_PAUSE_S``.
    """
    global _holders, _was_enabled, _since
    with _lock:
        if _holders == 0:
            _was_enabled = gc.isenabled()
            _since = time.monotonic()
            gc.disable()
        _holders += 1
    try:
        yield
    finally:
        with _lock:
            _holders -= 1
            if _was_enabled and _holders == 0:
                gc.enable()
            elif _was_enabled and time.monotonic() - _since > LONGEST_PAUSE_S:
                gc.collect()
                _since = time.monotonic()

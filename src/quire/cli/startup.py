"""Garbage collection paused while a command starts.

Importing Quire's modules allocates hundreds of thousands of objects, and the cycle collector,
run every few hundred allocations, scans them again and again for cycles an import never makes:
about a fifth of ``quire serve``'s start. ``main`` pauses collection before any command is
imported; a command's import done, collection resumes, except for ``quire serve`` and
``quire mcp``, which resume it once they are ready to answer (their start is what people and
agents wait for). What starting built is set aside then (``gc.freeze``): it lives as long as
the process and is never scanned again.
"""

from __future__ import annotations

import gc

RESUMED_BY_THE_COMMAND = frozenset({"serve", "mcp"})
"""Commands that call ``startup_done`` themselves, once ready."""


def pause_collection() -> None:
    """Pause the cycle collector until ``startup_done`` (the real entry point only: a test
    process that imports the CLI keeps collecting)."""
    gc.disable()


def startup_done() -> None:
    """Set aside what starting built, and collect as usual from now on."""
    if not gc.isenabled():
        gc.freeze()
        gc.enable()

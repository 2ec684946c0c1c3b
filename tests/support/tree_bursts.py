"""What a burst of changes made by another program must look like as ``tree`` events, on any
machine however busy: never a storm (``quire.services.files.tree``)."""

from __future__ import annotations

from quire.services.files.tree import RESCAN_AT, RESCAN_QUIET_S


def shapes(frames: list[dict[str, object]]) -> list[tuple[bool, int]]:
    """Each ``tree`` event's data as (rescan, how many changes it names)."""
    found: list[tuple[bool, int]] = []
    for data in frames:
        listed = data["changes"]
        assert isinstance(listed, list)
        found.append((bool(data["rescan"]), len(listed)))
    return found


def assert_no_storm(frames: list[dict[str, object]], seconds: float) -> None:
    """``frames`` (received over ``seconds``) are never a storm, however busy the machine: a
    list names fewer paths than a rescan takes, a rescan names nothing, rescans come at most
    every ``RESCAN_QUIET_S``, and about one frame a second at most. (Which batch becomes a
    rescan depends on when the watcher delivers; tests/services/files/test_tree.py pins that
    down with a clock of its own.)"""
    shape = shapes(frames)
    assert all(named == 0 if rescan else named <= RESCAN_AT for rescan, named in shape), shape
    rescans = sum(1 for rescan, _ in shape if rescan)
    assert rescans <= 1 + seconds / RESCAN_QUIET_S, (shape, seconds)
    assert len(shape) <= 3 + seconds, (shape, seconds)

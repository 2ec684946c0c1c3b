"""The keepalive hook's own stop count: stops within two minutes, per session, kept on disk."""

from __future__ import annotations

import stat
from pathlib import Path

from quire.client.stop_log import WINDOW_MS, record_stop, stop_log

START = 1_700_000_000_000


def test_stops_within_two_minutes_count_together(tmp_path: Path) -> None:
    assert record_stop(tmp_path, "s1", START) == 1
    assert record_stop(tmp_path, "s1", START + 1_000) == 2
    assert record_stop(tmp_path, "s1", START + WINDOW_MS - 1) == 3


def test_older_stops_drop_out_of_the_count(tmp_path: Path) -> None:
    record_stop(tmp_path, "s1", START)
    record_stop(tmp_path, "s1", START + 1_000)
    assert record_stop(tmp_path, "s1", START + WINDOW_MS + 500) == 2


def test_each_session_counts_its_own_stops(tmp_path: Path) -> None:
    record_stop(tmp_path, "s1", START)
    record_stop(tmp_path, "s1", START)
    assert record_stop(tmp_path, "s2", START) == 1


def test_the_log_is_private_and_named_without_the_session_id(tmp_path: Path) -> None:
    record_stop(tmp_path, "../../etc/passwd\0", START)
    path = stop_log(tmp_path, "../../etc/passwd\0")
    assert path.parent == tmp_path / "keepalive"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


def test_a_broken_log_starts_the_count_again(tmp_path: Path) -> None:
    path = stop_log(tmp_path, "s1")
    path.parent.mkdir(parents=True)
    for content in (b"not json", b'{"a": 1}', b'[true, "x", 1.5]', b"\xff"):
        path.write_bytes(content)
        assert record_stop(tmp_path, "s1", START) == 1


def test_no_count_when_the_state_folder_cannot_be_written(tmp_path: Path) -> None:
    blocker = tmp_path / "state"
    blocker.write_text("a file where the folder should be", encoding="utf-8")
    assert record_stop(blocker, "s1", START) is None

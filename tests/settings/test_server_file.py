import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from quire.core.errors import DocumentInvalid, ServerAlreadyRunning
from quire.core.server_info import ServerInfo, dumps
from quire.settings.server_file import (
    Absent,
    Found,
    claim_state_folder,
    discover,
    is_process_alive,
    read_server_file,
)

INFO = ServerInfo(url="http://127.0.0.1:4747", token="a" * 64, pid=os.getpid())


def _dead_pid() -> int:
    process = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(process.stdout)


def test_the_state_folder_is_created_owner_only(tmp_path: Path) -> None:
    state = tmp_path / "nested" / "state"
    with claim_state_folder(state):
        assert stat.S_IMODE(state.stat().st_mode) == 0o700


def test_the_server_file_is_written_0600_with_url_token_and_pid(tmp_path: Path) -> None:
    with claim_state_folder(tmp_path) as claim:
        claim.publish(INFO)
        path = tmp_path / "server.json"
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert json.loads(path.read_text(encoding="utf-8")) == {
            "url": INFO.url,
            "token": INFO.token,
            "pid": INFO.pid,
        }
        assert read_server_file(tmp_path) == INFO
        assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_the_server_file_is_0600_even_with_a_permissive_umask(tmp_path: Path) -> None:
    previous = os.umask(0)
    try:
        with claim_state_folder(tmp_path) as claim:
            claim.publish(INFO)
            assert stat.S_IMODE((tmp_path / "server.json").stat().st_mode) == 0o600
    finally:
        os.umask(previous)


def test_a_second_server_on_the_same_state_folder_is_refused_naming_the_first(
    tmp_path: Path,
) -> None:
    with claim_state_folder(tmp_path) as first:
        first.publish(INFO)
        with pytest.raises(ServerAlreadyRunning) as caught:
            claim_state_folder(tmp_path)
    assert caught.value.info == INFO
    message = str(caught.value)
    assert INFO.url in message
    assert f"pid {INFO.pid}" in message
    assert INFO.token not in message


def test_a_server_still_starting_is_refused_too(tmp_path: Path) -> None:
    with claim_state_folder(tmp_path), pytest.raises(ServerAlreadyRunning, match="starting"):
        claim_state_folder(tmp_path)


def test_the_folder_is_free_again_once_released(tmp_path: Path) -> None:
    claim_state_folder(tmp_path).release()
    with claim_state_folder(tmp_path) as again:
        again.publish(INFO)


@pytest.mark.parametrize("pid_kind", ["dead", "alive"])
def test_a_server_file_left_by_a_server_that_is_gone_is_replaced(
    tmp_path: Path, pid_kind: str
) -> None:
    # Nobody holds the lock, so the file is stale even when its pid was reused by another
    # process (the "alive" case): the lock, not the pid, says whether a server runs.
    pid = _dead_pid() if pid_kind == "dead" else 1
    left = ServerInfo(url="http://127.0.0.1:1", token="old", pid=pid)
    (tmp_path / "server.json").write_text(dumps(left), encoding="utf-8")
    with claim_state_folder(tmp_path) as claim:
        claim.publish(INFO)
        assert read_server_file(tmp_path) == INFO


def test_the_server_file_is_removed_on_release(tmp_path: Path) -> None:
    with claim_state_folder(tmp_path) as claim:
        claim.publish(INFO)
    assert not (tmp_path / "server.json").exists()


def test_a_server_file_that_is_no_longer_ours_is_left_alone(tmp_path: Path) -> None:
    other = ServerInfo(url="http://127.0.0.1:9", token="theirs", pid=INFO.pid)
    with claim_state_folder(tmp_path) as claim:
        claim.publish(INFO)
        (tmp_path / "server.json").write_text(dumps(other), encoding="utf-8")
    assert read_server_file(tmp_path) == other


def test_publishing_after_release_is_a_bug(tmp_path: Path) -> None:
    claim = claim_state_folder(tmp_path)
    claim.release()
    claim.release()
    with pytest.raises(RuntimeError):
        claim.publish(INFO)


def test_no_server_file_reads_as_none(tmp_path: Path) -> None:
    assert read_server_file(tmp_path) is None


def test_a_malformed_server_file_is_reported(tmp_path: Path) -> None:
    (tmp_path / "server.json").write_bytes(b"\xff{")
    with pytest.raises(DocumentInvalid):
        read_server_file(tmp_path)


def test_a_refusal_with_a_malformed_server_file_still_names_the_lock(tmp_path: Path) -> None:
    with claim_state_folder(tmp_path):
        (tmp_path / "server.json").write_text("{", encoding="utf-8")
        with pytest.raises(ServerAlreadyRunning, match=r"server\.lock"):
            claim_state_folder(tmp_path)


def test_process_liveness_is_judged_by_pid() -> None:
    assert is_process_alive(os.getpid())
    assert not is_process_alive(_dead_pid())


def write_server_file(state: Path, info: ServerInfo) -> None:
    state.mkdir(parents=True, exist_ok=True)
    (state / "server.json").write_text(dumps(info), encoding="utf-8")


def test_no_server_file_is_no_server(tmp_path: Path) -> None:
    assert discover(tmp_path) == Absent(stale=False)


def test_a_server_file_of_a_live_process_is_found(tmp_path: Path) -> None:
    info = ServerInfo(url="http://127.0.0.1:1", token="t", pid=os.getpid())
    write_server_file(tmp_path, info)
    assert discover(tmp_path) == Found(info)


def test_a_server_file_left_by_a_dead_process_is_stale(tmp_path: Path) -> None:
    dead = _dead_pid()
    write_server_file(tmp_path, ServerInfo(url="http://127.0.0.1:1", token="t", pid=dead))
    assert discover(tmp_path) == Absent(stale=True)


@pytest.mark.parametrize("text", ["not json", "[]", '{"url": "x", "token": "t", "pid": 1}'])
def test_a_malformed_server_file_says_how_to_fix_it(tmp_path: Path, text: str) -> None:
    (tmp_path / "server.json").write_text(text, encoding="utf-8")
    with pytest.raises(DocumentInvalid, match="start `quire serve` again"):
        discover(tmp_path)


@pytest.mark.parametrize("pid", [2**62, 2**31 - 1])
def test_an_impossible_pid_is_not_alive(pid: int) -> None:
    assert not is_process_alive(pid)

"""The link reads server.json again only when it changed or its server died."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from quire.client.connection import ServerLink
from quire.core.server_info import ServerInfo, dumps
from quire.settings import server_file as discovery

pytestmark = pytest.mark.anyio


def write_server_file(state: Path, info: ServerInfo) -> None:
    state.mkdir(exist_ok=True)
    temp = state / "server.json.tmp"
    temp.write_text(dumps(info), encoding="utf-8")
    temp.replace(state / "server.json")


async def test_an_unchanged_file_of_a_live_server_is_not_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    info = ServerInfo(url="http://127.0.0.1:1", token="a" * 64, pid=os.getpid())
    write_server_file(tmp_path, info)
    reads: list[Path] = []
    real = discovery.discover

    def counting(state: Path) -> object:
        reads.append(state)
        return real(state)

    monkeypatch.setattr("quire.client.connection.discover", counting)
    link = ServerLink(state=tmp_path)
    try:
        first = await link.running()
        second = await link.running()
        assert first is not None and first is second
        assert len(reads) == 1
        replaced = ServerInfo(url="http://127.0.0.1:2", token="b" * 64, pid=os.getpid())
        write_server_file(tmp_path, replaced)
        third = await link.running()
        assert third is not None and third is not first
        assert len(reads) == 2
        (tmp_path / "server.json").unlink()
        assert await link.running() is None
    finally:
        await link.aclose()

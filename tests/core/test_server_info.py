import pytest

from quire.core.errors import DocumentInvalid
from quire.core.server_info import ServerInfo, dumps, loads


def test_a_server_info_reads_back_as_it_was_written() -> None:
    info = ServerInfo(url="http://127.0.0.1:4747", token="t" * 64, pid=42)
    assert loads(dumps(info)) == info


@pytest.mark.parametrize(
    "text",
    [
        "",
        "not json",
        "[]",
        "null",
        '{"token": "t", "pid": 1}',
        '{"url": 5, "token": "t", "pid": 1}',
        '{"url": "ftp://x", "token": "t", "pid": 1}',
        '{"url": "http://x", "token": "", "pid": 1}',
        '{"url": "http://x", "token": 7, "pid": 1}',
        '{"url": "http://x", "token": "t"}',
        '{"url": "http://x", "token": "t", "pid": "1"}',
        '{"url": "http://x", "token": "t", "pid": true}',
        '{"url": "http://x", "token": "t", "pid": 0}',
        '{"url": "http://x", "token": "t", "pid": -3}',
        '{"url": "http://x", "token": "t", "pid": 1.5}',
        "\0",
    ],
)
def test_a_malformed_server_file_is_refused_with_advice(text: str) -> None:
    with pytest.raises(DocumentInvalid, match="delete the file"):
        loads(text)

"""The per-chat tail index: an unchanged chat is not read, a grown one is parsed from its last
message on, anything else is parsed whole, and the answers are always the file's."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from quire.core.chat import ChatMessage
from quire.core.errors import FileMissing, NotUtf8
from quire.fs.folders import AllowedFolders
from quire.markdown import chat as chat_format
from quire.markdown.chat import parse_chat
from quire.services.chat import tails as chat_index
from quire.services.chat.tails import TAIL_KEPT, ChatIndex, NotAChat
from tests.support.chat_notes import with_message

pytestmark = pytest.mark.anyio

HEAD = "---\nquire-chat: true\ntitle: Team\n---\n\nWhat this chat is for.\n"


def _chat(count: int, start: int = 1) -> str:
    text = HEAD
    for number in range(start, start + count):
        text = with_message(text, f"agent-{number % 3}", "2026-10-02T14:03:05Z", f"m{number}")
    return text


class Calls:
    """What the index asked of the file and the parser."""

    def __init__(self) -> None:
        self.reads = 0
        self.full_parses = 0
        self.scan_starts: list[int] = []


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[Calls]:
    seen = Calls()
    real_read, real_parse, real_scan = (
        chat_index.read_chat_file,
        chat_format.parse_chat,
        chat_format.scan_messages,
    )

    def read(folders: AllowedFolders, path: Path) -> Any:
        seen.reads += 1
        return real_read(folders, path)

    def parse(text: str) -> Any:
        seen.full_parses += 1
        return real_parse(text)

    def scan(text: str, start: int = 0, first_number: int = 1) -> Any:
        seen.scan_starts.append(start)
        return real_scan(text, start, first_number)

    monkeypatch.setattr(chat_index, "read_chat_file", read)
    monkeypatch.setattr(chat_index, "parse_chat", parse)
    monkeypatch.setattr(chat_index, "scan_messages", scan)
    yield seen


def _bodies(messages: tuple[ChatMessage, ...]) -> list[str]:
    return [message.body for message in messages]


def _write(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")
    # Make sure a rewrite of the same size is seen even on a coarse clock.
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))


async def test_a_chat_is_read_whole_once_then_not_at_all_while_unchanged(
    tmp_path: Path, calls: Calls
) -> None:
    path = tmp_path / "chat.md"
    _write(path, _chat(5))
    index = ChatIndex(AllowedFolders.whole_disk())
    state = await index.state(path)
    again = await index.state(path)
    assert again is state
    assert (calls.reads, calls.full_parses) == (1, 1)
    assert (state.count, state.title, state.description) == (5, "Team", "What this chat is for.")
    assert state.participants == ("agent-1", "agent-2", "agent-0")


async def test_a_grown_chat_is_parsed_from_its_last_message_on(
    tmp_path: Path, calls: Calls
) -> None:
    path = tmp_path / "chat.md"
    text = _chat(1000)
    _write(path, text)
    index = ChatIndex(AllowedFolders.whole_disk())
    first = await index.state(path)
    last_offset = first.offsets[-1]
    grown = with_message(text, "late", "2026-10-02T15:00:00Z", "the newest")
    _write(path, grown)
    state = await index.state(path)
    assert calls.full_parses == 1
    assert calls.scan_starts == [last_offset]
    assert state.count == 1001
    assert state.tail[-1] == parse_chat(grown).messages[-1]
    assert state.participants[-1] == "late"
    assert state.cached_after(1000) == (state.tail[-1],)


async def test_a_last_message_that_grew_is_read_again(tmp_path: Path) -> None:
    path = tmp_path / "chat.md"
    text = _chat(3)
    _write(path, text)
    index = ChatIndex(AllowedFolders.whole_disk())
    await index.state(path)
    _write(path, text + "more of the third\n")
    state = await index.state(path)
    assert state.count == 3
    assert state.tail[-1].body == parse_chat(text + "more of the third\n").messages[-1].body


@pytest.mark.parametrize(
    "change",
    [
        lambda text: text.replace("m2\n", "m2 edited\n"),
        lambda text: text.replace("title: Team", "title: Renamed"),
        lambda text: text.replace("#### agent-0 · 2026-10-02T14:03:05Z\n\nm3", "m3 no header"),
        lambda text: text[: text.rindex("####")],
        lambda text: text[:-3] + " x\n",
    ],
    ids=["earlier message edited", "title changed", "header removed", "last cut", "last edited"],
)
async def test_any_other_change_is_parsed_whole_and_matches_the_file(
    tmp_path: Path, change: Any
) -> None:
    path = tmp_path / "chat.md"
    text = _chat(4)
    _write(path, text)
    index = ChatIndex(AllowedFolders.whole_disk())
    await index.state(path)
    changed = change(text)
    _write(path, changed)
    state, messages = await index.messages_after(path, 0)
    expected = parse_chat(changed)
    assert messages == expected.messages
    assert state.title == expected.title
    assert state.count == len(expected.messages)


async def test_a_header_line_extended_in_place_is_no_longer_a_message(tmp_path: Path) -> None:
    path = tmp_path / "chat.md"
    text = HEAD + "\n#### bob · 2026-10-02T14:03:05Z"
    _write(path, text)
    index = ChatIndex(AllowedFolders.whole_disk())
    assert (await index.state(path)).count == 1
    # The old last line was a header with no line break; text added to it unmakes it.
    first = HEAD + "\n#### ann · 2026-10-02T14:00:00Z\n\nhi\n\n#### bob · 2026-10-02T14:03:05Z"
    _write(path, first)
    assert (await index.state(path)).count == 2
    _write(path, first + " is not a header any more\n")
    state, messages = await index.messages_after(path, 0)
    assert state.count == 1
    assert [message.author for message in messages] == ["ann"]


async def test_messages_before_the_kept_tail_are_read_from_the_file(
    tmp_path: Path, calls: Calls
) -> None:
    path = tmp_path / "chat.md"
    count = TAIL_KEPT + 50
    _write(path, _chat(count))
    index = ChatIndex(AllowedFolders.whole_disk())
    state = await index.state(path)
    assert len(state.tail) == TAIL_KEPT
    assert state.cached_after(10) is None
    state, messages = await index.messages_after(path, 10)
    assert [message.number for message in messages] == list(range(11, count + 1))
    assert calls.scan_starts == [state.offsets[10]]
    assert _bodies(messages)[:2] == ["m11", "m12"]
    _state, none = await index.messages_after(path, count)
    assert none == ()


async def test_a_note_that_is_not_a_chat_is_refused_and_forgotten(tmp_path: Path) -> None:
    path = tmp_path / "chat.md"
    _write(path, _chat(2))
    index = ChatIndex(AllowedFolders.whole_disk())
    await index.state(path)
    _write(path, "# Just a note\n\n#### bob · 2026-10-02T14:03:05Z\n")
    with pytest.raises(NotAChat, match="not a chat"):
        await index.state(path)
    assert index.known(path) is None


async def test_the_legacy_tag_reads_as_a_chat(tmp_path: Path) -> None:
    path = tmp_path / "chat.md"
    _write(path, "---\nmdnest-chat: true\n---\n\n#### bob · 2026-10-02T14:03:05Z\n\nhi\n")
    assert (await ChatIndex(AllowedFolders.whole_disk()).state(path)).count == 1


@pytest.mark.parametrize(
    ("content", "error"),
    [
        (None, FileMissing),
        (b"---\nquire-chat: true\n---\n\n\xff\xfe broken", NotUtf8),
    ],
)
async def test_an_unreadable_chat_raises_what_the_read_says(
    tmp_path: Path, content: bytes | None, error: type[Exception]
) -> None:
    path = tmp_path / "chat.md"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(error):
        await ChatIndex(AllowedFolders.whole_disk()).state(path)


async def test_a_deleted_chat_is_missing_after_being_known(tmp_path: Path) -> None:
    path = tmp_path / "chat.md"
    _write(path, _chat(2))
    index = ChatIndex(AllowedFolders.whole_disk())
    await index.state(path)
    path.unlink()
    with pytest.raises(FileMissing):
        await index.state(path)


async def test_cached_after_answers_only_from_the_tail() -> None:
    text = _chat(3)
    note = parse_chat(text)
    identity = chat_index.FileIdentity(1, 1, len(text), 1)
    state = chat_index.parse_state(Path("/x/chat.md"), text, text.encode(), identity)
    assert state.cached_after(0) == note.messages
    assert state.cached_after(2) == note.messages[2:]
    assert state.cached_after(3) == ()
    assert state.cached_after(99) == ()

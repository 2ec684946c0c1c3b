"""Conversation memory: session files, their names, limits, permissions and concurrent writers."""

from __future__ import annotations

import dataclasses
import fcntl
import itertools
import json
import os
import stat
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from quire.core.errors import (
    DocumentInvalid,
    FileTooLarge,
    InvalidArgument,
    PathRefused,
    QuireError,
    StorageFailed,
)
from quire.core.limits import MAX_DOCUMENT_BYTES
from quire.memory.session_file import StoredMessage, encode_within
from quire.memory.sessions import (
    ConversationContext,
    SavedMessage,
    SessionStore,
)

CLOCK_START = 1_700_000_000_000

StoreFactory = Callable[..., SessionStore]


@pytest.fixture
def cwd(tmp_path: Path) -> Path:
    return tmp_path / "work"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tmp_path / "state" / "sessions"


@pytest.fixture
def make_store(root: Path, cwd: Path, home: Path) -> StoreFactory:
    def make(**options: Any) -> SessionStore:
        clock = itertools.count(CLOCK_START).__next__
        return SessionStore(root, clock=clock, cwd=cwd, home=home, **options)

    return make


@pytest.fixture
def store(make_store: StoreFactory) -> SessionStore:
    return make_store()


def write_session(path: Path, document: object) -> bytes:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = json.dumps(document).encode()
    path.write_bytes(data)
    return data


def message(session_id: str, content: str, cited: list[str] | None = None) -> dict[str, object]:
    return {
        "id": f"id-{content}",
        "sessionId": session_id,
        "role": "human",
        "content": content,
        "citedDocs": cited or [],
        "timestampMs": 5,
    }


# --- the public shape -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("result", "keys"),
    [
        (
            SavedMessage,
            ["ok", "messageId", "sessionId", "role", "timestampMs", "dropped", "note"],
        ),
        (ConversationContext, ["sessionId", "messages", "count", "recentDocs"]),
        (StoredMessage, ["id", "sessionId", "role", "content", "citedDocs", "timestampMs"]),
    ],
)
def test_result_fields_are_the_json_keys_agents_see(result: type, keys: list[str]) -> None:
    assert [field.name for field in dataclasses.fields(result)] == keys


def test_results_are_frozen(store: SessionStore) -> None:
    saved = store.save("s", "agent", "hello")
    with pytest.raises(dataclasses.FrozenInstanceError):
        saved.ok = False  # type: ignore[misc]


# --- file names ---------------------------------------------------------------------------------


def test_a_session_is_stored_in_its_encoded_file(store: SessionStore, root: Path) -> None:
    store.save("a.b", "agent", "hi")
    assert sorted(path.name for path in root.iterdir()) == [".lock", "a%2Eb.json"]


# --- saving: argument rules ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("arguments", "argument", "fragment"),
    [
        ({"session_id": ""}, "session_id", "session_id"),
        ({"session_id": "  "}, "session_id", "session_id"),
        ({"session_id": None}, "session_id", "session_id"),
        ({"session_id": "a" * 201}, "session_id", "200 bytes"),
        ({"role": "bot"}, "role", "agent, human, system"),
        ({"role": ""}, "role", "agent, human, system"),
        ({"role": "Agent"}, "role", "agent, human, system"),
        ({"role": None}, "role", "agent, human, system"),
        ({"content": ""}, "content", "empty"),
        ({"content": " \t\n"}, "content", "whitespace"),
        ({"content": None}, "content", "content"),
        ({"content": 5}, "content", "content"),
        ({"content": "half \ud83d"}, "content", "Unicode"),
        ({"cited_docs": [""]}, "cited_docs", "cited_docs[0] is blank"),
        ({"cited_docs": ["a.md", " \t"]}, "cited_docs", "cited_docs[1] is blank"),
        ({"cited_docs": "notes.md"}, "cited_docs", "list"),
        ({"cited_docs": {"a.md": 1}}, "cited_docs", "list"),
        ({"cited_docs": [5]}, "cited_docs", "cited_docs[0]"),
        ({"cited_docs": ["a\0b.md"]}, "cited_docs[0]", "NUL"),
        ({"cited_docs": ["bad\udc80.md"]}, "cited_docs", "cited_docs[0]"),
    ],
)
def test_a_save_that_breaks_an_argument_rule_is_refused_and_writes_nothing(
    store: SessionStore, root: Path, arguments: dict[str, Any], argument: str, fragment: str
) -> None:
    call: dict[str, Any] = {"session_id": "s", "role": "agent", "content": "hi"} | arguments
    with pytest.raises(InvalidArgument) as caught:
        store.save(**call)
    assert caught.value.argument == argument
    assert fragment in str(caught.value)
    assert not root.exists() or not list(root.glob("*.json"))


@pytest.mark.parametrize("role", ["agent", "human", "system"])
def test_each_role_is_saved_and_read_back(store: SessionStore, role: str) -> None:
    store.save("s", role, "hi")
    assert [m.role for m in store.context("s").messages] == [role]


def test_a_save_reports_what_was_stored(store: SessionStore) -> None:
    saved = store.save("s", "human", "first")
    assert saved == SavedMessage(
        ok=True,
        messageId=saved.messageId,
        sessionId="s",
        role="human",
        timestampMs=CLOCK_START,
        dropped=None,
        note=None,
    )
    assert len(saved.messageId) == 32
    int(saved.messageId, 16)
    [stored] = store.context("s").messages
    assert stored == StoredMessage(
        id=saved.messageId,
        sessionId="s",
        role="human",
        content="first",
        citedDocs=[],
        timestampMs=CLOCK_START,
    )


def test_message_ids_are_unique(store: SessionStore) -> None:
    ids = {store.save("s", "agent", f"m{n}").messageId for n in range(50)}
    assert len(ids) == 50


@pytest.mark.parametrize(
    "content", ["  x ", "line\r\nbreak", "nul\0byte", "日本語 😀", "\u202e", '"quoted" \\ {json}']
)
def test_any_non_empty_text_is_stored_exactly(store: SessionStore, content: str) -> None:
    store.save("s", "agent", content)
    assert [m.content for m in store.context("s").messages] == [content]


# --- cited documents ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given_docs", "stored"),
    [
        (["notes/plan.md"], ["{cwd}/notes/plan.md"]),
        (["./plan.md"], ["{cwd}/plan.md"]),
        (["~/plan.md"], ["{home}/plan.md"]),
        (["~"], ["{home}"]),
        (["/abs/plan.md"], ["/abs/plan.md"]),
        (["/abs/../plan.md"], ["/abs/../plan.md"]),
        (["a.md", "b.md", "a.md"], ["{cwd}/a.md", "{cwd}/b.md"]),
        (["a.md", "{cwd}/a.md"], ["{cwd}/a.md"]),
        (["{cwd}/b.md", "b.md", "a.md"], ["{cwd}/b.md", "{cwd}/a.md"]),
        (["~/x.md", "{home}/x.md"], ["{home}/x.md"]),
        ([], []),
        (("t.md",), ["{cwd}/t.md"]),
    ],
)
def test_cited_docs_are_stored_absolute_and_once_in_first_given_order(
    store: SessionStore, cwd: Path, home: Path, given_docs: list[str], stored: list[str]
) -> None:
    def fill(text: str) -> str:
        return text.format(cwd=cwd, home=home)

    store.save("s", "agent", "hi", [fill(doc) for doc in given_docs])
    [message_read] = store.context("s").messages
    assert message_read.citedDocs == [fill(doc) for doc in stored]


def test_no_cited_docs_stores_an_empty_list(store: SessionStore) -> None:
    store.save("s", "agent", "hi", None)
    assert store.context("s").messages[0].citedDocs == []


# --- reading context ---------------------------------------------------------------------------


def test_a_session_with_no_messages_is_empty_and_reading_creates_nothing(
    store: SessionStore, root: Path
) -> None:
    assert store.context("nobody") == ConversationContext(
        sessionId="nobody", messages=[], count=0, recentDocs=[]
    )
    assert not root.exists()


@pytest.mark.parametrize(("saved", "limit", "expected"), [(5, 3, [2, 3, 4]), (2, 10, [0, 1])])
def test_context_returns_the_last_messages_oldest_first(
    store: SessionStore, saved: int, limit: int, expected: list[int]
) -> None:
    for n in range(saved):
        store.save("s", "agent", f"m{n}")
    result = store.context("s", limit)
    assert [m.content for m in result.messages] == [f"m{n}" for n in expected]
    assert result.count == len(expected)
    assert [m.timestampMs for m in result.messages] == [CLOCK_START + n for n in expected]


def test_context_returns_twenty_messages_by_default(store: SessionStore) -> None:
    for n in range(25):
        store.save("s", "agent", f"m{n}")
    result = store.context("s")
    assert result.count == 20
    assert result.messages[0].content == "m5"


@pytest.mark.parametrize("limit", [0, -1, 201, 10**9, True, False, 1.5, "20", None])
def test_a_limit_outside_1_to_200_is_refused_naming_the_range(
    store: SessionStore, limit: Any
) -> None:
    with pytest.raises(InvalidArgument) as caught:
        store.context("s", limit)
    assert caught.value.argument == "limit"
    assert "from 1 to 200" in str(caught.value)


@pytest.mark.parametrize("limit", [1, 200])
def test_a_limit_at_either_end_of_the_range_is_accepted(store: SessionStore, limit: int) -> None:
    for n in range(3):
        store.save("s", "agent", f"m{n}")
    assert store.context("s", limit).count == min(limit, 3)


@pytest.mark.parametrize("session_id", ["", " ", "a" * 201])
def test_context_refuses_a_session_id_it_cannot_name_a_file_for(
    store: SessionStore, session_id: str
) -> None:
    with pytest.raises(InvalidArgument):
        store.context(session_id)


def test_recent_docs_lists_the_most_recently_cited_first_each_once(store: SessionStore) -> None:
    store.save("s", "agent", "one", ["/a.md", "/b.md"])
    store.save("s", "human", "two", ["/c.md", "/a.md"])
    store.save("s", "agent", "three")
    assert store.context("s").recentDocs == ["/c.md", "/a.md", "/b.md"]


def test_recent_docs_comes_only_from_the_returned_messages(store: SessionStore) -> None:
    store.save("s", "agent", "old", ["/old.md"])
    store.save("s", "agent", "new", ["/new.md"])
    assert store.context("s", 1).recentDocs == ["/new.md"]


def test_blank_and_repeated_paths_in_a_hand_edited_file_are_left_out(
    store: SessionStore, root: Path
) -> None:
    cited = ["", "/a.md", "  ", "/a.md", "/b.md", "\t"]
    write_session(root / "s.json", {"sessionId": "s", "messages": [message("s", "x", cited)]})
    result = store.context("s")
    assert result.messages[0].citedDocs == ["/a.md", "/b.md"]
    assert result.recentDocs == ["/a.md", "/b.md"]


def test_a_hand_written_session_is_read_and_appended_to(store: SessionStore, root: Path) -> None:
    write_session(root / "s.json", {"sessionId": "s", "messages": [message("s", "before")]})
    store.save("s", "agent", "after")
    assert [m.content for m in store.context("s").messages] == ["before", "after"]


# --- ids a case-insensitive file system folds together -----------------------------------------


def test_reads_skip_messages_of_another_session_in_the_same_file(
    store: SessionStore, root: Path
) -> None:
    messages = [message("ABC", "theirs"), message("abc", "mine"), message("ABC", "theirs too")]
    write_session(root / "abc.json", {"sessionId": "ABC", "messages": messages})
    assert [m.content for m in store.context("abc").messages] == ["mine"]


@pytest.mark.parametrize(
    "document",
    [
        {"sessionId": "ABC", "messages": [message("ABC", "theirs")]},
        {"sessionId": "abc", "messages": [message("abc", "mine"), message("ABC", "theirs")]},
        {"sessionId": "ABC", "messages": []},
    ],
)
def test_an_append_to_a_file_holding_another_sessions_messages_is_refused(
    store: SessionStore, root: Path, document: object
) -> None:
    data = write_session(root / "abc.json", document)
    with pytest.raises(InvalidArgument) as caught:
        store.save("abc", "agent", "hi")
    assert "'ABC'" in str(caught.value)
    assert "letter case" in str(caught.value)
    assert (root / "abc.json").read_bytes() == data


# --- the file on disk --------------------------------------------------------------------------


def test_the_file_is_the_documented_json_shape(store: SessionStore, root: Path) -> None:
    saved = store.save("s", "agent", "hi", ["/a.md"])
    assert json.loads((root / "s.json").read_text(encoding="utf-8")) == {
        "sessionId": "s",
        "messages": [
            {
                "id": saved.messageId,
                "sessionId": "s",
                "role": "agent",
                "content": "hi",
                "citedDocs": ["/a.md"],
                "timestampMs": CLOCK_START,
            }
        ],
    }


def test_the_sessions_folder_is_owner_only_and_each_file_0600(
    store: SessionStore, root: Path
) -> None:
    store.save("s", "agent", "hi")
    assert stat.S_IMODE(root.stat().st_mode) == 0o700
    assert stat.S_IMODE((root / "s.json").stat().st_mode) == 0o600
    assert stat.S_IMODE((root / ".lock").stat().st_mode) == 0o600


@pytest.mark.parametrize("loose", [0o755, 0o777, 0o711, 0o500])
def test_an_existing_sessions_folder_is_set_to_0700(
    store: SessionStore, root: Path, loose: int
) -> None:
    root.mkdir(parents=True)
    root.chmod(loose)
    store.save("s", "agent", "hi")
    assert stat.S_IMODE(root.stat().st_mode) == 0o700


def test_an_existing_session_file_is_tightened_to_0600(store: SessionStore, root: Path) -> None:
    write_session(root / "s.json", {"sessionId": "s", "messages": []})
    (root / "s.json").chmod(0o644)
    store.save("s", "agent", "hi")
    assert stat.S_IMODE((root / "s.json").stat().st_mode) == 0o600


def test_a_file_where_the_sessions_folder_should_be_is_refused(
    store: SessionStore, root: Path
) -> None:
    root.parent.mkdir(parents=True)
    root.write_text("not a folder", encoding="utf-8")
    with pytest.raises(PathRefused):
        store.save("s", "agent", "hi")
    assert root.read_text(encoding="utf-8") == "not a folder"


# --- files that cannot be used -----------------------------------------------------------------


CORRUPT_FILES = [
    b"",
    b"{",
    b"[]",
    b"null",
    b'{"messages": []}',
    b'{"sessionId": "s"}',
    b'{"sessionId": 5, "messages": []}',
    b'{"sessionId": "s", "messages": {}}',
    b'{"sessionId": "s", "messages": [1]}',
    b'{"sessionId": "s", "messages": [{"id": "x"}]}',
    json.dumps({"sessionId": "s", "messages": [message("s", "x") | {"timestampMs": "5"}]}).encode(),
    json.dumps(
        {"sessionId": "s", "messages": [message("s", "x") | {"timestampMs": True}]}
    ).encode(),
    json.dumps({"sessionId": "s", "messages": [message("s", "x") | {"timestampMs": 1.5}]}).encode(),
    json.dumps({"sessionId": "s", "messages": [message("s", "x") | {"citedDocs": "/a"}]}).encode(),
    json.dumps({"sessionId": "s", "messages": [message("s", "x") | {"citedDocs": [1]}]}).encode(),
    json.dumps({"sessionId": "s", "messages": [message("s", "x") | {"role": None}]}).encode(),
    json.dumps(
        {"sessionId": "s", "messages": [message("s", "x") | {"timestampMs": float("nan")}]}
    ).encode(),
    b"\xff\xfe{}",
    b'{"sessionId": "caf\xe9", "messages": []}',
    b"[" * 100_000,
]


@pytest.mark.parametrize("data", CORRUPT_FILES)
def test_a_file_that_cannot_be_parsed_is_left_alone_and_the_save_refused(
    store: SessionStore, root: Path, data: bytes
) -> None:
    root.mkdir(parents=True)
    (root / "s.json").write_bytes(data)
    with pytest.raises(DocumentInvalid) as caught:
        store.save("s", "agent", "hi")
    assert "was not saved" in str(caught.value)
    assert "left as it is" in str(caught.value)
    assert "Move it out of" in str(caught.value)
    assert (root / "s.json").read_bytes() == data


@pytest.mark.parametrize("data", CORRUPT_FILES)
def test_a_file_that_cannot_be_parsed_is_an_error_when_read(
    store: SessionStore, root: Path, data: bytes
) -> None:
    root.mkdir(parents=True)
    (root / "s.json").write_bytes(data)
    with pytest.raises(DocumentInvalid) as caught:
        store.context("s")
    assert "could not be read" in str(caught.value)
    assert (root / "s.json").read_bytes() == data


def test_a_file_over_16_mib_is_not_read_and_the_error_says_how_large(
    store: SessionStore, root: Path
) -> None:
    root.mkdir(parents=True)
    path = root / "s.json"
    with path.open("wb") as handle:
        handle.truncate(MAX_DOCUMENT_BYTES + 1)
    with pytest.raises(FileTooLarge) as caught:
        store.context("s")
    assert "16,777,217 bytes" in str(caught.value)
    assert "16 MiB" in str(caught.value)
    with pytest.raises(FileTooLarge) as caught:
        store.save("s", "agent", "hi")
    assert "was not saved" in str(caught.value)
    assert path.stat().st_size == MAX_DOCUMENT_BYTES + 1


def test_a_file_over_the_injected_cap_is_left_alone(make_store: StoreFactory, root: Path) -> None:
    store = make_store(max_file_bytes=1000)
    data = write_session(
        root / "s.json", {"sessionId": "s", "messages": [message("s", "x" * 1000)]}
    )
    with pytest.raises(FileTooLarge) as caught:
        store.save("s", "agent", "hi")
    assert f"{len(data):,} bytes" in str(caught.value)
    assert (root / "s.json").read_bytes() == data


def test_a_link_at_the_session_file_is_refused_and_never_written_through(
    store: SessionStore, root: Path, tmp_path: Path
) -> None:
    target = tmp_path / "elsewhere.json"
    data = write_session(target, {"sessionId": "s", "messages": [message("s", "kept")]})
    root.mkdir(parents=True)
    (root / "s.json").symlink_to(target)
    with pytest.raises(QuireError):
        store.save("s", "agent", "hi")
    with pytest.raises(QuireError):
        store.context("s")
    assert target.read_bytes() == data
    assert (root / "s.json").is_symlink()


def test_a_folder_at_the_session_file_is_refused(store: SessionStore, root: Path) -> None:
    (root / "s.json").mkdir(parents=True)
    with pytest.raises(QuireError):
        store.save("s", "agent", "hi")
    assert (root / "s.json").is_dir()


def test_a_fifo_at_the_session_file_is_refused_without_blocking(
    store: SessionStore, root: Path
) -> None:
    root.mkdir(parents=True)
    os.mkfifo(root / "s.json")
    with pytest.raises(PathRefused):
        store.context("s")
    with pytest.raises(PathRefused):
        store.save("s", "agent", "hi")


def test_a_link_at_the_lock_file_is_refused(
    store: SessionStore, root: Path, tmp_path: Path
) -> None:
    target = tmp_path / "target"
    target.write_text("keep", encoding="utf-8")
    root.mkdir(parents=True)
    (root / ".lock").symlink_to(target)
    with pytest.raises(StorageFailed):
        store.save("s", "agent", "hi")
    assert target.read_text(encoding="utf-8") == "keep"
    assert not (root / "s.json").exists()


# --- keeping a file within its cap -------------------------------------------------------------


def test_the_oldest_messages_are_dropped_to_stay_within_the_cap(
    make_store: StoreFactory, root: Path
) -> None:
    cap = 2000
    store = make_store(max_file_bytes=cap)
    results = [store.save("s", "agent", f"{n:03d}" + "x" * 200) for n in range(30)]
    path = root / "s.json"
    assert path.stat().st_size <= cap
    kept = store.context("s", 200).messages
    total_dropped = sum(result.dropped or 0 for result in results)
    assert total_dropped > 0
    assert len(kept) + total_dropped == 30
    assert [m.content[:3] for m in kept] == [f"{n:03d}" for n in range(total_dropped, 30)]


def test_a_save_that_drops_messages_says_how_many_and_drops_no_more_than_needed(
    make_store: StoreFactory, root: Path
) -> None:
    cap = 1500
    store = make_store(max_file_bytes=cap)
    for n in range(4):
        store.save("s", "agent", f"small {n}")
    before = store.context("s", 200).messages
    saved = store.save("s", "agent", "y" * 1100)
    after = store.context("s", 200).messages
    assert saved.dropped == len(before) + 1 - len(after)
    assert saved.dropped is not None and saved.dropped >= 1
    assert saved.note is not None
    assert "1,500 bytes" in saved.note
    assert f"{saved.dropped} oldest messages were dropped" in saved.note or (
        saved.dropped == 1 and "oldest message was dropped" in saved.note
    )
    assert after == [*before[saved.dropped :], after[-1]]
    # Keeping one more old message would have passed the cap.
    one_more, _ = encode_within("s", [before[saved.dropped - 1], *after], 10**9)
    assert len(one_more) > cap
    assert (root / "s.json").stat().st_size <= cap


def test_a_save_that_fits_reports_nothing_dropped(make_store: StoreFactory) -> None:
    saved = make_store(max_file_bytes=10_000).save("s", "agent", "short")
    assert (saved.dropped, saved.note) == (None, None)


@pytest.mark.parametrize("size", [1000, 5000])
def test_a_message_that_alone_passes_the_cap_is_refused_and_nothing_is_lost(
    make_store: StoreFactory, root: Path, size: int
) -> None:
    store = make_store(max_file_bytes=1000)
    store.save("s", "agent", "keep me")
    data = (root / "s.json").read_bytes()
    with pytest.raises(InvalidArgument) as caught:
        store.save("s", "agent", "z" * size)
    assert caught.value.argument == "content"
    assert "1,000 bytes" in str(caught.value)
    assert (root / "s.json").read_bytes() == data


# --- concurrent writers ------------------------------------------------------------------------


def test_concurrent_threads_lose_no_message(store: SessionStore) -> None:
    def write(worker: int) -> None:
        for n in range(10):
            store.save("shared", "agent", f"{worker}-{n}")

    threads = [threading.Thread(target=write, args=(worker,)) for worker in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    contents = [m.content for m in store.context("shared", 200).messages]
    assert sorted(contents) == sorted(f"{w}-{n}" for w in range(8) for n in range(10))


WORKER = """
import sys
from pathlib import Path
from quire.memory.sessions import SessionStore

root, name, count = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
store = SessionStore(root, clock=lambda: 0, cwd=root, home=root)
sys.stdin.read()  # start when the test closes stdin, so every worker writes at once
for n in range(count):
    store.save("shared", "agent", f"{name}-{n}")
"""


def test_concurrent_processes_lose_no_message(store: SessionStore, root: Path) -> None:
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, str(root), f"p{index}", "25"],
            stdin=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for index in range(4)
    ]
    for worker in workers:
        assert worker.stdin is not None
        worker.stdin.close()
    for worker in workers:
        assert worker.wait(timeout=120) == 0, worker.stderr and worker.stderr.read().decode()
        assert worker.stderr is not None
        worker.stderr.close()
    contents = [m.content for m in store.context("shared", 200).messages]
    assert len(contents) == 100
    assert sorted(contents) == sorted(f"p{i}-{n}" for i in range(4) for n in range(25))


def test_a_writer_waits_for_the_lock_another_process_holds(store: SessionStore, root: Path) -> None:
    store.save("s", "agent", "first")
    saved = threading.Event()

    def write() -> None:
        store.save("s", "agent", "second")
        saved.set()

    with (root / ".lock").open("rb") as holder:
        fcntl.flock(holder, fcntl.LOCK_EX)
        writer = threading.Thread(target=write)
        writer.start()
        # The writer cannot finish while the lock is held, however long it is given.
        assert not saved.wait(timeout=0.5)
        assert [m.content for m in store.context("s").messages] == ["first"]
    writer.join()
    assert [m.content for m in store.context("s").messages] == ["first", "second"]

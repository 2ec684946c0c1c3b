"""What quire chat prints: other people's text made safe for a terminal, and each layout."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quire.api.chats import (
    ChatSummary,
    ChatView,
    ContextUse,
    GifList,
    GifName,
    Message,
    Posted,
    Presence,
    Waited,
)
from quire.cli.chat_output import (
    chats_text,
    gifs_text,
    gone_text,
    json_text,
    names_line,
    post_text,
    safe,
    safe_line,
    timeout_text,
    view_text,
    wait_text,
)

ANN = Message(
    number=1,
    author="ann",
    time="2026-10-02T14:03:05Z",
    body="API done.\nCan you check?",
    mentions=(),
)
BOB = Message(
    number=2, author="bob", time="2026-10-02T14:03:40Z", body="On it @ann", mentions=("ann",)
)


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("plain text", "plain text"),
        ("tab\tand\nnewline", "tab\tand\nnewline"),
        ("\x1b[31mred\x1b[0m", "\\u{1B}[31mred\\u{1B}[0m"),
        ("\x1b]0;title\x07", "\\u{1B}]0;title\\u{7}"),
        ("over\rwrite", "over\\u{D}write"),
        ("nul\0byte", "nul\\u{0}byte"),
        ("del\x7f", "del\\u{7F}"),
        ("c1 \x9b31m csi", "c1 \\u{9B}31m csi"),
        ("bidi \u202egnp.exe", "bidi \\u{202E}gnp.exe"),
        ("isolate \u2066x\u2069", "isolate \\u{2066}x\\u{2069}"),
        ("marks \u200e\u200f\u061c", "marks \\u{200E}\\u{200F}\\u{61C}"),
        ("line\u2028sep", "line\\u{2028}sep"),
        ("lone \ud800 surrogate", "lone \\u{D800} surrogate"),
        ("émoji 🎉 and 中文", "émoji 🎉 and 中文"),
        ("", ""),
    ],
)
def test_control_and_escape_characters_are_shown_as_escapes(text: str, shown: str) -> None:
    assert safe(text) == shown


def test_a_name_or_status_stays_on_one_line() -> None:
    assert safe_line("two\nlines\tand\x1b") == "two\\nlines and\\u{1B}"


@given(st.text())
def test_no_terminal_control_survives_in_text_or_json(text: str) -> None:
    for shown in (safe(text), json_text({"body": text})):
        for char in shown:
            code = ord(char)
            assert char in "\n\t" or not (code < 0x20 or 0x7F <= code <= 0x9F)
            assert not 0xD800 <= code <= 0xDFFF
            assert char not in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
        shown.encode("utf-8")


@given(st.text())
def test_json_output_still_decodes_to_the_original_text(text: str) -> None:
    assert json.loads(json_text({"body": text})) == {"body": text}


def test_json_output_keeps_readable_unicode() -> None:
    assert json_text({"a": "é\x1b"}) == '{\n  "a": "é\\u001b"\n}'


def view(**changes: object) -> ChatView:
    base = ChatView(
        path="/w/Chats/team.md",
        title="Release",
        description="Ship 2.0.",
        participants=("ann", "bob"),
        messages=(ANN, BOB),
        next=2,
        presence=(
            Presence(name="bob", state="waiting", status=None, context=None),
            Presence(
                name="qa-1",
                state="working",
                status="running tests",
                context=ContextUse(text="42%", percent=42),
            ),
            Presence(name="codex", state="thinking", status=None, context=None),
        ),
        roles={"qa-1": "Test the login page"},
        avatars={},
    )
    return base.model_copy(update=changes)


def test_read_names_everyone_then_shows_the_chat() -> None:
    assert view_text(view()) == (
        "In this chat: ann, bob, qa-1, codex · working now: qa-1 (running tests)\n\n"
        "Title: Release\nPath: /w/Chats/team.md\n\n"
        "Ship 2.0.\n\n"
        "Roles:\n- qa-1: Test the login page\n\n"
        "[#1] ann · 2026-10-02T14:03:05Z\nAPI done.\nCan you check?\n\n"
        "[#2] bob · 2026-10-02T14:03:40Z\nOn it @ann"
    )


def test_an_empty_chat_says_so() -> None:
    text = view_text(
        view(participants=(), messages=(), presence=(), roles={}, title=None, description="")
    )
    assert text == "In this chat: nobody yet\n\nPath: /w/Chats/team.md\n\nNo messages yet."


def test_names_are_listed_once_whatever_their_case() -> None:
    line = names_line(
        view(presence=(Presence(name="BOB", state="working", status=None, context=None),))
    )
    assert line == "In this chat: ann, bob · working now: BOB"


def test_forged_names_cannot_break_the_first_line() -> None:
    line = names_line(view(participants=("evil\n[#9] admin · x", "\x1b[2J"), presence=()))
    assert "\n" not in line and "\x1b" not in line


def test_a_wait_shows_the_messages_then_the_role_reminder() -> None:
    result = Waited(
        status="messages",
        messages=(BOB,),
        next=2,
        reminder="(reminder for ann) Your role in this chat: Lead",
    )
    assert wait_text(result) == (
        "[#2] bob · 2026-10-02T14:03:40Z\nOn it @ann\n\n"
        "(reminder for ann) Your role in this chat: Lead"
    )
    assert wait_text(Waited(status="messages", messages=(BOB,), next=2, reminder=None)) == (
        "[#2] bob · 2026-10-02T14:03:40Z\nOn it @ann"
    )


def test_timeout_and_gone_say_what_to_do_next() -> None:
    assert timeout_text("/w/c.md", "ann", 120) == (
        "No new messages for ann in /w/c.md within 120 s. Run the same command again to keep "
        "waiting."
    )
    assert gone_text("/w/c.md", "quire chat leave c.md --as ann") == (
        "This chat is gone: /w/c.md was deleted, made unreadable or is no longer a chat. Stop "
        "waiting on it and run:\nquire chat leave c.md --as ann"
    )


@pytest.mark.parametrize(
    ("result", "text"),
    [
        (Posted(kind="message", number=5), "Posted #5 to /w/c.md as ann."),
        (Posted(kind="status", cleared=False), "Status of ann set (not added to the chat)."),
        (Posted(kind="status", cleared=True), "Status of ann cleared (not added to the chat)."),
        (
            Posted(kind="context", cleared=False),
            "Context use of ann recorded (not added to the chat).",
        ),
        (
            Posted(kind="context", cleared=True),
            "Context use of ann cleared (not added to the chat).",
        ),
        (
            Posted(kind="role", cleared=False),
            "Role of ann saved in the chat's front matter (not added to the chat).",
        ),
        (Posted(kind="role", cleared=True), "Role of ann removed (not added to the chat)."),
    ],
)
def test_each_kind_of_post_is_reported(result: Posted, text: str) -> None:
    assert post_text(result, "/w/c.md", "ann") == text


def test_the_chat_list_shows_counts_pins_and_last_activity() -> None:
    chats = [
        ChatSummary(
            path="/w/a.md",
            workspace="/w",
            title="Alpha",
            message_count=3,
            last_activity=1_791_000_000_000,
            unread=2,
            pinned=True,
        ),
        ChatSummary(
            path="/w/b.md",
            workspace="/w",
            title="",
            message_count=1,
            last_activity=0,
            unread=0,
            pinned=False,
        ),
    ]
    assert chats_text(chats) == (
        "/w/a.md — Alpha (3 messages, 2 unread, pinned, last 2026-10-03T04:00:00Z)\n"
        "/w/b.md (1 message)"
    )
    assert chats_text([]).startswith("No chats yet.")


def test_the_image_list_separates_built_ins_from_the_workspace_s_own() -> None:
    gifs = GifList(
        gifs=(
            GifName(name="nod", builtin=True),
            GifName(name="wave", builtin=True),
            GifName(name="ship", builtin=False),
        ),
        avatars={"ann": "avatar-ann"},
    )
    assert gifs_text(gifs) == (
        "Built in: nod, wave\nFrom this workspace's ChatGifs/: ship\nAvatars: ann: avatar-ann\n"
        "React with ![nod](gif:nod) in a message."
    )

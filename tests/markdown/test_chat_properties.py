"""Properties of the chat format over generated notes, bodies and front matter."""

from __future__ import annotations

import contextlib
import dataclasses
import re

from hypothesis import assume, given
from hypothesis import strategies as st

from quire.core.chat import sanitize_label
from quire.core.errors import DocumentInvalid, InvalidArgument
from quire.markdown.chat import (
    check_message,
    escape_body,
    is_chat,
    make_chat,
    normalize_body,
    parse_chat,
    scan_messages,
    set_role,
    unescape_body,
)
from quire.markdown.chat_frontmatter import front_matter_properties
from quire.markdown.frontmatter import front_matter_block, front_matter_span, parse_front_matter
from tests.support.chat_notes import checked_block, with_message

# The design's header rule, written out again so the tests do not trust the code's own regex.
HEADER = re.compile(
    r"#### [^\r\n]+? · [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(?::[0-9]{2})?Z[ \t]*"
)
LINES = re.compile(r"\r\n|\r|\n")
TIMES = st.sampled_from(["2026-10-02T14:03:05Z", "2026-10-02T14:03Z", "1999-12-31T23:59:59Z"])
# Pieces that stress the rules: every line break style, backslashes, header and front matter
# shapes, a middle dot without its spaces, code fences, bidi, NUL and astral characters.
PIECES = st.sampled_from(
    ["a", "bob", " ", "\t", "\n", "\r\n", "\r", "\\", "\\\\", "#### ", "####", "#", " · ", "·",
     "2026-10-02T14:03:05Z", "2026-10-02T14:03Z", "Z", "---", "...", "```", "`", "@all", "é",
     "\u202e", "\x00", "🎉", "\ufeff", "quire-chat: true", "agents:", "  qa: x"]
)  # fmt: skip
# Lines close to a header: backslashes, a near-miss prefix, odd authors, near-miss times.
HEADERISH = st.builds(
    lambda slashes, lead, author, time, tail: "\\" * slashes + lead + author + " · " + time + tail,
    st.integers(0, 3),
    st.sampled_from(["#### ", "#### ", "####", " #### ", "##### ", "\\ #### "]),
    st.sampled_from(["bob", "a · b", "", " ", "\u202e", "#### x"]),
    st.one_of(TIMES, st.sampled_from(["2026-10-02", "2026-10-02T14:03:05", "yesterday"])),
    st.sampled_from(["", " ", "\t", " x", "\x0b"]),
)
LINE = st.one_of(HEADERISH, st.lists(PIECES, max_size=6).map("".join))
BREAK = st.sampled_from(["\n", "\r\n", "\r"])
TEXT = st.lists(st.tuples(LINE, BREAK), max_size=8).map(
    lambda pairs: "".join(line + brk for line, brk in pairs)
) | st.lists(PIECES, max_size=30).map("".join)
BODY = TEXT.filter(lambda body: "\0" not in body and bool(body.strip()))
AUTHOR = st.one_of(st.sampled_from(["bob", "Lead QA", "qa-1", "web (agent)"]), st.text(max_size=8))
FRONT = st.sampled_from(
    ["---\nquire-chat: true\n---\n", "---\r\nquire-chat: true\r\n---\r\n",
     "---\rquire-chat: true\r---\r", "\ufeff---\nmdnest-chat: true\ntitle: T\n---\n", ""]
)  # fmt: skip


def _label(author: str) -> str | None:
    try:
        return sanitize_label(author)
    except InvalidArgument:
        return None


@st.composite
def chats(draw: st.DrawFn) -> str:
    """A note with front matter, a description and messages, some written by hand."""
    text = draw(FRONT) + draw(TEXT)
    for _ in range(draw(st.integers(0, 4))):
        if draw(st.booleans()):
            body = draw(BODY)
            assume(_label(author := draw(AUTHOR)) is not None)
            with contextlib.suppress(DocumentInvalid):
                text = with_message(text, author, draw(TIMES), body)
        else:
            text += draw(TEXT)
    return text


@given(chats(), AUTHOR, TIMES, BODY)
def test_no_body_can_add_or_change_a_header(text: str, author: str, time: str, body: str) -> None:
    label = _label(author)
    assume(label is not None)
    try:
        appended = with_message(text, author, time, body)
    except DocumentInvalid:
        assume(False)
        return
    before = parse_chat(text)
    after = parse_chat(appended)
    assert appended.startswith(text)
    assert after.messages[:-1] == before.messages
    assert after.description == before.description
    last = after.messages[-1]
    assert (last.number, last.author, last.time) == (len(before.messages) + 1, label, time)
    assert last.body == normalize_body(body)


@given(AUTHOR, TIMES, BODY)
def test_a_body_without_surrounding_blank_lines_comes_back_exactly(
    author: str, time: str, body: str
) -> None:
    assume(_label(author) is not None)
    clean = normalize_body(body)
    assume(clean.strip())
    (message,) = parse_chat(with_message("", author, time, clean)).messages
    assert message.body == clean


@given(TEXT)
def test_escaping_round_trips_every_text(body: str) -> None:
    assert unescape_body(escape_body(body)) == body


@given(TEXT)
def test_an_escaped_body_has_no_header_line(body: str) -> None:
    escaped = escape_body(body)
    assert not any(HEADER.fullmatch(line) for line in LINES.split(escaped))
    assert scan_messages("\n" + escaped, 1) == ()


@given(AUTHOR, TIMES, BODY)
def test_reposting_a_read_message_stores_it_the_same_way(author: str, time: str, body: str) -> None:
    assume(_label(author) is not None)
    block = checked_block(author, time, body)
    (message,) = scan_messages(block)
    assert checked_block(message.author, message.time, message.body) == block


@given(chats(), st.text(alphabet="abc ·:-TZ0123456789#\\`", max_size=30))
def test_a_plain_level_four_heading_is_not_a_message(text: str, title: str) -> None:
    heading = f"#### {title}"
    assume(not HEADER.fullmatch(heading))
    with_heading = text + f"\n\n{heading}\n\n"
    assert len(parse_chat(with_heading).messages) == len(parse_chat(text).messages)
    appended = with_message(FRONT_LF, "bob", "2026-10-02T14:03:05Z", f"x\n{heading}\ny")
    (message,) = parse_chat(appended).messages
    assert message.body == f"x\n{heading}\ny"


FRONT_LF = "---\nquire-chat: true\n---\n"


@given(TEXT)
def test_turning_a_note_into_a_chat_is_idempotent_and_adds_only_the_tag(text: str) -> None:
    try:
        chat = make_chat(text)
    except DocumentInvalid:
        assert not is_chat(text)
        return
    assert is_chat(chat)
    assert make_chat(chat) == chat
    if is_chat(text):
        assert chat == text
        return
    newline = re.search(r"\r\n|\r|\n", chat)
    assert newline is not None
    tag = "quire-chat: true" + newline.group()
    if front_matter_span(text) is None:
        bom = "\ufeff" if text.startswith("\ufeff") else ""
        assert (
            chat == bom + "---" + newline.group() + tag + "---" + newline.group() + text[len(bom) :]
        )
    else:
        properties = parse_front_matter(front_matter_block(text) or "")
        if "quire-chat" not in properties:
            assert chat.replace(tag, "", 1) == text
    shift = len(chat) - len(text)
    moved = [dataclasses.replace(m, offset=m.offset + shift) for m in parse_chat(text).messages]
    assert list(parse_chat(chat).messages) == moved


OTHER_KEYS = st.dictionaries(
    st.sampled_from(["title", "owner", "tags", "note", "x-1"]),
    st.sampled_from(["A", '"B: c"', "[a, b]", "|\n  block\n  text", "~", "42", "'q''s'"]),
    max_size=4,
)
ROLES = st.dictionaries(
    st.sampled_from(["lead", "qa-1", "QA-1", "coder 2", '"a: b"']),
    st.sampled_from(["Lead", "Test it", '"Quoted: x"', "|\n    multi\n    line"]),
    max_size=3,
)


@st.composite
def role_notes(draw: st.DrawFn) -> str:
    lines = ["---", "quire-chat: true"]
    other = draw(OTHER_KEYS)
    keys = list(other.items())
    split = draw(st.integers(0, len(keys)))
    lines += [f"{key}: {value}" for key, value in keys[:split]]
    roles = draw(ROLES)
    empty_agents = draw(st.booleans())
    if roles or empty_agents:
        lines.append("agents:")
        lines += [f"  {name}: {role}" for name, role in roles.items()]
    lines += [f"{key}: {value}" for key, value in keys[split:]]
    newline = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    body = draw(st.sampled_from(["", "\nIntro.\n\n#### bob · 2026-10-02T14:03:05Z\n\nhi\n"]))
    return newline.join([*lines, "---", ""]) + body.replace("\n", newline)


@given(
    role_notes(),
    st.sampled_from(["qa-1", "QA-1", "new one", "a: b", "lead"]),
    st.one_of(st.none(), st.sampled_from(["", "New role", "Role: with # marks", "x\ny"])),
)
def test_setting_a_role_leaves_other_front_matter_and_the_body_untouched(
    text: str, name: str, role: str | None
) -> None:
    changed = set_role(text, name, role)
    before, before_end = front_matter_properties(text)
    after, after_end = front_matter_properties(changed)
    assert changed[after_end:] == text[before_end:]
    assert {k: v for k, v in after.items() if k != "agents"} == {
        k: v for k, v in before.items() if k != "agents"
    }
    old_roles = {k: v for k, v in dict(parse_chat(text).roles).items() if k.lower() != name.lower()}
    new_roles = dict(parse_chat(changed).roles)
    cleaned = " ".join((role or "").split())
    expected = {**old_roles, name: cleaned} if cleaned else old_roles
    assert {k.lower(): v for k, v in new_roles.items()} == {
        k.lower(): v for k, v in expected.items()
    }
    other_agents = before.get("agents")
    if isinstance(other_agents, dict):
        kept = {k: v for k, v in other_agents.items() if k.lower() != name.lower()}
        assert {k: v for k, v in (after.get("agents") or {}).items() if k in kept} == kept  # type: ignore[union-attr]
    assert set_role(changed, name, role) == changed


@given(TEXT)
def test_the_front_matter_offset_is_the_shared_rules_offset(text: str) -> None:
    span = front_matter_span(text)
    _, start = front_matter_properties(text)
    expected = span[1] if span is not None else (1 if text.startswith("\ufeff") else 0)
    assert start == expected


@given(chats())
def test_scanning_from_any_message_reads_the_same_tail(text: str) -> None:
    messages = parse_chat(text).messages
    assert scan_messages(text) == messages
    for index, message in enumerate(messages):
        assert scan_messages(text, message.offset, message.number) == messages[index:]
        assert text.startswith("#### ", message.offset)


@given(TEXT)
def test_parsing_never_fails_and_check_message_only_raises_invalid_argument(text: str) -> None:
    parse_chat(text)
    is_chat(text)
    with contextlib.suppress(InvalidArgument):
        check_message(text)

"""A chat note's front matter: turning a note into a chat, and saving agents' roles."""

from __future__ import annotations

import pytest

from quire.core.chat import MAX_ROLE_CHARS
from quire.core.errors import DocumentInvalid, InvalidArgument
from quire.markdown.chat import is_chat, make_chat, owner_of, parse_chat, set_role
from quire.markdown.frontmatter import front_matter_block, parse_front_matter


@pytest.mark.parametrize(
    ("text", "chat"),
    [
        ("Meeting notes\n", "---\nquire-chat: true\n---\nMeeting notes\n"),
        ("a\r\nb\r\n", "---\r\nquire-chat: true\r\n---\r\na\r\nb\r\n"),
        ("a\rb", "---\rquire-chat: true\r---\ra\rb"),
        ("\ufeffNotes", "\ufeff---\nquire-chat: true\n---\nNotes"),
        ("no newline", "---\nquire-chat: true\n---\nno newline"),
        ("---\n", "---\nquire-chat: true\n---\n---\n"),
        ("---\ntitle: A\n", "---\nquire-chat: true\n---\n---\ntitle: A\n"),
        ("---\ntitle: A\n---\nbody", "---\nquire-chat: true\ntitle: A\n---\nbody"),
        ("---\r\ntitle: A\r\n---\r\n", "---\r\nquire-chat: true\r\ntitle: A\r\n---\r\n"),
        ("---  \n# c\n...\n", "---  \nquire-chat: true\n# c\n...\n"),
        ("---\n---\n", "---\nquire-chat: true\n---\n"),
        ("\ufeff---\nx: 1\n---\n", "\ufeff---\nquire-chat: true\nx: 1\n---\n"),
        ("---\nquire-chat: false\nx: 1\n---\n", "---\nquire-chat: true\nx: 1\n---\n"),
        ("---\nx: 1\nquire-chat: no # off\n---\n", "---\nx: 1\nquire-chat: true\n---\n"),
        ("---\nquire-chat:\n  - odd\nx: 1\n---\n", "---\nquire-chat: true\nx: 1\n---\n"),
    ],
)
def test_turning_a_note_into_a_chat_adds_the_tag_and_nothing_else(text: str, chat: str) -> None:
    assert make_chat(text) == chat
    assert is_chat(chat)


@pytest.mark.parametrize(
    "text",
    [
        "---\nquire-chat: true\n---\n",
        "---\nmdnest-chat: true\ntitle: Old\n---\nkept as is",
        "---\r\nquire-chat: true\r\n---\r\nbody",
    ],
)
def test_a_chat_stays_as_it_is(text: str) -> None:
    assert make_chat(text) == text
    assert make_chat(text, title="Ignored") == text


@pytest.mark.parametrize(
    ("title", "text", "read"),
    [
        ("Release", "---\nquire-chat: true\ntitle: Release\n---\n", "Release"),
        ("Release: v2", '---\nquire-chat: true\ntitle: "Release: v2"\n---\n', "Release: v2"),
        ("  two\nlines \u202e", "---\nquire-chat: true\ntitle: two lines\n---\n", "two lines"),
        ("yes", '---\nquire-chat: true\ntitle: "yes"\n---\n', "yes"),
        ("2026", '---\nquire-chat: true\ntitle: "2026"\n---\n', "2026"),
        (
            'say "hi" \\ #1',
            '---\nquire-chat: true\ntitle: "say \\"hi\\" \\\\ #1"\n---\n',
            'say "hi" \\ #1',
        ),
        ("", "---\nquire-chat: true\n---\n", None),
        ("\x00", "---\nquire-chat: true\n---\n", None),
        (None, "---\nquire-chat: true\n---\n", None),
    ],
)
def test_a_new_empty_note_gets_the_tag_and_its_title(
    title: str | None, text: str, read: str | None
) -> None:
    created = make_chat("", title)
    assert created == text
    assert parse_chat(created).title == read


def test_a_title_is_only_written_into_a_new_empty_note() -> None:
    assert make_chat("Notes\n", title="Chat") == "---\nquire-chat: true\n---\nNotes\n"
    assert make_chat("---\nx: 1\n---\n", title="Chat") == "---\nquire-chat: true\nx: 1\n---\n"


@pytest.mark.parametrize(
    "text",
    [
        "---\n- a\n- b\n---\nbody",
        "---\njust text\n---\n",
        "---\n[a, b]\n---\n",
        "---\n{a: 1}\n---\n",
    ],
)
def test_front_matter_that_is_not_a_mapping_is_not_rewritten(text: str) -> None:
    assert not is_chat(text)
    with pytest.raises(DocumentInvalid, match="not a list of `key: value` lines"):
        make_chat(text)
    with pytest.raises(DocumentInvalid, match="not a list of `key: value` lines"):
        set_role(text, "qa-1", "test")
    assert set_role(text, "qa-1", None) == text


ROLE_CASES = [
    (
        "---\nquire-chat: true\n---\nbody\n",
        "qa-1",
        "Test the login page",
        "---\nquire-chat: true\nagents:\n  qa-1: Test the login page\n---\nbody\n",
    ),
    (
        "---\r\nquire-chat: true\r\n---\r\n",
        "qa-1",
        "x",
        "---\r\nquire-chat: true\r\nagents:\r\n  qa-1: x\r\n---\r\n",
    ),
    (
        "---\nagents:\n  lead: Lead\nafter: 1\n---\n",
        "qa-1",
        "Test",
        "---\nagents:\n  lead: Lead\n  qa-1: Test\nafter: 1\n---\n",
    ),
    (
        "---\nagents:\n    lead: Lead\n    # note\n\nafter: 1\n---\n",
        "qa-1",
        "Test",
        "---\nagents:\n    lead: Lead\n    qa-1: Test\n    # note\n\nafter: 1\n---\n",
    ),
    (
        "---\nagents:\n  qa-1: Old role\n  lead: Lead\n---\n",
        "QA-1",
        "New role",
        "---\nagents:\n  QA-1: New role\n  lead: Lead\n---\n",
    ),
    (
        "---\nagents:\n  qa-1: |\n    Old\n    role\n  lead: Lead\n---\n",
        "qa-1",
        "New",
        "---\nagents:\n  qa-1: New\n  lead: Lead\n---\n",
    ),
    (
        "---\nagents:\n  qa-1: one\n  Qa-1: two\n---\n",
        "qa-1",
        "three",
        "---\nagents:\n  qa-1: three\n---\n",
    ),
    (
        "---\nagents:\n  qa-1: Old\n  lead: Lead\n---\n",
        "qa-1",
        None,
        "---\nagents:\n  lead: Lead\n---\n",
    ),
    (
        "---\nx: 1\nagents:\n  qa-1: Old\ny: 2\n---\n",
        "qa-1",
        "",
        "---\nx: 1\ny: 2\n---\n",
    ),
    (
        "---\nagents:\n  # keep me\n  qa-1: Old\n---\n",
        "qa-1",
        "  ",
        "---\nagents:\n  # keep me\n---\n",
    ),
    (
        "---\nagents:\n  lead: Lead\n---\n",
        "qa-1",
        None,
        "---\nagents:\n  lead: Lead\n---\n",
    ),
    ("---\nx: 1\n---\n", "qa-1", None, "---\nx: 1\n---\n"),
    ("no front matter\n", "qa-1", None, "no front matter\n"),
    (
        "no front matter\n",
        "qa-1",
        "Test",
        "---\nagents:\n  qa-1: Test\n---\nno front matter\n",
    ),
    ("---\nagents:\n---\n", "qa-1", "Test", "---\nagents:\n  qa-1: Test\n---\n"),
    ("---\nagents: # roles\n---\n", "qa-1", "T", "---\nagents: # roles\n  qa-1: T\n---\n"),
    ("---\nagents: ~\nx: 1\n---\n", "qa-1", "T", "---\nagents:\n  qa-1: T\nx: 1\n---\n"),
    ("---\nagents: {}\n---\n", "qa-1", "T", "---\nagents:\n  qa-1: T\n---\n"),
    ("---\nagents: {}\n---\n", "qa-1", None, "---\nagents: {}\n---\n"),
    (
        "---\nagents:\n  qa-1:\n    role: nested\n  b: B\n---\n",
        "qa-1",
        "flat",
        "---\nagents:\n  qa-1: flat\n  b: B\n---\n",
    ),
    (
        "---\nagents:\n  qa-1: x\n---\n",
        "web (agent)",
        "Role: with # marks",
        '---\nagents:\n  qa-1: x\n  web agent: "Role: with # marks"\n---\n',
    ),
    (
        "---\nagents:\n  qa-1: x\n---\n",
        "a: b",
        "yes",
        '---\nagents:\n  qa-1: x\n  "a: b": "yes"\n---\n',
    ),
    (
        "---\nagents:\n  qa-1: x\n---\n",
        "bob",
        "line one\nline two\r\n\u202e\x00three",
        "---\nagents:\n  qa-1: x\n  bob: line one line two three\n---\n",
    ),
]


@pytest.mark.parametrize(("text", "name", "role", "result"), ROLE_CASES)
def test_a_role_is_saved_under_agents_and_nothing_else_changes(
    text: str, name: str, role: str | None, result: str
) -> None:
    assert set_role(text, name, role) == result


def test_a_saved_role_reads_back_from_the_note() -> None:
    text = set_role("---\nquire-chat: true\n---\n", "qa-1", "Test: the login page #1")
    text = set_role(text, "lead", "Coordinate everyone")
    assert dict(parse_chat(text).roles) == {
        "qa-1": "Test: the login page #1",
        "lead": "Coordinate everyone",
    }


def test_a_role_is_cut_at_300_characters() -> None:
    text = set_role("---\nquire-chat: true\n---\n", "qa-1", "word " * 100)
    role = parse_chat(text).roles["qa-1"]
    assert len(role) <= MAX_ROLE_CHARS
    assert role == ("word " * 100)[:MAX_ROLE_CHARS].rstrip()


@pytest.mark.parametrize(
    "agents",
    ["agents: [qa-1, qa-2]", "agents: lead", "agents:\n- qa-1", "agents: 3", "agents: |\n  text"],
)
def test_agents_that_are_not_a_mapping_are_not_overwritten(agents: str) -> None:
    text = f"---\nquire-chat: true\n{agents}\n---\n"
    with pytest.raises(DocumentInvalid, match="`agents:` entry that is not a list"):
        set_role(text, "qa-1", "test")
    assert set_role(text, "qa-1", None) == text


@pytest.mark.parametrize("name", ["", "  ", "()", "\u202e"])
def test_a_role_needs_a_visible_name(name: str) -> None:
    with pytest.raises(InvalidArgument) as caught:
        set_role("---\nquire-chat: true\n---\n", name, "x")
    assert caught.value.argument == "as"


def test_setting_a_role_leaves_the_rest_of_the_front_matter_readable_as_before() -> None:
    text = (
        '---\nquire-chat: true\ntitle: "Team: alpha"\ndescription: |\n  line one\n  line two\n'
        "agents:\n  lead: Lead\ntags: [a, b]\n---\n\n#### lead · 2026-10-02T14:03:05Z\n\nhi\n"
    )
    changed = set_role(text, "qa-1", "Test")
    before = parse_front_matter(front_matter_block(text) or "")
    after = parse_front_matter(front_matter_block(changed) or "")
    assert after == {**before, "agents": {"lead": "Lead", "qa-1": "Test"}}
    assert changed.endswith("---\n\n#### lead · 2026-10-02T14:03:05Z\n\nhi\n")


def test_a_chat_made_by_an_account_names_its_owner() -> None:
    made = make_chat("", "Release", owner="alice")
    assert made == "---\nquire-chat: true\nowner: alice\ntitle: Release\n---\n"
    assert owner_of(made) == "alice"
    converted = make_chat("---\ntags: [a]\n---\nText\n", owner="bob")
    assert converted == "---\nquire-chat: true\nowner: bob\ntags: [a]\n---\nText\n"
    kept = make_chat("---\nowner: carol\n---\nText\n", owner="bob")
    assert owner_of(kept) == "carol"
    assert owner_of(make_chat("Plain\n")) is None

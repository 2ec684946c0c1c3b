"""Cards show the command exactly as it runs: hidden characters as escapes, paths in full when
they could mislead."""

from __future__ import annotations

import pytest

from quire.core.approvals.cards import Change, card_of, shown_path
from quire.core.approvals.escapes import has_hidden, shown_exactly

ESCAPES: list[tuple[str, str]] = [
    ("ls -la", "ls -la"),
    ("echo \u202egnp.exe", "echo \\u{202E}gnp.exe"),
    ("rm\u00a0-rf", "rm\\u{A0}-rf"),
    ("a\u200bb\u200c\u200d\u2060", "a\\u{200B}b\\u{200C}\\u{200D}\\u{2060}"),
    ("x\u2028y\u2029", "x\\u{2028}y\\u{2029}"),
    ("\x1b[2J", "\\u{1B}[2J"),
    ("tab\tand\nline", "tab\tand\nline"),
    ("\u3164", "\\u{3164}"),
    ("a\ufe0f", "a\\u{FE0F}"),
    ("tag\U000e0041", "tag\\u{E0041}"),
    ("\ufeffbom", "\\u{FEFF}bom"),
    ("\u2066iso\u2069", "\\u{2066}iso\\u{2069}"),
    ("lit \\u{202E}", "lit \\\\u{202E}"),
    ("caf\u00e9 \u65e5\u672c", "caf\u00e9 \u65e5\u672c"),
    ("\u3000wide", "\\u{3000}wide"),
]


@pytest.mark.parametrize(("raw", "shown"), ESCAPES)
def test_hidden_characters_are_shown_as_escapes(raw: str, shown: str) -> None:
    assert shown_exactly(raw) == shown
    assert has_hidden(raw) == ("\\u{" in shown and "\\\\u{" not in shown)


def test_a_command_card_shows_the_command_and_labels_the_description_apart() -> None:
    card = card_of(
        "Bash", {"command": "rm -rf \u202ebuild", "description": "tidy up"}, cwd="/w", home=None
    )
    assert (card.kind, card.text, card.description) == (
        "command",
        "rm -rf \\u{202E}build",
        "tidy up",
    )


def test_an_argv_command_is_shell_quoted() -> None:
    card = card_of("Bash", {"command": ["git", "commit", "-m", "a b"]}, cwd="/w", home=None)
    assert card.text == "git commit -m 'a b'"


def test_a_write_shows_forty_lines_and_keeps_the_rest_a_tap_away() -> None:
    content = "".join(f"line {n}\n" for n in range(1, 46))
    card = card_of("Write", {"file_path": "/w/docs/a.md", "content": content}, cwd="/w", home=None)
    assert (card.kind, card.file) == ("write", "docs/a.md")
    assert card.text.count("\n") == 40 and card.text.endswith("line 40\n")
    assert card.rest == "".join(f"line {n}\n" for n in range(41, 46))


def test_an_edit_shows_the_old_and_new_text() -> None:
    card = card_of(
        "MultiEdit",
        {"file_path": "/h/x.py", "edits": [{"old_string": "a", "new_string": "b"}]},
        cwd="/w",
        home="/h",
    )
    assert (card.kind, card.file, card.changes) == ("edit", "~/x.py", (Change("a", "b"),))


def test_other_tools_show_their_input_as_json() -> None:
    card = card_of("WebFetch", {"url": "https://x", "prompt": "p"}, cwd="/w", home=None)
    assert (card.kind, card.text) == (
        "other",
        '{\n  "prompt": "p",\n  "url": "https://x"\n}',
    )


def test_questions_show_their_options() -> None:
    card = card_of(
        "AskUserQuestion",
        {"questions": [{"question": "Q?", "options": [{"label": "A", "description": "d"}]}]},
        cwd="/w",
        home=None,
    )
    assert card.kind == "question"
    assert card.questions[0].options[0].label == "A"


PATHS: list[tuple[str, str]] = [
    ("/w/a.md", "a.md"),
    ("/w/sub/a.md", "sub/a.md"),
    ("/w/../etc/passwd", "/w/../etc/passwd"),
    ("/w/./a.md", "/w/./a.md"),
    ("/h/.ssh/config", "~/.ssh/config"),
    ("/etc/hosts", "/etc/hosts"),
    ("rel/a.md", "rel/a.md"),
    ("/w", "/w"),
    ("/w2/a.md", "/w2/a.md"),
    ("/w/\u202ecod.exe", "\\u{202E}cod.exe"),
]


@pytest.mark.parametrize(("path", "shown"), PATHS)
def test_paths_are_relative_only_when_that_cannot_mislead(path: str, shown: str) -> None:
    assert shown_path(path, cwd="/w", home="/h") == shown

"""Slash posts: which bodies are /status, /context or /role, and the /context forms."""

from __future__ import annotations

import pytest

from quire.api.chats import ContextUse
from quire.core.errors import InvalidArgument
from quire.services.chat.slash_posts import MAX_STATUS_CHARS, SlashPost, context_report, slash_post


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("/status reviewing the PR", SlashPost("status", "reviewing the PR")),
        ("  /status   spaced\tout  ", SlashPost("status", "spaced out")),
        ("/status", SlashPost("status", "")),
        ("/status \n", SlashPost("status", "")),
        ("/status line one\nline two", SlashPost("status", "line one line two")),
        ("/status bidi\u202eflip\x07", SlashPost("status", "bidiflip")),
        ("/context 42%", SlashPost("context", "42%")),
        ("/context", SlashPost("context", "")),
        ("/role Test the login page", SlashPost("role", "Test the login page")),
        ("/role", SlashPost("role", "")),
        ("/statusbar is broken", None),
        ("/roles", None),
        ("please /status x", None),
        ("/STATUS shouting", None),
        ("/unknown thing", None),
        ("", None),
        ("hello", None),
    ],
)
def test_a_body_is_a_slash_post_only_when_it_starts_with_the_command(
    body: str, expected: SlashPost | None
) -> None:
    assert slash_post(body) == expected


def test_a_long_status_and_role_are_cut() -> None:
    status = slash_post("/status " + "s" * 1000)
    role = slash_post("/role " + "r" * 1000)
    assert status is not None and len(status.text) == MAX_STATUS_CHARS
    assert role is not None and len(role.text) == 300


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("42%", ContextUse(text="42%", percent=42)),
        (" 42 % ", ContextUse(text="42%", percent=42)),
        ("0%", ContextUse(text="0%", percent=0)),
        ("100%", ContextUse(text="100%", percent=100)),
        ("42.5%", ContextUse(text="42.5%", percent=43)),
        ("87k/200k", ContextUse(text="87k/200k", percent=44)),
        ("87K / 200K", ContextUse(text="87k/200k", percent=44)),
        ("1.5m/2m", ContextUse(text="1.5m/2m", percent=75)),
        ("87000/200000", ContextUse(text="87000/200000", percent=44)),
        ("160k/200k", ContextUse(text="160k/200k", percent=80)),
        ("", None),
        ("   ", None),
    ],
)
def test_context_is_a_percentage_or_tokens_of_the_window(
    text: str, expected: ContextUse | None
) -> None:
    assert context_report(text) == expected


@pytest.mark.parametrize(
    "text",
    ["lots", "42", "101%", "-5%", "87k", "200k/87k extra", "300k/200k", "5/0", "k/m", "42%%"],
)
def test_anything_else_is_refused_naming_both_forms(text: str) -> None:
    with pytest.raises(InvalidArgument) as caught:
        context_report(text)
    assert "/context 42%" in caught.value.message
    assert "/context 87k/200k" in caught.value.message
    assert caught.value.argument == "body"

"""Username, password, role, token-name and credential rules."""

from __future__ import annotations

import unicodedata
from datetime import UTC, datetime

import pytest

from quire.core.errors import InvalidArgument
from quire.core.teams.accounts import (
    canonical_username,
    check_new_password,
    check_role,
    check_token_name,
    normalized_password,
)
from quire.core.teams.credentials import (
    SessionPolicy,
    digest,
    session_alive,
    token_expiry,
    token_id_of,
    token_text,
)

NOW = int(datetime(2026, 12, 6, tzinfo=UTC).timestamp() * 1000)
DAY = 86_400_000


@pytest.mark.parametrize(
    ("raw", "name"),
    [("alice", "alice"), ("Alice", "alice"), (" bob.smith ", "bob.smith"), ("a-1_b", "a-1_b")],
)
def test_a_username_is_stored_in_lower_case(raw: str, name: str) -> None:
    assert canonical_username(raw) == name


@pytest.mark.parametrize(
    "raw",
    [
        "",
        "  ",
        "a" * 33,
        "-alice",
        ".alice",
        "al ice",
        "al/ice",
        "al@ice",
        "alice\x00",
        "\u0430lice",  # a Cyrillic a that looks like a Latin one
        "\uff41\uff4c\uff49\uff43\uff45",  # fullwidth letters
        "owner",
        "ROOT",
        "admin",
    ],
)
def test_a_username_that_could_mislead_is_refused(raw: str) -> None:
    with pytest.raises(InvalidArgument) as caught:
        canonical_username(raw)
    assert caught.value.argument == "username"


def test_a_new_password_is_long_enough_and_not_the_username() -> None:
    assert check_new_password("correct horse battery", username="alice") == "correct horse battery"
    for weak in ("short", "x" * 40, "my-alice-password", "tab\there is bad", "y" * 1025):
        with pytest.raises(InvalidArgument) as caught:
            check_new_password(weak, username="alice")
        assert caught.value.argument == "password"


def test_passwords_are_compared_in_nfkc_form() -> None:
    composed = unicodedata.normalize("NFC", "pässwörd-lang-genug")
    decomposed = unicodedata.normalize("NFD", composed)
    assert normalized_password(composed) == normalized_password(decomposed)
    assert normalized_password("\uff50\uff41\uff53\uff53") == "pass"


def test_roles_and_token_names() -> None:
    assert check_role("superadmin") == "superadmin"
    with pytest.raises(InvalidArgument):
        check_role("owner")
    assert check_token_name(" ci-bot ") == "ci-bot"
    for bad in ("", "x" * 65, "a\nb"):
        with pytest.raises(InvalidArgument):
            check_token_name(bad)


def test_a_token_names_its_id_and_nothing_else_parses() -> None:
    secret = "A" * 43
    token = token_text("0123456789ab", secret)
    assert token_id_of(token) == "0123456789ab"
    for bad in ("", token + "x", token[:-1], "qt_0123456789AB_" + secret, "Bearer " + token):
        assert token_id_of(bad) is None
    assert digest(token) != digest(token_text("0123456789ab", "B" * 43))
    assert len(digest(token)) == 64


@pytest.mark.parametrize(
    ("raw", "expires"),
    [
        ("12h", NOW + DAY // 2),
        ("30d", NOW + 30 * DAY),
        ("2W", NOW + 14 * DAY),
        ("2026-12-31", int(datetime(2026, 12, 31, 23, 59, 59, tzinfo=UTC).timestamp() * 1000)),
    ],
)
def test_an_expiry_is_a_duration_or_a_date(raw: str, expires: int) -> None:
    assert token_expiry(raw, now_ms=NOW) == expires


@pytest.mark.parametrize("raw", ["", "0d", "-1d", "1y", "2026-12-05", "tomorrow", "9999d"])
def test_an_expiry_in_the_past_or_unreadable_is_refused(raw: str) -> None:
    with pytest.raises(InvalidArgument) as caught:
        token_expiry(raw, now_ms=NOW)
    assert caught.value.argument == "expires"


def test_a_session_ends_when_idle_or_too_old() -> None:
    policy = SessionPolicy(idle_ms=10, lifetime_ms=100)
    assert session_alive(policy, created_at_ms=0, last_seen_at_ms=95, now_ms=99)
    assert not session_alive(policy, created_at_ms=0, last_seen_at_ms=89, now_ms=99)
    assert not session_alive(policy, created_at_ms=0, last_seen_at_ms=99, now_ms=100)

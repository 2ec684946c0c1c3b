"""The session file format and file names: encoding ids, parsing and fitting within a cap."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quire.core.errors import InvalidArgument
from quire.memory.session_file import (
    MalformedSession,
    StoredMessage,
    encode_within,
    parse_session,
    session_file_name,
)


@pytest.mark.parametrize(
    ("session_id", "name"),
    [
        ("abc", "abc.json"),
        ("Plan-2_x9", "Plan-2_x9.json"),
        ("a.b", "a%2Eb.json"),
        ("a_b", "a_b.json"),
        ("a/b", "a%2Fb.json"),
        ("a\\b", "a%5Cb.json"),
        ("..", "%2E%2E.json"),
        (".", "%2E.json"),
        ("../../etc/passwd", "%2E%2E%2F%2E%2E%2Fetc%2Fpasswd.json"),
        (" x ", "%20x%20.json"),
        ("%41", "%2541.json"),
        ("a\0b", "a%00b.json"),
        ("é", "%C3%A9.json"),
        ("e\u0301", "e%CC%81.json"),
        ("日本", "%E6%97%A5%E6%9C%AC.json"),
        ("😀", "%F0%9F%98%80.json"),
        ("\u202eevil", "%E2%80%AEevil.json"),
        ("ABC", "ABC.json"),
    ],
)
def test_a_session_id_becomes_a_file_name_with_other_bytes_percent_encoded(
    session_id: str, name: str
) -> None:
    assert session_file_name(session_id) == name


@pytest.mark.parametrize(
    "session_id",
    ["a" * 200, "-" * 200, "." * 66, "a" * 194 + "é", "😀" * 16 + "a" * 8],
)
def test_a_file_name_of_up_to_200_bytes_is_accepted(session_id: str) -> None:
    name = session_file_name(session_id)
    assert len(name.removesuffix(".json")) <= 200


@pytest.mark.parametrize(
    ("session_id", "size"),
    [("a" * 201, 201), ("." * 67, 201), ("a" * 195 + "é", 201), ("😀" * 17, 204)],
)
def test_a_file_name_over_200_bytes_is_refused_naming_the_limit(session_id: str, size: int) -> None:
    with pytest.raises(InvalidArgument) as caught:
        session_file_name(session_id)
    assert caught.value.argument == "session_id"
    assert "200 bytes" in str(caught.value)
    assert f"{size} bytes" in str(caught.value)


@pytest.mark.parametrize("session_id", ["", " ", "\t\n", "\u3000", "\ud800x", None, 5, b"abc"])
def test_a_blank_or_unusable_session_id_is_refused(session_id: Any) -> None:
    with pytest.raises(InvalidArgument) as caught:
        session_file_name(session_id)
    assert caught.value.argument == "session_id"


@given(st.text(min_size=1, max_size=40), st.text(min_size=1, max_size=40))
def test_distinct_session_ids_never_share_a_file_name(first: str, second: str) -> None:
    try:
        first_name, second_name = session_file_name(first), session_file_name(second)
    except InvalidArgument:
        return
    assert (first_name == second_name) == (first == second)


@given(st.text(min_size=1, max_size=60))
def test_a_file_name_holds_only_safe_characters(session_id: str) -> None:
    try:
        name = session_file_name(session_id)
    except InvalidArgument:
        return
    stem = name.removesuffix(".json")
    assert all(char.isascii() and (char.isalnum() or char in "-_%") for char in stem)
    assert not stem.startswith(".")


# --- the format ---------------------------------------------------------------------------------

messages_strategy = st.lists(
    st.builds(
        StoredMessage,
        id=st.text(alphabet="0123456789abcdef", min_size=32, max_size=32),
        sessionId=st.just("s"),
        role=st.sampled_from(["agent", "human", "system"]),
        content=st.text(
            alphabet=st.characters(exclude_categories=["Cs"]), min_size=1, max_size=300
        ),
        citedDocs=st.lists(st.sampled_from(["/a.md", "/b/é.md", "/c d.md"]), unique=True),
        timestampMs=st.integers(min_value=0, max_value=2**53),
    ),
    min_size=1,
    max_size=8,
)


@given(messages_strategy)
def test_encoded_messages_parse_back_unchanged(messages: list[StoredMessage]) -> None:
    data, dropped = encode_within("s", messages, 10**9)
    assert dropped == 0
    parsed = parse_session(data.decode("utf-8"))
    assert (parsed.session_id, parsed.messages) == ("s", messages)


@given(messages_strategy, st.integers(min_value=100, max_value=3000))
def test_encoding_within_a_cap_keeps_the_newest_messages_that_fit(
    messages: list[StoredMessage], cap: int
) -> None:
    try:
        data, dropped = encode_within("s", messages, cap)
    except InvalidArgument:
        alone, _ = encode_within("s", messages[-1:], 10**9)
        assert len(alone) > cap
        return
    assert len(data) <= cap
    assert parse_session(data.decode("utf-8")).messages == messages[dropped:]
    if dropped:
        one_more, _ = encode_within("s", messages[dropped - 1 :], 10**9)
        assert len(one_more) > cap


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "not valid JSON (line 1, column 1"),
        ('{"sessionId": "s", "messages": [}', "not valid JSON"),
        ("[" * 100_000, "not valid JSON"),
        ("[]", "JSON object"),
        ('{"messages": []}', '"sessionId"'),
        ('{"sessionId": "s", "messages": null}', '"messages"'),
        ('{"sessionId": "s", "messages": ["x"]}', "messages[0]"),
    ],
)
def test_a_malformed_file_says_where_it_is_wrong(text: str, fragment: str) -> None:
    with pytest.raises(MalformedSession) as caught:
        parse_session(text)
    assert fragment in caught.value.reason


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"id": 5}, "id"),
        ({"sessionId": None}, "sessionId"),
        ({"role": ["agent"]}, "role"),
        ({"content": {}}, "content"),
        ({"citedDocs": None}, "citedDocs"),
        ({"citedDocs": ["/a.md", 2]}, "citedDocs"),
        ({"timestampMs": "1"}, "timestampMs"),
        ({"timestampMs": False}, "timestampMs"),
        ({"timestampMs": 1.0}, "timestampMs"),
    ],
)
def test_a_message_with_a_field_of_the_wrong_type_is_malformed(
    change: dict[str, Any], field: str
) -> None:
    good = {
        "id": "x",
        "sessionId": "s",
        "role": "agent",
        "content": "c",
        "citedDocs": [],
        "timestampMs": 1,
    }
    text = json.dumps({"sessionId": "s", "messages": [good, good | change]})
    with pytest.raises(MalformedSession) as caught:
        parse_session(text)
    assert "messages[1] without a" in caught.value.reason
    assert f'"{field}"' in caught.value.reason

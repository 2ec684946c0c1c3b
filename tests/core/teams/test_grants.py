"""Grant matching: whole segments, the union of grants, and an adversarial table of paths."""

from __future__ import annotations

import unicodedata

import pytest

from quire.core.errors import InvalidArgument
from quire.core.teams.grants import (
    Access,
    Grant,
    access_to,
    allows,
    check_access,
    check_prefix,
    check_workspace,
    includes,
    leads_to,
    split_path,
)

CAFE_NFC = unicodedata.normalize("NFC", "café")
CAFE_NFD = unicodedata.normalize("NFD", "café")
assert CAFE_NFC != CAFE_NFD

GRANTS = (
    Grant("team", ("notes",), "read"),
    Grant("team", ("notes", "drafts"), "write"),
    Grant("team", (CAFE_NFC,), "write"),
    Grant("team", ("plan.md",), "read"),
)

# (path, the access the grants above give to it in workspace "team")
TABLE: list[tuple[str, Access | None]] = [
    ("notes", "read"),
    ("notes/", "read"),
    ("notes/a.md", "read"),
    ("notes/deep/er/a.md", "read"),
    ("notes/drafts", "write"),
    ("notes/drafts/x.md", "write"),
    ("notes/drafts-old/x.md", "read"),
    # whole segments only
    ("notes-old/a.md", None),
    ("notesx.md", None),
    ("note", None),
    ("plan.md", "read"),
    ("plan.md.bak", None),
    ("plan.md/x.md", "read"),
    # traversal and odd forms get nothing, whatever they would resolve to
    ("notes/../secret.md", None),
    ("notes/drafts/../../secret.md", None),
    ("notes/./a.md", None),
    ("./notes/a.md", None),
    ("notes//a.md", None),
    ("notes/a.md//", None),
    ("/notes/a.md", None),
    ("notes\\..\\secret.md", None),
    ("notes/a.md\x00.txt", None),
    ("notes/a\nb.md", None),
    ("notes/\u202egnp.md", None),
    ("..", None),
    ("", None),
    # case is exact: another case is another name, so it only loses access
    ("Notes/a.md", None),
    ("NOTES/drafts/x.md", None),
    ("notes/Drafts/x.md", "read"),
    # unicode: both spellings of one visible name are the name
    (f"{CAFE_NFC}/menu.md", "write"),
    (f"{CAFE_NFD}/menu.md", "write"),
    ("cafe/menu.md", None),
    ("café\u200b/menu.md", None),
]


@pytest.mark.parametrize(("path", "expected"), TABLE)
def test_a_path_gets_the_strongest_access_of_the_grants_that_cover_it(
    path: str, expected: Access | None
) -> None:
    assert access_to(GRANTS, "team", path) == expected
    assert allows(GRANTS, "team", path, "read") == (expected is not None)
    assert allows(GRANTS, "team", path, "write") == (expected == "write")


@pytest.mark.parametrize("workspace", ["Team", "team ", "other", "", "team/notes"])
def test_grants_cover_only_their_own_workspace_spelled_exactly(workspace: str) -> None:
    assert access_to(GRANTS, workspace, "notes/a.md") is None


def test_no_grant_means_no_access_and_a_whole_workspace_grant_covers_everything() -> None:
    assert access_to((), "team", "notes/a.md") is None
    whole = (Grant("team", (), "read"),)
    assert access_to(whole, "team", "") == "read"
    assert access_to(whole, "team", "any/where.md") == "read"
    assert access_to(whole, "team", "../escape.md") is None


def test_a_narrower_read_grant_never_takes_away_a_wider_write_grant() -> None:
    grants = (Grant("team", (), "write"), Grant("team", ("private",), "read"))
    assert access_to(grants, "team", "private/x.md") == "write"


@pytest.mark.parametrize(
    ("raw", "segments"),
    [
        ("", ()),
        ("/", ()),
        ("notes", ("notes",)),
        ("/notes/", ("notes",)),
        ("notes/team/", ("notes", "team")),
        (CAFE_NFD, (CAFE_NFC,)),
        ("  notes ", ("notes",)),
    ],
)
def test_a_prefix_is_stored_as_nfc_segments_without_slashes_at_its_ends(
    raw: str, segments: tuple[str, ...]
) -> None:
    assert check_prefix(raw) == segments


@pytest.mark.parametrize(
    "raw",
    ["..", "notes/..", "../notes", "a/./b", "a//b", "a\\b", "a\x00b", "a\tb", "x" * 1025],
)
def test_a_prefix_that_is_not_a_plain_path_is_refused(raw: str) -> None:
    with pytest.raises(InvalidArgument) as caught:
        check_prefix(raw)
    assert caught.value.argument == "prefix"


@pytest.mark.parametrize("raw", ["", " ", "a/b", "a\\b", ".", "..", "x\x00", "y" * 256])
def test_a_workspace_name_that_no_folder_can_have_is_refused(raw: str) -> None:
    with pytest.raises(InvalidArgument):
        check_workspace(raw)


def test_access_is_read_or_write_only() -> None:
    assert check_access("read") == "read"
    assert check_access("write") == "write"
    for raw in ("Read", "admin", "", "rw"):
        with pytest.raises(InvalidArgument):
            check_access(raw)


def test_folders_above_a_grant_lead_to_it_but_are_not_readable() -> None:
    grants = (Grant("team", ("a", "b", "c"), "read"),)
    assert leads_to(grants, "team", "")
    assert leads_to(grants, "team", "a")
    assert leads_to(grants, "team", "a/b/")
    assert not leads_to(grants, "team", "a/b/c")
    assert not leads_to(grants, "team", "a/x")
    assert not leads_to(grants, "team", "a/../a")
    assert not leads_to(grants, "other", "a")
    assert access_to(grants, "team", "a/b") is None


def test_split_path_refuses_what_it_cannot_name() -> None:
    assert split_path("a/b/") == ("a", "b")
    assert split_path("a/b//") is None
    assert split_path("\u2028") is None


@pytest.mark.parametrize("code", [*range(0xA1), 0xAD, 0x200B, 0x200E, 0x2029, 0xFEFF])
def test_split_path_refuses_every_control_and_format_character_and_only_those(code: int) -> None:
    """ASCII takes a quicker check than the rest: both must agree with the categories."""
    char = chr(code)
    refused = unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp") or char == "\\"
    assert (split_path(f"notes/a{char}b.md") is None) == refused


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ([Grant("team", ("notes",), "read")], True),
        ([Grant("team", ("notes",), "write")], True),  # read made write
        ([Grant("team", (), "read")], True),  # the whole workspace
        ([Grant("team", ("notes", "a.md"), "write")], False),  # only part of it
        ([Grant("team", ("notes-old",), "write")], False),
        ([Grant("other", ("notes",), "write")], False),
        ([], False),
    ],
)
def test_grants_include_a_grant_only_when_one_covers_all_it_gave(
    given: list[Grant], expected: bool
) -> None:
    assert includes(given, Grant("team", ("notes",), "read")) is expected


def test_read_does_not_include_write() -> None:
    assert not includes([Grant("team", (), "read")], Grant("team", ("notes",), "write"))

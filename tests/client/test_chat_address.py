"""Chat addresses: paths inside a workspace, found from the working directory or a workspace."""

from __future__ import annotations

from pathlib import Path

import pytest

from quire.client.chat_address import chat_path, workspace_of, workspace_path
from quire.core.errors import InvalidArgument


@pytest.fixture
def world(tmp_path: Path) -> dict[str, Path]:
    one = tmp_path / "one"
    two = tmp_path / "two"
    (one / "Chats").mkdir(parents=True)
    (two / "Notes").mkdir(parents=True)
    (one / "Chats" / "team.md").write_text("x", encoding="utf-8")
    (two / "Notes" / "plan.md").write_text("x", encoding="utf-8")
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    return {"one": one.resolve(), "two": two.resolve(), "out": outside, "home": tmp_path / "h"}


@pytest.mark.parametrize(
    ("raw", "cwd", "expected"),
    [
        ("Chats/team.md", "one", "one/Chats/team.md"),
        ("team.md", "one/Chats", "one/Chats/team.md"),
        ("../one/Chats/new.md", "two", "one/Chats/new.md"),
        ("Chats/team.md", "out", "one/Chats/team.md"),
        ("Notes/plan.md", "out", "two/Notes/plan.md"),
        ("./Chats/./team.md", "one", "one/Chats/team.md"),
    ],
)
def test_a_relative_path_is_taken_from_the_cwd_then_from_the_workspace_holding_it(
    world: dict[str, Path], raw: str, cwd: str, expected: str
) -> None:
    base = world["out"] if cwd == "out" else world[cwd.split("/")[0]].joinpath(*cwd.split("/")[1:])
    found = chat_path(raw, cwd=base, home=world["home"], workspaces=[world["one"], world["two"]])
    root, _, rest = expected.partition("/")
    assert found == world[root] / rest


def test_an_absolute_path_inside_a_workspace_is_kept(world: dict[str, Path]) -> None:
    path = world["two"] / "Notes" / "new chat.md"
    found = chat_path(str(path), cwd=world["out"], home=world["home"], workspaces=[world["two"]])
    assert found == path


def test_with_one_workspace_a_new_relative_chat_lands_in_it(world: dict[str, Path]) -> None:
    found = chat_path(
        "Chats/new.md", cwd=world["out"], home=world["home"], workspaces=[world["one"]]
    )
    assert found == world["one"] / "Chats" / "new.md"


def test_a_symlink_into_a_workspace_counts_as_the_file_it_names(world: dict[str, Path]) -> None:
    link = world["out"] / "link.md"
    link.symlink_to(world["one"] / "Chats" / "team.md")
    found = chat_path(str(link), cwd=world["out"], home=world["home"], workspaces=[world["one"]])
    assert found == world["one"] / "Chats" / "team.md"


@pytest.mark.parametrize(
    ("raw", "fragment"),
    [
        ("@mini/notes/Chats/team.md", "names a remote server"),
        ("@", "names a remote server"),
        ("", "empty"),
        ("   ", "empty"),
        ("a\0b.md", "NUL"),
        ("/etc/passwd.md", "is not inside a workspace"),
        ("../../../../x.md", "is not inside a workspace"),
        ("missing/new.md", "is not inside a workspace"),
    ],
)
def test_addresses_that_cannot_be_used_are_refused_with_the_reason(
    world: dict[str, Path], raw: str, fragment: str
) -> None:
    with pytest.raises(InvalidArgument) as raised:
        chat_path(
            raw, cwd=world["out"], home=world["home"], workspaces=[world["one"], world["two"]]
        )
    assert fragment in str(raised.value)
    assert raised.value.argument == "CHAT"


def test_the_outside_refusal_names_the_workspaces(world: dict[str, Path]) -> None:
    with pytest.raises(InvalidArgument) as raised:
        chat_path("/tmp/x.md", cwd=world["out"], home=world["home"], workspaces=[world["one"]])
    assert str(world["one"]) in str(raised.value)
    assert "quire serve" in str(raised.value)


def test_the_innermost_of_nested_workspaces_holds_a_path(world: dict[str, Path]) -> None:
    inner = world["one"] / "Chats"
    assert workspace_of(inner / "team.md", [world["one"], inner]) == inner
    assert workspace_of(world["one"] / "x.md", [world["one"], inner]) == world["one"]
    assert workspace_of(world["out"], [world["one"]]) is None


def test_a_workspace_is_named_by_a_folder_in_it_or_found_from_the_cwd(
    world: dict[str, Path],
) -> None:
    both = [world["one"], world["two"]]
    home = world["home"]
    assert (
        workspace_path("Chats", cwd=world["one"], home=home, workspaces=both, argument="W")
        == (world["one"])
    )
    assert (
        workspace_path(None, cwd=world["two"] / "Notes", home=home, workspaces=both, argument="W")
        == (world["two"])
    )
    assert (
        workspace_path(None, cwd=world["out"], home=home, workspaces=[world["two"]], argument="W")
        == (world["two"])
    )
    with pytest.raises(InvalidArgument, match="not inside a workspace"):
        workspace_path(None, cwd=world["out"], home=home, workspaces=both, argument="W")
    with pytest.raises(InvalidArgument, match="names a remote server"):
        workspace_path("@mini/notes", cwd=world["out"], home=home, workspaces=both, argument="W")

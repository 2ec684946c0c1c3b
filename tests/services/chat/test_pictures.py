"""Chat pictures: the built-ins, a workspace's ChatGifs/ overrides, and saved avatars."""

from __future__ import annotations

from pathlib import Path

import pytest

from quire.core.errors import FileMissing, FileTooLarge, InvalidArgument, PathRefused
from quire.services.chat.pictures import (
    AVATARS,
    GIFS_FOLDER,
    REACTIONS,
    avatar_key,
    avatar_name,
    avatars_of,
    builtin_svg,
    check_gif_name,
    gif_svg,
    list_gifs,
    save_avatar,
)
from quire.services.chat.svg_check import check_svg

OWN = '<svg xmlns="http://www.w3.org/2000/svg"><circle r="3"/></svg>'


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    folder.mkdir()
    return folder


def test_twenty_reactions_and_six_avatars_are_built_in() -> None:
    assert len(REACTIONS) == 20 == len(set(REACTIONS))
    assert AVATARS == ("robot", "owl", "cat", "alien", "ghost", "fox")
    assert "question" in REACTIONS and "hourglass" in REACTIONS


@pytest.mark.parametrize("name", [*REACTIONS, *AVATARS])
def test_every_built_in_is_a_small_inert_animated_svg(name: str) -> None:
    data = builtin_svg(name)
    assert data is not None
    assert len(data) < 4096
    check_svg(data)
    text = data.decode("utf-8")
    assert "<animate" in text
    assert "script" not in text.lower()
    assert "http://" not in text.replace('xmlns="http://www.w3.org/2000/svg"', "")


def test_the_package_ships_exactly_the_built_ins() -> None:
    folder = Path(__file__).parents[3] / "src" / "quire" / "services" / "chat" / "gifs"
    assert sorted(path.stem for path in folder.iterdir()) == sorted([*REACTIONS, *AVATARS])


def test_a_workspace_without_chatgifs_lists_the_built_ins() -> None:
    listed = list_gifs(Path("/nonexistent-workspace"))
    assert [gif.name for gif in listed.gifs] == [*REACTIONS, *AVATARS]
    assert all(gif.builtin for gif in listed.gifs)
    assert listed.avatars == {}


def test_a_workspace_file_overrides_a_built_in_and_adds_its_own(workspace: Path) -> None:
    folder = workspace / GIFS_FOLDER
    folder.mkdir()
    (folder / "nod.svg").write_text(OWN, encoding="utf-8")
    (folder / "party-parrot.svg").write_text(OWN, encoding="utf-8")
    (folder / "avatar-qa-1.svg").write_text(OWN, encoding="utf-8")
    (folder / "notes.md").write_text("# not a picture\n", encoding="utf-8")
    (folder / "bad name.svg").write_text(OWN, encoding="utf-8")
    (folder / "sub.svg").mkdir()
    listed = list_gifs(workspace)
    flags = {gif.name: gif.builtin for gif in listed.gifs}
    assert flags["nod"] is False and flags["wave"] is True
    assert flags["party-parrot"] is False
    assert "avatar-qa-1" not in flags and "notes" not in flags and "sub" not in flags
    assert listed.avatars == {"qa-1": "avatar-qa-1"}
    assert gif_svg(workspace, "nod") == OWN.encode()
    assert gif_svg(workspace, "wave") == builtin_svg("wave")


def test_an_unknown_picture_is_missing_and_a_bad_name_is_refused(workspace: Path) -> None:
    with pytest.raises(FileMissing):
        gif_svg(workspace, "no-such-thing")
    for bad in ["../nod", "nod.svg", "", "-x", "a" * 81, "nod/x", "n\0d", "ñod"]:
        with pytest.raises(InvalidArgument):
            check_gif_name(bad)


def test_a_picture_linked_out_of_the_workspace_is_not_served(
    workspace: Path, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.svg"
    secret.write_text(OWN, encoding="utf-8")
    folder = workspace / GIFS_FOLDER
    folder.mkdir()
    (folder / "nod.svg").symlink_to(secret)
    assert gif_svg(workspace, "nod") == builtin_svg("nod")  # the link is not a picture here


def test_a_chatgifs_folder_linked_out_of_the_workspace_is_refused(
    workspace: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "nod.svg").write_text(OWN, encoding="utf-8")
    (workspace / GIFS_FOLDER).symlink_to(outside)
    assert gif_svg(workspace, "nod") == builtin_svg("nod")
    assert list_gifs(workspace).avatars == {}
    with pytest.raises(PathRefused):
        save_avatar(workspace, "qa-1", "owl", None)
    assert list(outside.iterdir()) == [outside / "nod.svg"]


def test_an_oversized_workspace_picture_is_refused(workspace: Path) -> None:
    folder = workspace / GIFS_FOLDER
    folder.mkdir()
    (folder / "big.svg").write_bytes(b"<svg>" + b" " * 30_000 + b"</svg>")
    with pytest.raises(FileTooLarge):
        gif_svg(workspace, "big")


@pytest.mark.parametrize(
    ("label", "key"),
    [("qa-1", "qa-1"), ("Lead QA", "lead-qa"), ("Ölaf", "laf"), ("a/b\\c", "a-b-c"),
     ("__x__", "x"), ("x" * 80, "x" * 60)],
)  # fmt: skip
def test_an_avatar_is_named_after_the_label_in_file_safe_form(label: str, key: str) -> None:
    assert avatar_key(label) == key
    assert avatar_name(label) == f"avatar-{key}"


def test_a_label_without_letters_or_digits_cannot_name_an_avatar() -> None:
    with pytest.raises(InvalidArgument):
        avatar_key("日本")


def test_auto_picks_the_first_built_in_nobody_has_then_the_least_used(workspace: Path) -> None:
    picks = [save_avatar(workspace, f"agent-{n}", "auto", None)[1] for n in range(8)]
    assert picks == [*AVATARS, "robot", "owl"]
    assert save_avatar(workspace, "agent-1", "auto", None) == ("avatar-agent-1", "owl")


def test_picking_again_replaces_the_avatar(workspace: Path) -> None:
    assert save_avatar(workspace, "Bob", "owl", None) == ("avatar-bob", "owl")
    assert save_avatar(workspace, "bob", "fox", None) == ("avatar-bob", "fox")
    assert gif_svg(workspace, "avatar-bob") == builtin_svg("fox")
    assert avatars_of(workspace, ["Bob", "carol", "日本"]) == {"Bob": "avatar-bob"}


def test_an_uploaded_drawing_is_saved_after_its_check(workspace: Path) -> None:
    assert save_avatar(workspace, "qa-1", None, OWN) == ("avatar-qa-1", None)
    assert gif_svg(workspace, "avatar-qa-1") == OWN.encode()
    with pytest.raises(InvalidArgument, match="script"):
        save_avatar(workspace, "qa-2", None, OWN.replace("<circle", "<script>x</script><circle"))
    assert not (workspace / GIFS_FOLDER / "avatar-qa-2.svg").exists()


@pytest.mark.parametrize(
    ("pick", "svg"), [(None, None), ("owl", OWN), ("dragon", None), ("nod", None)]
)
def test_a_pick_must_be_one_built_in_avatar_or_an_upload(pick: str | None, svg: str | None) -> None:
    with pytest.raises(InvalidArgument):
        save_avatar(Path("/nonexistent"), "qa-1", pick, svg)


def test_a_file_named_chatgifs_is_refused(workspace: Path) -> None:
    (workspace / GIFS_FOLDER).write_text("not a folder", encoding="utf-8")
    with pytest.raises(PathRefused):
        save_avatar(workspace, "qa-1", "owl", None)
    assert (workspace / GIFS_FOLDER).is_file()

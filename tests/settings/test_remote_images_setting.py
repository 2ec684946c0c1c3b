"""`preview.remote_images`: off by default, `true` for every workspace, or a list of folders;
a note shows its remote images only inside one of them; bad values name the file's key."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from quire.core.errors import InvalidArgument
from quire.settings.model import Settings, load_settings


@pytest.fixture
def home(tmp_path: Path) -> Path:
    folder = tmp_path / "home"
    (folder / ".quire").mkdir(parents=True)
    for name in ("notes", "blog", "blog/drafts"):
        (folder / name).mkdir()
    return folder


def _load(home: Path, toml: str) -> Settings:
    (home / ".quire" / "quire.toml").write_text(
        'workspaces = ["~/notes", "~/blog"]\n' + toml, encoding="utf-8"
    )
    return load_settings(flags={}, environ={}, home=home, cwd=home)


def test_remote_images_are_off_everywhere_by_default(home: Path) -> None:
    settings = _load(home, "")
    assert settings.remote_images == ()
    assert not settings.loads_remote_images(home.resolve() / "notes" / "a.md")


def test_true_turns_them_on_for_every_workspace(home: Path) -> None:
    settings = _load(home, "[preview]\nremote_images = true\n")
    assert settings.remote_images == settings.workspaces
    assert settings.loads_remote_images(home.resolve() / "blog" / "drafts" / "a.md")


def test_false_and_an_empty_list_leave_them_off(home: Path) -> None:
    assert _load(home, "[preview]\nremote_images = false\n").remote_images == ()
    assert _load(home, "[preview]\nremote_images = []\n").remote_images == ()


def test_a_listed_folder_turns_them_on_for_the_notes_inside_it_only(home: Path) -> None:
    settings = _load(home, '[preview]\nremote_images = ["~/blog"]\n')
    root = home.resolve()
    assert settings.loads_remote_images(root / "blog" / "post.md")
    assert settings.loads_remote_images(root / "blog" / "drafts" / "post.md")
    assert not settings.loads_remote_images(root / "notes" / "post.md")
    # A sibling whose name merely starts the same is another folder.
    assert not settings.loads_remote_images(root / "blog-old" / "post.md")


def test_a_listed_folder_is_resolved_through_symlinks(home: Path, tmp_path: Path) -> None:
    (home / "link").symlink_to(home / "blog")
    settings = _load(home, '[preview]\nremote_images = ["~/link"]\n')
    assert settings.remote_images == ((home / "blog").resolve(),)


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ('"yes"', "neither true, false nor a list"),
        ("1", "neither true, false nor a list"),
        ('["blog"]', "is a relative path"),
        ('[""]', "is not a folder path"),
        ("[1]", "is not a folder path"),
        ('"~/blog"', "neither true, false nor a list"),
    ],
)
def test_a_bad_value_is_refused_naming_the_key(home: Path, value: str, words: str) -> None:
    with pytest.raises(InvalidArgument) as caught:
        _load(home, f"[preview]\nremote_images = {value}\n")
    assert "`preview.remote_images`" in caught.value.message
    assert words in caught.value.message


def test_a_misspelt_key_is_refused_naming_the_right_one(home: Path) -> None:
    with pytest.raises(InvalidArgument) as caught:
        _load(home, "[preview]\nremote_image = true\n")
    assert "preview.remote_images" in caught.value.message


def test_settings_built_directly_want_absolute_folders(tmp_path: Path) -> None:
    with pytest.raises(ValidationError):
        Settings(workspaces=(tmp_path,), state_dir=tmp_path, remote_images=(Path("rel"),))

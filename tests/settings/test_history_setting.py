"""`history.enabled` and `history.window`: which workspaces keep history, how long a burst is,
and bad values refused naming the file's key."""

from __future__ import annotations

from pathlib import Path

import pytest

from quire.core.errors import InvalidArgument
from quire.settings.model import Settings, load_settings


@pytest.fixture
def home(tmp_path: Path) -> Path:
    folder = tmp_path / "home"
    (folder / ".quire").mkdir(parents=True)
    for name in ("notes", "blog"):
        (folder / name).mkdir()
    return folder


def _load(home: Path, toml: str) -> Settings:
    (home / ".quire" / "quire.toml").write_text(
        'workspaces = ["~/notes", "~/blog"]\n' + toml, encoding="utf-8"
    )
    return load_settings(flags={}, environ={}, home=home, cwd=home)


def test_by_default_a_workspace_keeps_history_when_it_is_in_a_repository(home: Path) -> None:
    settings = _load(home, "")
    notes = settings.workspaces[0]
    assert (settings.history, settings.history_window_s) == (None, 3.0)
    assert settings.keeps_history(notes, in_repository=True)
    assert not settings.keeps_history(notes, in_repository=False)


def test_true_false_and_a_list_of_folders(home: Path) -> None:
    on = _load(home, "[history]\nenabled = true\nwindow = 0.5\n")
    assert on.keeps_history(on.workspaces[1], in_repository=False)
    assert on.history_window_s == 0.5
    off = _load(home, "[history]\nenabled = false\n")
    assert not off.keeps_history(off.workspaces[0], in_repository=True)
    listed = _load(home, '[history]\nenabled = ["~/blog"]\n')
    notes, blog = listed.workspaces
    assert listed.keeps_history(blog, in_repository=False)
    assert not listed.keeps_history(notes, in_repository=False)
    assert listed.keeps_history(notes, in_repository=True)


@pytest.mark.parametrize(
    "toml",
    [
        '[history]\nenabled = "yes"\n',
        "[history]\nenabled = 1\n",
        '[history]\nenabled = ["blog"]\n',
        "[history]\nenabled = [1]\n",
        '[history]\nenabled = [""]\n',
        "[history]\nwindow = -1\n",
        "[history]\nwindow = 3601\n",
        "[history]\nwindow = true\n",
        '[history]\nwindow = "3"\n',
        "[history]\nwindows = 3\n",
        "history = true\n",
    ],
)
def test_bad_values_are_refused_naming_the_key(home: Path, toml: str) -> None:
    with pytest.raises(InvalidArgument) as refused:
        _load(home, toml)
    assert "history" in str(refused.value)

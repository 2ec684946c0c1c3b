"""A client's view of quire.toml: chat is on unless the file, read as the server does, says off."""

from __future__ import annotations

from pathlib import Path

import pytest

from quire.settings.model import chat_enabled


@pytest.mark.parametrize(
    ("content", "enabled"),
    [
        (None, True),
        (b"", True),
        (b"[chat]\nenabled = true\n", True),
        (b"[chat]\nenabled = false\n", False),
        (b"chat.enabled = false\n", False),
        (b"[server]\nport = 1\n", True),
        (b"[chat]\n", True),
        (b"[chat]\nenabled = 'false'\n", True),
        (b"[chat]\nenabled = 0\n", True),
        (b"chat = false\n", True),
        (b"[chat\nenabled = false", True),
        (b"\xff\xfe[chat]\nenabled = false\n", True),
        (b"[chat]\nenabled = false\n[server]\nprot = 1\n", True),
        (b"[chat]\nenabled = false\nenable = true\n", True),
    ],
)
def test_chat_is_off_only_when_a_quire_toml_the_server_accepts_says_enabled_false(
    tmp_path: Path, content: bytes | None, enabled: bool
) -> None:
    if content is not None:
        (tmp_path / "quire.toml").write_bytes(content)
    assert chat_enabled(tmp_path) is enabled


def test_a_symlinked_settings_file_is_followed(tmp_path: Path) -> None:
    real = tmp_path / "dotfiles.toml"
    real.write_text("[chat]\nenabled = false\n", encoding="utf-8")
    (tmp_path / "quire.toml").symlink_to(real)
    assert chat_enabled(tmp_path) is False


def test_a_settings_path_that_is_a_folder_or_missing_state_leaves_chat_on(tmp_path: Path) -> None:
    (tmp_path / "quire.toml").mkdir()
    assert chat_enabled(tmp_path) is True
    assert chat_enabled(tmp_path / "missing") is True

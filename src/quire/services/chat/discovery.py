"""Finding the chats among a workspace's notes: every note whose front matter has the chat tag.

Walks the workspaces' listing and reads each note once per version (a note unchanged since the
last walk is judged by its identity alone). Blocking: call ``find`` from a worker thread.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from quire.core.errors import QuireError
from quire.fs.encoding import decode_utf8
from quire.fs.resolve import resolve_leniently
from quire.fs.sandbox import is_document_name
from quire.markdown.chat import is_chat
from quire.services.chat.paths import ChatPath
from quire.services.chat.tails import FileIdentity, file_identity, read_chat_file
from quire.vault.workspaces import PAGE_LIMIT, Workspaces


class ChatFinder:
    """Which notes of the served workspaces are chats, remembered per file version."""

    def __init__(self, workspaces: Workspaces) -> None:
        self._workspaces = workspaces
        self._judged: dict[Path, tuple[FileIdentity, bool]] = {}

    def find(self, folders: Sequence[Path]) -> list[ChatPath]:
        """The chats in ``folders`` (served workspaces), each once, by resolved path."""
        wanted = set(folders)
        found: dict[Path, ChatPath] = {}
        cursor: str | None = None
        while True:
            page = self._workspaces.list_files(cursor, PAGE_LIMIT[1])
            for item in page.files:
                if item.workspace not in wanted:
                    continue
                resolved = resolve_leniently(item.path)
                workspace = self._workspaces.workspace_of(resolved)
                if workspace is None or resolved in found:
                    continue
                if self._is_chat(resolved):
                    found[resolved] = ChatPath(resolved, workspace)
            if page.next_cursor is None:
                return list(found.values())
            cursor = page.next_cursor

    def find_below(self, folder: Path) -> list[Path]:
        """The chats in ``folder`` and its subfolders (symlinks not followed), by path."""
        found: list[Path] = []
        for root, folders, files in os.walk(folder):
            folders[:] = [name for name in folders if not name.startswith(".")]
            for name in files:
                path = Path(root) / name
                if is_document_name(name) and not path.is_symlink() and self._is_chat(path):
                    found.append(path)
        return found

    def _is_chat(self, path: Path) -> bool:
        try:
            identity = file_identity(path)
        except OSError:
            return False
        judged = self._judged.get(path)
        if judged is not None and judged[0] == identity:
            return judged[1]
        try:
            data, identity = read_chat_file(self._workspaces.inside, path)
            verdict = is_chat(decode_utf8(data, path=path))
        except QuireError:
            verdict = False
        self._judged[path] = (identity, verdict)
        return verdict

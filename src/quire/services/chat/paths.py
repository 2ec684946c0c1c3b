"""Where a chat may be: the path rules every chat path passes, and the folders a new one needs.

A chat is a Markdown note (not a dotfile) that resolves, through every symlink, inside a served
workspace. Blocking (stat and descriptor walks): call these from a worker thread. Reading and
writing the note is for ``quire.fs``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from quire.core.errors import InvalidArgument, PathRefused
from quire.fs.documents import find_file
from quire.fs.resolve import resolve_leniently
from quire.fs.sandbox import document_rule, is_document_name
from quire.vault.workspaces import Workspaces


@dataclass(frozen=True)
class ChatPath:
    """A chat's path with every symlink resolved, and the workspace holding it."""

    path: Path
    workspace: Path

    @property
    def key(self) -> str:
        """The path as text: how cursors, pins, presence and events name the chat."""
        return str(self.path)


def existing_chat_path(workspaces: Workspaces, path: Path, *, verb: str = "read") -> ChatPath:
    """The resolved path of the existing note ``path`` inside a workspace.

    Raises PathRefused (not Markdown, a dotfile, a folder or special file, outside every
    workspace, a symlink out of one) or FileMissing.
    """
    resolved = find_file(workspaces.inside, path, verb=verb).path
    return ChatPath(resolved, _workspace(workspaces, resolved, path, verb))


def named_chat_path(workspaces: Workspaces, path: Path, *, verb: str) -> ChatPath:
    """The resolved path ``path`` names, whether or not a file is there (leaving a chat that
    was deleted); the name and the folder must still pass the rules."""
    if not is_document_name(path.name):
        raise PathRefused(f"Refusing to {verb} '{path}': {document_rule(verb)}.")
    resolved = resolve_leniently(path)
    if not is_document_name(resolved.name):
        raise PathRefused(
            f"Refusing to {verb} '{path}': it is a symbolic link to '{resolved}', and "
            f"{document_rule(verb)}."
        )
    return ChatPath(resolved, _workspace(workspaces, resolved, path, verb))


def new_chat_path(workspaces: Workspaces, path: Path) -> tuple[ChatPath, bool]:
    """The resolved path for a chat at ``path`` and whether a note is there already.

    Nothing is created here: the missing folders are made when the note is written, by a walk
    from the workspace that never follows a link out of it. Raises PathRefused for a path
    the rules refuse.
    """
    if os.path.lexists(path):
        return existing_chat_path(workspaces, path, verb="create"), True
    if not is_document_name(path.name):
        raise PathRefused(f"Refusing to create '{path}': {document_rule('create')}.")
    missing: list[str] = []
    folder = path.parent
    while not os.path.lexists(folder):
        missing.append(folder.name)
        folder = folder.parent
    if any(name in ("", ".", "..") for name in missing):
        raise InvalidArgument(
            f"`path` '{path}' climbs with .. through folders that do not exist; pass the "
            "chat's full path without .. in it.",
            argument="path",
        )
    base = resolve_leniently(folder)
    workspace = _workspace(workspaces, base, path, "create")
    if not base.is_dir():
        raise PathRefused(
            f"Refusing to create '{path}': '{folder}' is not a folder. Pick a path inside a "
            "folder of the workspace."
        )
    return ChatPath(base.joinpath(*reversed(missing), path.name), workspace), False


def workspace_folder(workspaces: Workspaces, path: Path) -> Path:
    """The served workspace ``path`` names or lies in (resolved); PathRefused otherwise."""
    workspace = workspaces.workspace_of(path)
    if workspace is None:
        raise PathRefused(
            f"'{path}' is not a workspace this server serves, nor inside one. Pass one of: "
            f"{', '.join(str(folder) for folder in workspaces.folders)}."
        )
    return workspace


def _workspace(workspaces: Workspaces, resolved: Path, given: Path, verb: str) -> Path:
    workspace = workspaces.workspace_of(resolved)
    if workspace is None:
        shown = f"'{given}'" if resolved == given else f"'{given}' (which is '{resolved}')"
        raise PathRefused(
            f"Refusing to {verb} {shown}: it is outside every workspace this server serves "
            f"({', '.join(str(folder) for folder in workspaces.folders)}). Chats live in a "
            "workspace; pass a path inside one."
        )
    return workspace

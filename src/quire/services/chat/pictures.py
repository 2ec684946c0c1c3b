"""Chat pictures: the built-in animated reactions and avatars, a workspace's ChatGifs/ folder
(its files override the built-ins), and the avatars saved there as ``avatar-NAME.svg``.

Blocking file work (call it from a worker thread); reads and writes go through ``quire.fs``,
and the folder must resolve inside its workspace. Serving pictures inert is the web layer's.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable
from importlib import resources
from pathlib import Path

from quire.api.chats import GifList, GifName
from quire.core.errors import FileMissing, InvalidArgument, PathRefused, QuireError
from quire.fs.documents import ANY_FILE, read_file, write_file
from quire.fs.folders import AllowedFolders
from quire.fs.resolve import resolve_leniently
from quire.services.chat.svg_check import MAX_SVG_BYTES, check_svg

GIFS_FOLDER = "ChatGifs"
"""The folder of a workspace that holds its own reactions and everyone's avatars."""

REACTIONS = (
    "nod", "thumbs-up", "wave", "thinking", "celebrate", "eyes", "done", "oops", "question",
    "heart", "laugh", "clap", "fire", "rocket", "bug", "idea", "warning", "sad", "thanks",
    "hourglass",
)  # fmt: skip
"""The built-in reactions, in the order they are offered."""

AVATARS = ("robot", "owl", "cat", "alien", "ghost", "fox")
"""The built-in avatars, in the order ``pick: "auto"`` hands them out."""

AVATAR_PREFIX = "avatar-"
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,79}")
_SLUG_DROP = re.compile(r"[^a-z0-9_-]+")
_BUILTIN = resources.files("quire.services.chat") / "gifs"


def check_gif_name(name: str) -> str:
    """``name`` when it can name a picture (letters, digits, ``-`` and ``_``, at most 80);
    raises InvalidArgument naming ``name`` otherwise."""
    if not isinstance(name, str) or _NAME.fullmatch(name) is None:
        raise InvalidArgument(
            f"`name` must be a picture name of letters, digits, - and _ (such as `nod` or "
            f"`avatar-qa-1`), got {name!r}. List the names with GET /api/chats/gifs.",
            argument="name",
        )
    return name


def avatar_key(label: str) -> str:
    """The file-name form of an author label: lower-case letters, digits, ``-`` and ``_``.

    Raises InvalidArgument (argument ``as``) when nothing usable is left.
    """
    key = _SLUG_DROP.sub("-", label.lower()).strip("-_")[:60].strip("-_")
    if not key:
        raise InvalidArgument(
            f"The name {label!r} has no letters or digits to name an avatar file after; use a "
            "name such as `qa-1` for the avatar.",
            argument="as",
        )
    return key


def avatar_name(label: str) -> str:
    """The picture name of ``label``'s avatar, ``avatar-KEY``."""
    return AVATAR_PREFIX + avatar_key(label)


def builtin_svg(name: str) -> bytes | None:
    """The built-in picture ``name``, or None."""
    if name not in REACTIONS and name not in AVATARS:
        return None
    return (_BUILTIN / f"{name}.svg").read_bytes()


def list_gifs(workspace: Path) -> GifList:
    """Every picture name usable in ``workspace`` (built-ins first) and its saved avatars."""
    own = _own_files(workspace)
    gifs = [GifName(name=name, builtin=name not in own) for name in (*REACTIONS, *AVATARS)]
    builtins = set(REACTIONS) | set(AVATARS)
    avatars: dict[str, str] = {}
    for name in sorted(own):
        if name.startswith(AVATAR_PREFIX):
            avatars[name[len(AVATAR_PREFIX) :]] = name
        elif name not in builtins:
            gifs.append(GifName(name=name, builtin=False))
    return GifList(gifs=tuple(gifs), avatars=avatars)


def avatars_of(workspace: Path, labels: Iterable[str]) -> dict[str, str]:
    """The avatar picture of each of ``labels`` that has one saved in ``workspace``."""
    own = _own_files(workspace)
    found: dict[str, str] = {}
    for label in labels:
        try:
            name = avatar_name(label)
        except InvalidArgument:
            continue
        if name in own:
            found[label] = name
    return found


def gif_svg(workspace: Path, name: str) -> bytes:
    """The picture ``name`` of ``workspace``: its own ChatGifs/NAME.svg, else the built-in.

    Raises InvalidArgument for a bad name, FileMissing when there is no such picture, and what
    ``quire.fs`` raises for a file that cannot be read (a symlink, over 20 KB…).
    """
    check_gif_name(name)
    if name in _own_files(workspace):
        return _read_picture(workspace, name)
    data = builtin_svg(name)
    if data is None:
        raise FileMissing(
            f"There is no chat picture named {name!r} in {workspace}. List the names with "
            f"GET /api/chats/gifs, or add the file {GIFS_FOLDER}/{name}.svg to the workspace."
        )
    return data


def save_avatar(
    workspace: Path, label: str, pick: str | None, svg: str | None
) -> tuple[str, str | None]:
    """Save ``label``'s avatar as ChatGifs/avatar-KEY.svg: a built-in avatar (``pick``, or
    ``"auto"`` for the first one nobody in the workspace has yet) or an uploaded ``svg``.

    Returns the picture name and the built-in picked (None for an upload). Raises
    InvalidArgument for a bad pick or a refused SVG, PathRefused when ChatGifs/ leads outside
    the workspace.
    """
    name = avatar_name(label)
    if (pick is None) == (svg is None):
        raise InvalidArgument(
            'Pass either `pick` (a built-in avatar, or "auto") or `svg` (your own drawing), '
            "not both and not neither.",
            argument="pick" if pick is not None else "svg",
        )
    if svg is not None:
        check_svg(svg)
        data, picked = svg.encode("utf-8"), None
    else:
        assert pick is not None
        picked = _auto_pick(workspace, name) if pick == "auto" else pick
        if picked not in AVATARS:
            raise InvalidArgument(
                f'`pick` must be one of {", ".join(AVATARS)} or "auto", got {pick!r}.',
                argument="pick",
            )
        data = _BUILTIN.joinpath(f"{picked}.svg").read_bytes()
    target = workspace / GIFS_FOLDER / f"{name}.svg"
    write_file(AllowedFolders([workspace]), target, data, kind=ANY_FILE, make_folders=True)
    return name, picked


def gifs_folder(workspace: Path) -> Path | None:
    """The resolved ChatGifs/ folder of ``workspace`` (None when it does not exist). Raises
    PathRefused when it resolves outside the workspace or is not a folder."""
    folder = workspace / GIFS_FOLDER
    resolved = resolve_leniently(folder)
    try:
        mode = resolved.stat().st_mode
    except OSError:
        return None
    if not resolved.is_relative_to(workspace) or not stat.S_ISDIR(mode):
        raise PathRefused(
            f"Refusing to use {folder} for chat pictures: it is not a folder inside the "
            f"workspace {workspace} (a link out of it, or a file). Rename it, or make it a "
            "plain folder."
        )
    return resolved


def _read_picture(workspace: Path, name: str) -> bytes:
    """The workspace's own ChatGifs/NAME.svg, read from the workspace's descriptor down."""
    path = workspace / GIFS_FOLDER / f"{name}.svg"
    _found, data = read_file(AllowedFolders([workspace]), path, kind=ANY_FILE, limit=MAX_SVG_BYTES)
    return data


def _own_files(workspace: Path) -> set[str]:
    """The picture names of the workspace's ChatGifs/ folder (regular .svg files only)."""
    try:
        folder = gifs_folder(workspace)
    except PathRefused:
        return set()
    if folder is None:
        return set()
    names: set[str] = set()
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                stem, dot, extension = entry.name.rpartition(".")
                is_svg = dot and extension.lower() == "svg" and _NAME.fullmatch(stem)
                if is_svg and entry.is_file(follow_symlinks=False):
                    names.add(stem)
    except OSError:
        return set()
    return names


def _auto_pick(workspace: Path, own_name: str) -> str:
    """The first built-in avatar no one else in the workspace has; when every one is taken,
    the least used."""
    folder = gifs_folder(workspace)
    uses = dict.fromkeys(AVATARS, 0)
    by_content = {_BUILTIN.joinpath(f"{name}.svg").read_bytes(): name for name in AVATARS}
    if folder is not None:
        for name in _own_files(workspace):
            if not name.startswith(AVATAR_PREFIX) or name == own_name:
                continue
            try:
                data = _read_picture(workspace, name)
            except QuireError:
                continue
            builtin = by_content.get(data)
            if builtin is not None:
                uses[builtin] += 1
    return min(AVATARS, key=lambda name: (uses[name], AVATARS.index(name)))

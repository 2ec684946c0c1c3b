"""The one folder walker: every file under a root by the path rules, with one set of limits.

Pure traversal with scandir and stat: it never opens a file (``safeio`` reads them) and never
decides which roots are walked. The file tree, search and every later feature walk through it,
so one folder is walked the same way whoever asks. What it could not read or left out is in
the result, never dropped in silence.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from quire.fs.resolve import resolve_leniently
from quire.fs.temp_names import is_temp_name

MAX_DEPTH = 32
"""Folders deeper than this many levels below the root are not entered."""

MAX_ENTRIES = 200_000
"""The most folder entries one listing reads (files, folders and links alike), across every
root it walks."""

SKIPPED_FOLDERS = frozenset({"node_modules", "target"})
"""Folders never entered: dependency and build output, holding no one's notes."""

_GONE = (errno.ENOENT, errno.ENOTDIR)


@dataclass(frozen=True)
class WalkedFile:
    """A file the walk kept: its path as reached under the root (a link is not resolved), its
    path relative to the root, the real file it names, and that file's stat."""

    path: Path
    rel_path: str
    target: Path
    info: os.stat_result


@dataclass(frozen=True)
class Unreadable:
    """A folder the walk could not list, and the operating system's reason."""

    path: Path
    reason: str


@dataclass
class Walk:
    """What one walk found, in order of ``rel_path``, and everything it left out and why.

    ``too_deep``: folders not entered because of ``MAX_DEPTH``; ``links_out``: file links that
    name nothing, loop, or lead out of the root (or into a hidden or skipped folder);
    ``undecodable``: names that are not UTF-8 text; ``temp_files``: Quire's temp files (by
    name; see ``quire.fs.temp_names``) in the folders walked, never listed; ``budget_cut``:
    the walk stopped after ``max_entries`` entries (``entries`` counts them, with what
    earlier walks spent).
    ``max_depth`` and ``max_entries`` are the limits it used. ``folders``: every folder it
    listed (the root first) with its modification time in ns, so a caller can tell later
    whether any of them gained or lost an entry.
    """

    root: Path
    max_depth: int
    max_entries: int
    files: list[WalkedFile] = field(default_factory=list)
    unreadable: list[Unreadable] = field(default_factory=list)
    too_deep: list[Path] = field(default_factory=list)
    links_out: list[Path] = field(default_factory=list)
    undecodable: list[Path] = field(default_factory=list)
    temp_files: list[Path] = field(default_factory=list)
    folders: list[tuple[Path, int]] = field(default_factory=list)
    entries: int = 0
    budget_cut: bool = False

    @property
    def depth_cut(self) -> bool:
        """Whether some folder was not entered because it lies too deep."""
        return bool(self.too_deep)

    @property
    def truncated(self) -> bool:
        """Whether a limit left files out (the entry budget or the depth)."""
        return self.budget_cut or self.depth_cut


def walk_tree(
    root: Path,
    *,
    keep: Callable[[str], bool],
    exclude: Collection[Path] = (),
    spent: int = 0,
) -> Walk:
    """Every file under ``root`` whose name passes ``keep``, by the path rules.

    Dotfiles and dot folders are left out, ``SKIPPED_FOLDERS`` and the folders in ``exclude``
    (real paths) are not entered, and neither is a folder link, so a link loop cannot trap the
    walk. A file link is kept, under its own path, when its own name and the real file's name
    pass ``keep`` and that file is a regular file inside the root, outside hidden and skipped
    folders. A folder deeper than ``MAX_DEPTH`` is not entered, and the walk stops after
    ``MAX_ENTRIES`` entries. A file or folder that vanishes during the walk is left out; a
    folder that cannot be listed is reported in ``unreadable``. Files come ordered by relative
    path whatever order the file system lists them in (only which entries a walk cut by the
    budget had read depends on that order). A listing that walks several roots
    passes the entries its earlier walks read as ``spent``, so ``MAX_ENTRIES`` bounds it whole.
    Blocking: call it from a worker thread.
    """
    real_root = resolve_leniently(root)
    walk = Walk(root=root, max_depth=MAX_DEPTH, max_entries=MAX_ENTRIES, entries=spent)
    skipped = {resolve_leniently(folder) for folder in exclude}
    seen: set[tuple[int, int]] = set()
    with contextlib.suppress(OSError):
        info = real_root.stat()
        seen.add((info.st_dev, info.st_ino))
        walk.folders.append((real_root, info.st_mtime_ns))
    root_is_real = real_root == root
    pending: list[tuple[Path, str, int]] = [(root, "", 0)]
    while pending and not walk.budget_cut:
        folder, rel, depth = pending.pop()
        children: list[tuple[Path, str, int]] = []
        for entry in _entries(folder, walk):
            name = entry.name
            if name.startswith("."):
                if is_temp_name(name):
                    walk.temp_files.append(Path(entry.path))
                continue
            path = Path(entry.path)
            if not _is_utf8(name):
                walk.undecodable.append(path)
                continue
            child_rel = f"{rel}/{name}" if rel else name
            if _is_folder(entry):
                if name in SKIPPED_FOLDERS or real_root / child_rel in skipped:
                    continue
                if depth >= walk.max_depth:
                    walk.too_deep.append(path)
                elif _first_sight(entry, path, seen, walk):
                    children.append((path, child_rel, depth + 1))
            elif keep(name):
                # Under a real root, a file's path is its real path: no second Path to build.
                real = path if root_is_real else real_root / child_rel
                found = _file(entry, path, child_rel, real, real_root, keep, walk)
                if found is not None:
                    walk.files.append(found)
        pending.extend(sorted(children, key=lambda child: child[1], reverse=True))
    walk.files.sort(key=lambda found: found.rel_path)
    return walk


def _entries(folder: Path, walk: Walk) -> Iterator[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as scan:
            listed: list[os.DirEntry[str]] = []
            for entry in scan:
                if walk.entries >= walk.max_entries:
                    walk.budget_cut = True
                    break
                walk.entries += 1
                listed.append(entry)
    except OSError as exc:
        if exc.errno not in _GONE:
            walk.unreadable.append(Unreadable(folder, exc.strerror or str(exc)))
        return
    yield from sorted(listed, key=lambda entry: entry.name)


def _is_folder(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _first_sight(
    entry: os.DirEntry[str], path: Path, seen: set[tuple[int, int]], walk: Walk
) -> bool:
    """Whether the folder is one the walk has not entered yet (a bind mount can show one folder
    twice: its device and inode tell), noting it and its time in ``walk.folders``; False too
    when it cannot be looked at."""
    try:
        info = entry.stat(follow_symlinks=False)
    except OSError:
        return False
    identity = (info.st_dev, info.st_ino)
    if identity in seen:
        return False
    seen.add(identity)
    walk.folders.append((path, info.st_mtime_ns))
    return True


def _file(
    entry: os.DirEntry[str],
    path: Path,
    rel: str,
    real: Path,
    real_root: Path,
    keep: Callable[[str], bool],
    walk: Walk,
) -> WalkedFile | None:
    is_link = False
    try:
        is_link = entry.is_symlink()
        if not is_link:
            info = entry.stat(follow_symlinks=False)
            if not stat.S_ISREG(info.st_mode):
                return None
            return WalkedFile(path, rel, real, info)
        target = Path(os.path.realpath(path, strict=True))
        info = target.stat()
    except FileNotFoundError:
        if is_link:
            walk.links_out.append(path)
        return None
    except (OSError, RuntimeError):
        # A link loop (ELOOP), or a file that cannot be looked at: nothing to list.
        walk.links_out.append(path)
        return None
    if not (stat.S_ISREG(info.st_mode) and keep(target.name) and _is_inside(target, real_root)):
        walk.links_out.append(path)
        return None
    return WalkedFile(path, rel, target, info)


def _is_inside(target: Path, real_root: Path) -> bool:
    if not target.is_relative_to(real_root):
        return False
    parts = target.relative_to(real_root).parts[:-1]
    return not any(part.startswith(".") or part in SKIPPED_FOLDERS for part in parts)


def _is_utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def walked_target(root: Path, path: Path, *, keep: Callable[[str], bool]) -> Path | None:
    """The real file a walk of ``root`` would list ``path`` as (``path`` itself, or the file
    its link names), or None when the walk would leave it out: a dotfile or a file in a hidden
    or skipped folder, one reached through a folder link, deeper than ``MAX_DEPTH``, not a
    regular file, a name ``keep`` refuses, or a link leading out of the root. ``root`` must
    be a real path (links resolved). For one changed path, so a watcher's change and a walk
    agree on what is in. Blocking (stat calls)."""
    if not path.is_relative_to(root) or path == root:
        return None
    parts = path.relative_to(root).parts
    if len(parts) - 1 > MAX_DEPTH or not keep(parts[-1]) or not _is_utf8(str(path)):
        return None
    if any(part.startswith(".") or part in SKIPPED_FOLDERS for part in parts[:-1]):
        return None
    if parts[-1].startswith("."):
        return None
    try:
        if resolve_leniently(path.parent) != path.parent:
            return None
        info = path.lstat()
        if stat.S_ISLNK(info.st_mode):
            target = Path(os.path.realpath(path, strict=True))
            info = target.stat()
        else:
            target = path
    except (OSError, RuntimeError):
        return None
    if not stat.S_ISREG(info.st_mode) or not keep(target.name):
        return None
    return target if _is_inside(target, root) else None


def is_walked_folder(root: Path, folder: Path) -> bool:
    """Whether a walk of ``root`` (a real path) enters ``folder``: not hidden, not skipped,
    not a link nor under one, at most ``MAX_DEPTH`` levels down. Blocking (one realpath)."""
    if folder == root:
        return True
    if not folder.is_relative_to(root):
        return False
    parts = folder.relative_to(root).parts
    if len(parts) > MAX_DEPTH or not _is_utf8(str(folder)):
        return False
    if any(part.startswith(".") or part in SKIPPED_FOLDERS for part in parts):
        return False
    return resolve_leniently(folder) == folder

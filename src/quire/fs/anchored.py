"""Reaching a name beneath an allowed folder through descriptors, one component at a time.

Every user's file is reached from the descriptor of the allowed folder that holds it: each
folder on the way is opened relative to the one before with ``O_NOFOLLOW | O_DIRECTORY``, so a
folder swapped for a symbolic link between a check and a use is never followed. A symbolic
link met on the way is read (``readlinkat``) and resolved here, explicitly: it may lead anywhere
inside an allowed folder (into another one too), never out. The walk ends at a :class:`Spot`:
the open descriptor of the folder that holds the final name, and that name, so the read, write,
rename or delete that follows works relative to the same folder the walk checked.

This is the portable walk (Linux, macOS, the BSDs): ``openat2(RESOLVE_BENEATH)`` would do the
descent in one call on Linux 5.6+, but it refuses absolute links that stay inside, and two
resolvers would mean two sets of rules; one walk costs one ``openat`` per folder.
"""

from __future__ import annotations

import errno
import fcntl
import os
import sys
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

from quire.core.errors import FileMissing, PathRefused
from quire.fs.oserror import storage_failed
from quire.fs.resolve import resolve_leniently

__all__ = ["MAX_LINKS", "Spot", "place", "reach"]

MAX_LINKS = 40
"""How many symbolic links one walk resolves before it calls the path a loop (as Linux does)."""

_FOLDER_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_LINK_ERRORS = (errno.ELOOP, errno.ENOTDIR, errno.EMLINK)


@dataclass
class Spot:
    """A name inside an open folder beneath an allowed folder.

    ``folder`` is the descriptor of the folder holding ``name`` (closed by :meth:`close` or by
    leaving a ``with`` block); ``parts`` are the real names from ``root`` down to the final
    one, with every link on the way resolved; ``links`` counts the links that were followed.
    The final name may name nothing yet (a file to create) and, when the walk was asked not to
    follow it, may be a symbolic link.
    """

    root: Path
    parts: tuple[str, ...]
    folder: int
    given: Path
    links: int = 0
    _closed: bool = field(default=False, repr=False)

    @property
    def name(self) -> str:
        """The final name, relative to :attr:`folder`."""
        return self.parts[-1]

    @property
    def path(self) -> Path:
        """The absolute path the walk reached (links resolved)."""
        return self.root.joinpath(*self.parts)

    def folder_identity(self) -> tuple[int, int]:
        """The (device, inode) of the folder holding the name."""
        info = os.fstat(self.folder)
        return info.st_dev, info.st_ino

    def lstat(self) -> os.stat_result | None:
        """The final name's own status (a link is not followed), or None when nothing is there."""
        try:
            return os.stat(self.name, dir_fd=self.folder, follow_symlinks=False)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise storage_failed(exc, doing="inspect", path=self.given) from None

    def close(self) -> None:
        """Close the folder's descriptor (again is a no-op)."""
        if not self._closed:
            self._closed = True
            os.close(self.folder)

    def __enter__(self) -> Spot:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


def reach(
    roots: tuple[Path, ...],
    path: Path,
    *,
    verb: str,
    follow_final: bool = True,
    make_folders: bool = False,
    outside: str = "Pass a path inside one.",
) -> Spot:
    """Walk from the allowed folder holding ``path`` down to its final name.

    ``roots`` are resolved allowed folders; ``path`` is absolute and is placed under the
    outermost root that holds it as written, else as its folder resolves (a link above the
    root, such as macOS's ``/tmp``). Each folder below the root is opened without following a
    link; a link met on the way (or at the end, with ``follow_final``) is resolved by reading
    it, and must stay inside an allowed folder. With ``make_folders``, missing folders on the
    way are created (never a ``..`` or a name through a link out).

    Raises PathRefused (outside every allowed folder, a link out of them, a loop of links, a
    file where a folder should be), FileMissing (a folder on the way is missing) or
    StorageFailed (the OS refused). A refusal for a path outside ends with ``outside``.
    """
    placed = place(roots, path)
    if placed is None:
        raise _outside(path, verb, outside)
    root, names = placed
    walk = _Walk(roots, path, verb, make_folders, outside)
    walk.start(root)
    try:
        walk.descend(deque(names), follow_final=follow_final)
        return walk.finish()
    except BaseException:
        walk.abandon()
        raise


class _Walk:
    """The state of one descent: the open folders from the root down, and the names left."""

    def __init__(
        self, roots: tuple[Path, ...], given: Path, verb: str, make: bool, outside: str
    ) -> None:
        self.roots = roots
        self.outside = outside
        self.given = given
        self.verb = verb
        self.make = make
        self.root = Path("/")
        self.folders: list[int] = []
        self.names: list[str] = []
        self.final = ""
        self.links = 0

    def start(self, root: Path) -> None:
        self.abandon()
        self.root = root
        try:
            self.folders = [os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)]
        except OSError as exc:
            raise storage_failed(exc, doing=self.verb, path=self.given) from None
        self.names = []

    def descend(self, pending: deque[str], *, follow_final: bool) -> None:
        while pending:
            name = pending.popleft()
            if name in ("", "."):
                continue
            if name == "..":
                self._climb()
                continue
            if not pending:
                if follow_final and self._follow(name, pending):
                    continue
                self.final = name
                return
            if not self._enter(name) and not self._follow(name, pending):
                raise self._not_a_folder(name)
        raise PathRefused(
            f"Refusing to {self.verb} '{self.given}': it names a folder, not a file. Pass the "
            "path of a file inside it."
        )

    def finish(self) -> Spot:
        folder = self.folders.pop()
        self.abandon()
        spot = Spot(self.root, (*self.names, self.final), folder, self.given, self.links)
        try:
            _check_where(spot, self.verb)
        except BaseException:
            spot.close()
            raise
        return spot

    def abandon(self) -> None:
        for folder in self.folders:
            os.close(folder)
        self.folders = []

    def _climb(self) -> None:
        if not self.names:
            raise _outside(
                self.given, self.verb, self.outside, why="its `..` climbs out of the folder"
            )
        os.close(self.folders.pop())
        self.names.pop()

    def _enter(self, name: str) -> bool:
        """Open the folder ``name``; False when it is a link (or not a folder) to look at."""
        try:
            folder = os.open(name, _FOLDER_FLAGS, dir_fd=self.folders[-1])
        except FileNotFoundError:
            if not self.make:
                raise self._missing_folder(name) from None
            self._make(name)
            return True
        except OSError as exc:
            if exc.errno in _LINK_ERRORS:
                return False
            raise storage_failed(exc, doing=self.verb, path=self.given) from None
        self.folders.append(folder)
        self.names.append(name)
        return True

    def _make(self, name: str) -> None:
        try:
            os.mkdir(name, 0o755, dir_fd=self.folders[-1])
        except FileExistsError:
            pass
        except OSError as exc:
            raise storage_failed(exc, doing="create a folder for", path=self.given) from None
        if not self._enter(name):
            raise self._not_a_folder(name)

    def _follow(self, name: str, pending: deque[str]) -> bool:
        """Resolve ``name`` when it is a link: its target's names go first in ``pending``."""
        try:
            target = os.readlink(name, dir_fd=self.folders[-1])
        except OSError as exc:
            if exc.errno in (errno.EINVAL, errno.ENOENT):
                return False  # not a link (or gone): the caller looks at it as it is
            raise storage_failed(exc, doing=self.verb, path=self.given) from None
        self.links += 1
        if self.links > MAX_LINKS:
            raise PathRefused(
                f"Refusing to {self.verb} '{self.given}': it is a loop of symbolic links (more "
                f"than {MAX_LINKS} on the way). Fix the links, or pass the path of the file "
                "itself."
            )
        if not target:
            raise self._not_a_folder(name)
        if target.startswith("/"):
            placed = place(self.roots, Path(target))
            if placed is None:
                why = f"'{name}' is a symbolic link to '{target}'"
                raise _outside(self.given, self.verb, self.outside, why=why)
            root, names = placed
            self.start(root)
            pending.extendleft(reversed(names))
        else:
            pending.extendleft(reversed(target.split("/")))
        return True

    def _missing_folder(self, name: str) -> FileMissing:
        missing = self.root.joinpath(*self.names, name)
        return FileMissing(
            f"Cannot {self.verb} '{self.given}': the folder '{missing}' does not exist. "
            "Check the path, or create the folder first."
        )

    def _not_a_folder(self, name: str) -> FileMissing | PathRefused:
        where = self.root.joinpath(*self.names, name)
        if self.make:
            return PathRefused(
                f"Cannot {self.verb} '{self.given}': '{where}' is a file, not a folder, so the "
                "folder cannot be made there. Rename or remove that file, or pick another path."
            )
        return FileMissing(
            f"Cannot {self.verb} '{self.given}': '{where}' is not a folder, so the file does "
            "not exist. Check the path."
        )


def place(roots: tuple[Path, ...], path: Path) -> tuple[Path, tuple[str, ...]] | None:
    """The outermost root holding ``path`` as written, else as its folder resolves, and the
    names below it; None when no root holds it (nothing is opened)."""
    placed = _place_lexically(roots, path)
    if placed is not None:
        return placed
    folder = resolve_leniently(path.parent)
    return _place_lexically(roots, folder / path.name)


def _place_lexically(roots: tuple[Path, ...], path: Path) -> tuple[Path, tuple[str, ...]] | None:
    parts = path.parts
    holding = [root for root in roots if parts[: len(root.parts)] == root.parts]
    if not holding:
        return None
    root = min(holding, key=lambda folder: len(folder.parts))
    return root, parts[len(root.parts) :]


def _check_where(spot: Spot, verb: str) -> None:
    """Refuse a folder descriptor that is no longer where the walk says (moved meanwhile)."""
    where = _descriptor_path(spot.folder)
    if where is None:
        return
    expected = str(spot.path.parent)
    if where != expected:
        raise PathRefused(
            f"Refusing to {verb} '{spot.given}': its folder moved while it was being opened "
            f"(it is now '{where}'). Check what moved it, then try again."
        )


def _descriptor_path(folder: int) -> str | None:
    """Where the kernel says an open folder is now, where it can say (Linux, macOS)."""
    if sys.platform.startswith("linux"):
        try:
            return str(Path(f"/proc/self/fd/{folder}").readlink())
        except OSError:
            return None
    get_path = getattr(fcntl, "F_GETPATH", None)
    if get_path is not None:
        try:
            raw = fcntl.fcntl(folder, get_path, b"\0" * 1024)
        except OSError:
            return None
        return os.fsdecode(raw.rstrip(b"\0"))
    return None


def _outside(path: Path, verb: str, outside: str, *, why: str = "") -> PathRefused:
    reason = f" ({why})" if why else ""
    return PathRefused(
        f"Refusing to {verb} '{path}': it is not inside an allowed folder{reason}. {outside}"
    )

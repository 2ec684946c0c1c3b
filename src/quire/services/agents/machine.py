"""The machine an agent is connected on: its home folder, environment and ``quire`` program.

Owns finding the ``quire`` executable and judging whether a configured program is this Quire,
another program that exists, or one that is gone. Reads nothing from ``os.environ``, the home
folder or the command line itself: a composition root reads them once (``MachineFacts``) and
passes them in.
"""

from __future__ import annotations

import os
import shlex
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from quire.core.errors import FileMissing

Program = Literal["ours", "other", "stale"]
"""What a configured program is: this Quire, another program that exists, or one that is gone."""

QUIRE_NAME = "quire"


@dataclass(frozen=True)
class Machine:
    """Where agents are looked for and configured."""

    home: Path
    """The user's home folder: agents keep their settings under it."""
    environ: Mapping[str, str]
    """The environment agent commands run with; its PATH is where programs are looked for."""
    quire: Path
    """The absolute path of the ``quire`` program agents should run."""

    @property
    def search_path(self) -> str:
        """The PATH programs are looked up on (empty when the environment has none)."""
        return self.environ.get("PATH", "")

    def which(self, name: str) -> str | None:
        """The absolute path of program ``name`` on this machine's PATH, or None."""
        found = shutil.which(name, path=self.search_path)
        return None if found is None else str(Path(found).absolute())

    def shown(self, path: Path) -> str:
        """``path`` as messages show it: ``~/…`` inside the home folder."""
        try:
            return "~/" + path.relative_to(self.home).as_posix()
        except ValueError:
            return str(path)

    def judge(self, program: str) -> Program:
        """Whether ``program`` (a path or a name on PATH) is this Quire, another, or gone."""
        found = self.locate(program)
        if found is None:
            return "stale"
        if found == self.quire or _same_file(found, self.quire):
            return "ours"
        return "other"

    def locate(self, program: str) -> Path | None:
        """The existing executable file ``program`` names, or None when there is none."""
        if program == "~" or program.startswith("~/"):
            candidate: Path | None = self.home / program[2:]
        elif "/" in program:
            candidate = Path(program) if Path(program).is_absolute() else self.home / program
        else:
            found = self.which(program)
            candidate = None if found is None else Path(found)
        if candidate is None or not candidate.is_file():
            return None
        return candidate


def quire_command(quire: Path, *args: str) -> str:
    """The shell command running ``quire`` with ``args``, every part quoted for a POSIX shell."""
    return shlex.join([str(quire), *args])


def find_quire(argv0: str, executable: str, which: Callable[[str], str | None], cwd: Path) -> Path:
    """The absolute path of the ``quire`` program of this install.

    The program that is running (``argv0``) when it is ``quire``; else the ``quire`` on PATH
    when it is this install's; else the one next to this Python (``executable``); else the one
    on PATH. Symlinks are kept: a link on PATH outlives the install folder it points into.
    """
    if Path(argv0).name == QUIRE_NAME:
        running = Path(argv0) if Path(argv0).is_absolute() else cwd / argv0
        if running.is_file():
            return Path(os.path.normpath(running))
    sibling = Path(executable).parent / QUIRE_NAME
    on_path = which(QUIRE_NAME)
    if on_path is not None and (not sibling.is_file() or _same_file(Path(on_path), sibling)):
        return Path(on_path).absolute()
    if sibling.is_file():
        return sibling.absolute()
    raise FileMissing(
        "Cannot find the `quire` program to register: it is not on PATH nor next to "
        f"{executable}. Install Quire so that `quire --version` works in a terminal, then try "
        "again."
    )


def _same_file(first: Path, second: Path) -> bool:
    try:
        return first.samefile(second)
    except OSError:
        return False


def machine_for(
    environ: Mapping[str, str], home: Path, argv0: str, executable: str, cwd: Path
) -> Machine:
    """The machine described by a process's environment, home folder and command line, with
    the ``quire`` program found as find_quire finds it (on the environment's PATH)."""
    path = environ.get("PATH", "")
    quire = find_quire(argv0, executable, lambda name: shutil.which(name, path=path), cwd)
    return Machine(home, dict(environ), quire)


@dataclass(frozen=True)
class MachineFacts:
    """What a process knows of its machine, read once by a composition root (``quire serve``
    keeps them on its services; tests pass a temporary machine's)."""

    environ: Mapping[str, str]
    """The environment agent commands run with; its PATH is where programs are looked for."""
    home: Path
    """The user's home folder."""
    argv0: str
    """How the running program was started (``sys.argv[0]``)."""
    executable: str
    """The Python running Quire (``sys.executable``)."""
    cwd: Path
    """The working folder ``argv0`` is relative to."""

    def machine(self) -> Machine:
        """The machine these facts describe, with ``quire`` found now as find_quire finds it.

        Raises FileMissing when there is no ``quire`` program to register.
        """
        return machine_for(self.environ, self.home, self.argv0, self.executable, self.cwd)

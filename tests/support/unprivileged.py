"""Run a piece of a test as an unprivileged user, so permission bits mean what they say.

Root reads any folder whatever its mode, so a test of an unreadable folder forks, drops to
``nobody`` and runs the work there when the tests run as root; otherwise it runs in place.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

NOBODY = 65534
T = TypeVar("T")


def unprivileged(work: Callable[[], T]) -> T:
    """``work()``, run as ``nobody`` in a child process when this process is root."""
    if os.geteuid() != 0:
        return work()
    read_end, write_end = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child process
        status = 0
        try:
            os.close(read_end)
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            with os.fdopen(write_end, "wb") as out:
                pickle.dump(work(), out)
        except BaseException:
            status = 1
        os._exit(status)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as answer:
        data = answer.read()
    _, status = os.waitpid(child, 0)
    assert status == 0, "the unprivileged work failed"
    result: T = pickle.loads(data)
    return result


@contextlib.contextmanager
def shared_folder() -> Iterator[Path]:
    """A fresh folder ``nobody`` may walk (pytest's tmp_path is root's own), removed after."""
    folder = Path(tempfile.mkdtemp(prefix="quire-test-")).resolve()
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        for path in folder.rglob("*"):
            if path.is_dir() and not path.is_symlink():
                path.chmod(0o755)
        shutil.rmtree(folder)

"""A temporary machine: a home folder, a PATH folder for agent shims, and this Quire."""

from __future__ import annotations

from pathlib import Path

import pytest

from quire.services.agents.machine import Machine
from tests.support.agent_shims import environ_with_path, make_program


@pytest.fixture
def home(tmp_path: Path) -> Path:
    folder = tmp_path / "home"
    folder.mkdir()
    return folder


@pytest.fixture
def bin_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "bin"
    folder.mkdir()
    return folder


@pytest.fixture
def quire(tmp_path: Path) -> Path:
    return make_program(tmp_path / "Quire Install" / "bin" / "quire")


@pytest.fixture
def machine(home: Path, bin_dir: Path, quire: Path) -> Machine:
    return Machine(home, environ_with_path(bin_dir), quire)

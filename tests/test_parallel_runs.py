"""`scripts/test` spreads the suite over pytest-xdist workers unless told otherwise, and the
suite's own rules (warnings are errors, markers are declared) hold inside the workers."""

from __future__ import annotations

import os
import re
import subprocess
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.support.workers import (
    WORKERS_ENV,
    _cgroup_limit,
    heavy_files_first,
    usable_cpus,
    worker_arguments,
)

ROOT = Path(__file__).resolve().parent.parent
DIST = ["--dist=loadfile", "--no-loadscope-reorder"]
PARALLEL = ["--numprocesses=4", *DIST]


@pytest.mark.parametrize(
    ("arguments", "addopts", "expected"),
    [
        ([], "", PARALLEL),
        (["-q", "tests/db", "-k", "not slow"], "", PARALLEL),
        (["-ra", "--durations=30", "-x"], "", PARALLEL),
        (["-rs"], "", PARALLEL),  # -r's value, not -s
        (["-k", "-s"], "", PARALLEL),  # -k's value, not -s
        (["-m", "s"], "", PARALLEL),
        (["-n", "0"], "", []),
        (["-n0"], "", []),
        (["-n", "auto"], "", []),
        (["-qn3"], "", []),
        (["--numprocesses=2"], "", []),
        (["--numprocesses", "2"], "", []),
        (["--dist", "loadscope"], "", []),
        (["-p", "no:xdist"], "", []),
        (["-pno:xdist"], "", []),
        (["-p", "no:cacheprovider"], "", PARALLEL),
        (["-p", "no:cacheprovider", "-p", "no:xdist"], "", []),
        (["-s"], "", []),
        (["-vs", "tests/web"], "", []),
        (["--capture=no"], "", []),
        (["--capture", "no"], "", []),
        (["--capture=fd"], "", PARALLEL),
        (["--pdb"], "", []),
        (["--trace"], "", []),
        (["--co"], "", []),
        (["--collect-only", "-q"], "", []),
        ([], "-n 0", []),
        ([], "-p no:xdist", []),
        ([], "-q -s", []),
        ([], "-q --durations=5", PARALLEL),
        (["--", "-n", "0"], "", PARALLEL),
    ],
)
def test_workers_are_added_only_when_the_caller_left_the_choice_open(
    arguments: list[str], addopts: str, expected: list[str]
) -> None:
    added, reason = worker_arguments(arguments, {"PYTEST_ADDOPTS": addopts}, cpus=4)
    assert added == expected, reason


@pytest.mark.parametrize(
    ("cpus", "setting", "expected"),
    [
        (1, "", []),
        (2, "", ["--numprocesses=2", *DIST]),
        (64, "", ["--numprocesses=8", *DIST]),
        (1, "3", ["--numprocesses=3", *DIST]),
        (16, " 12 ", ["--numprocesses=12", *DIST]),
        (4, "0", []),
        (4, "1", []),
    ],
)
def test_the_count_is_the_usable_cpus_capped_or_the_setting(
    cpus: int, setting: str, expected: list[str]
) -> None:
    added, reason = worker_arguments([], {WORKERS_ENV: setting}, cpus=cpus)
    assert added == expected
    assert reason


@pytest.mark.parametrize("setting", ["x", "-1", "2.5", "two", "1e3", "٣"])
def test_a_setting_that_is_not_a_count_is_refused_with_what_to_set(setting: str) -> None:
    with pytest.raises(ValueError, match=f"{WORKERS_ENV}=.* set it to 0 \\(serial\\)"):
        worker_arguments([], {WORKERS_ENV: setting}, cpus=2)


def test_addopts_that_cannot_be_split_are_refused_with_what_to_fix() -> None:
    with pytest.raises(ValueError, match=r"PYTEST_ADDOPTS cannot be read .* fix its quoting"):
        worker_arguments([], {"PYTEST_ADDOPTS": '-k "unclosed'}, cpus=2)


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({"cpu.max": "max 100000\n"}, None),
        ({"cpu.max": "200000 100000\n"}, 2),
        ({"cpu.max": "150000 100000\n"}, 1),
        ({"cpu.max": "50000 100000\n"}, 1),
        ({"cpu.max": "garbage"}, None),
        ({"cpu.max": "0 100000"}, None),
        ({"cpu.max": "100000 0"}, None),
        ({"cpu/cpu.cfs_quota_us": "-1\n", "cpu/cpu.cfs_period_us": "100000\n"}, None),
        ({"cpu/cpu.cfs_quota_us": "300000\n", "cpu/cpu.cfs_period_us": "100000\n"}, 3),
        ({"cpu/cpu.cfs_quota_us": "300000\n"}, None),
        ({}, None),
    ],
)
def test_a_cgroup_quota_narrows_the_cpus(
    tmp_path: Path, files: dict[str, str], expected: int | None
) -> None:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    assert _cgroup_limit(tmp_path) == expected
    assert 1 <= usable_cpus(tmp_path) <= len(os.sched_getaffinity(0))


@dataclass(frozen=True)
class _Item:
    nodeid: str
    fixturenames: list[str] = field(default_factory=list)


def test_browser_files_go_first_then_the_fullest_each_file_whole_and_in_order() -> None:
    items = [
        _Item("tests/a.py::one"),
        _Item("tests/b.py::one"),
        _Item("tests/b.py::two[x]"),
        _Item("tests/b.py::two[y]"),
        _Item("tests/ui/c.py::plain"),
        _Item("tests/ui/c.py::drawn", ["tmp_path", "page", "browser"]),
        _Item("tests/d.py::one"),
        _Item("tests/d.py::two"),
        _Item("tests/ui/e.py::x", ["browser"]),
    ]
    ordered = [item.nodeid for item in heavy_files_first(items)]
    assert ordered == [
        "tests/ui/c.py::plain",
        "tests/ui/c.py::drawn",
        "tests/ui/e.py::x",
        "tests/b.py::one",
        "tests/b.py::two[x]",
        "tests/b.py::two[y]",
        "tests/d.py::one",
        "tests/d.py::two",
        "tests/a.py::one",
    ]
    assert heavy_files_first([]) == []


def _project(tmp_path: Path) -> Path:
    """A throwaway project with the suite's pytest settings: four files, each a rule's test."""
    with (ROOT / "pyproject.toml").open("rb") as file:
        options = tomllib.load(file)["tool"]["pytest"]["ini_options"]
    lines = ["[tool.pytest.ini_options]"]
    lines += [f"{key} = {value!r}".replace("True", "true") for key, value in options.items()]
    (tmp_path / "pyproject.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (tmp_path / "test_passes.py").write_text("def test_passes():\n    pass\n", encoding="utf-8")
    (tmp_path / "test_warns.py").write_text(
        "import warnings\n\ndef test_warns():\n    warnings.warn('left over', UserWarning)\n",
        encoding="utf-8",
    )
    (tmp_path / "test_marks.py").write_text(
        "import pytest\n\n@pytest.mark.not_declared\ndef test_marked():\n    pass\n",
        encoding="utf-8",
    )
    (tmp_path / "test_slow.py").write_text(
        "import pytest\n\n@pytest.mark.slow\ndef test_declared():\n    pass\n", encoding="utf-8"
    )
    return tmp_path


def _run_script(project: Path, *arguments: str, workers: str = "2") -> tuple[int, str]:
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "QUIRE_TEST_"))}
    ran = subprocess.run(
        [str(ROOT / "scripts" / "test"), "-c", str(project / "pyproject.toml"), *arguments],
        cwd=project,
        env={**keep, WORKERS_ENV: workers},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    return ran.returncode, ran.stdout + ran.stderr


@pytest.mark.slow
def test_the_script_runs_workers_and_the_suite_rules_hold_in_them(tmp_path: Path) -> None:
    project = _project(tmp_path)
    code, output = _run_script(project, "--rootdir", str(project), str(project))
    assert code == 1, output
    assert "scripts/test: 2 workers (QUIRE_TEST_WORKERS)" in output
    assert re.search(r"created: 2/2 workers", output), output
    # filterwarnings = error and --strict-markers still fail their tests inside the workers.
    assert re.search(r"_ test_warns _+\n\[gw[01]\] .*\n(.*\n)*E +UserWarning: left over", output)
    assert "'not_declared' not found in `markers` configuration option" in output
    # Each worker collects every file, so each reports the marker error.
    assert re.search(r"\b1 failed, 2 passed, [12] errors?\b", output), output


@pytest.mark.slow
def test_the_script_runs_serially_without_the_plugin_when_asked(tmp_path: Path) -> None:
    # The other ways to ask (-n 0, -s, PYTEST_ADDOPTS …) are the table above; this one must
    # also keep -n off a command line whose pytest then has no such option.
    project = _project(tmp_path)
    arguments = ["-p", "no:xdist", "--rootdir", str(project), str(project / "test_passes.py")]
    code, output = _run_script(project, *arguments)
    assert code == 0, output
    assert "created:" not in output
    assert re.search(r"\b1 passed\b", output), output

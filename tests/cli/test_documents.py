"""The analysis commands from a shell: output, --json, and errors as messages with exit 1."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from quire.cli.main import cli

PLAN = """---
title: Plan
---
# Plan

Ship **it** with [[Notes#Goals]].

- [x] write
- [ ] review
"""


@pytest.fixture
def plan(tmp_path: Path) -> Path:
    path = tmp_path / "plan.md"
    path.write_text(PLAN, encoding="utf-8")
    return path


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_text_prints_the_plain_text(plan: Path) -> None:
    code, out, _ = run("text", str(plan))
    assert code == 0
    assert out == "Plan\n\nShip it with Notes#Goals.\n\nwrite\nreview\n"


def test_text_json_carries_counts_and_the_absolute_path(plan: Path) -> None:
    code, out, _ = run("text", "--json", str(plan))
    assert code == 0
    data = json.loads(out)
    assert data["path"] == str(plan.resolve())
    assert data["word_count"] == 7
    assert data["char_count"] == len(data["text"])


def test_meta_json_lists_front_matter_headings_and_links(plan: Path) -> None:
    code, out, _ = run("meta", "--json", str(plan))
    assert code == 0
    data = json.loads(out)
    assert data["frontmatter"] == {"title": "Plan"}
    assert data["headings"] == [{"level": 1, "text": "Plan"}]
    assert data["wikilinks"] == ["Notes"]
    assert data["wikilink_headings"] == [{"target": "Notes", "heading": "Goals"}]


def test_meta_prints_an_outline_for_people(plan: Path) -> None:
    code, out, _ = run("meta", str(plan))
    assert code == 0
    assert "  # Plan" in out
    assert "wikilinks: Notes" in out


def test_tasks_lists_boxes_with_lines_and_a_tally(plan: Path) -> None:
    code, out, _ = run("tasks", str(plan))
    assert code == 0
    assert out == "[x] 8: write\n[ ] 9: review\n1 of 2 done\n"


def test_diff_prints_a_unified_diff_with_absolute_labels(tmp_path: Path, plan: Path) -> None:
    other = tmp_path / "other.md"
    other.write_text(PLAN.replace("review", "approve"), encoding="utf-8")
    code, out, _ = run("diff", "--context", "0", str(plan), str(other))
    assert code == 0
    assert out.splitlines() == [
        f"--- {plan.resolve()}",
        f"+++ {other.resolve()}",
        "@@ -9 +9 @@",
        "-- [ ] review",
        "+- [ ] approve",
    ]


def test_diff_of_identical_files_prints_nothing(plan: Path) -> None:
    assert run("diff", str(plan), str(plan)) == (0, "", "")


def test_diff_refuses_a_context_outside_its_range(plan: Path) -> None:
    code, _, err = run("diff", "--context", "10001", str(plan), str(plan))
    assert code == 2
    assert "10001" in err


def test_render_prints_the_html_fragment(plan: Path) -> None:
    code, out, _ = run("render", str(plan))
    assert code == 0
    assert out.startswith('<h1 id="plan">Plan</h1>\n')
    assert 'data-line="8"' in out


@pytest.mark.parametrize(
    ("name", "data", "fragment"),
    [
        ("notes.txt", b"x", "only Markdown documents"),
        (".secret.md", b"x", "only Markdown documents"),
        ("latin.md", "caf\u00e9".encode("latin-1"), "not valid UTF-8"),
        ("missing.md", None, "does not exist"),
    ],
)
@pytest.mark.parametrize("command", ["text", "meta", "tasks", "render"])
def test_a_file_that_breaks_the_read_rules_is_an_error_on_stderr(
    tmp_path: Path, command: str, name: str, data: bytes | None, fragment: str
) -> None:
    path = tmp_path / name
    if data is not None:
        path.write_bytes(data)
    code, out, err = run(command, str(path))
    assert code == 1
    assert out == ""
    assert err.startswith("quire: ")
    assert fragment in err


def test_an_empty_path_is_refused_naming_the_argument() -> None:
    code, _, err = run("text", "  ")
    assert code == 1
    assert "`FILE` must not be empty" in err


def test_the_installed_command_runs_as_a_program(plan: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "quire.cli.main", "tasks", "--json", str(plan)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert [task["checked"] for task in json.loads(result.stdout)["tasks"]] == [True, False]

"""``quire export`` in process: one file and a folder, JSON, the output rules as exit codes,
and the allowed folders (the working directory, the input's folder and --allow)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from quire.cli.export import EXIT_ENGINE, EXIT_INPUT, EXIT_OUTPUT, EXIT_USAGE, error_kind
from quire.cli.main import cli
from quire.core.errors import EngineMissing, FileMissing, PathRefused
from tests.support.export_outputs import REFUSED, Case, lay_out, untouched

PLAN = "# Plan\n\nStep one.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"

needs_browser = pytest.mark.skipif(
    shutil.which("chromium") is None,
    reason="HTML exports draw diagrams and math in Chromium: apt-get install chromium",
)


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "work"
    folder.mkdir()
    (folder / "plan.md").write_text(PLAN, encoding="utf-8")
    monkeypatch.chdir(folder)
    monkeypatch.setenv("QUIRE_HOME", str(tmp_path / "state"))
    return folder


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["export", *args])
    return result.exit_code, result.stdout, result.stderr


@needs_browser
def test_a_file_exports_beside_itself_and_json_is_its_result(work: Path) -> None:
    code, out, err = run("plan.md", "--format", "html", "--json")
    assert (code, err) == (0, "")
    result = json.loads(out)
    written = work / "plan.html"
    assert result["path"] == str(written)
    assert result["format"] == "html"
    assert result["bytes"] == written.stat().st_size
    assert result["pages"] is None
    assert result["diagram_errors"] == []
    assert "Step one." in written.read_text(encoding="utf-8")


@needs_browser
def test_a_folder_exports_every_markdown_file_with_json_and_no_progress_bar(work: Path) -> None:
    (work / "notes").mkdir()
    (work / "notes" / "b.md").write_text("# B\n", encoding="utf-8")
    (work / ".hidden.md").write_text("# Hidden\n", encoding="utf-8")
    (work / "notes.txt").write_text("not Markdown\n", encoding="utf-8")
    code, out, err = run(".", "--format", "html", "--json")
    assert (code, err) == (0, "")
    report = json.loads(out)
    assert report["ok"] is True
    assert [item["path"] for item in report["exported"]] == [
        str(work / "notes" / "b.html"),
        str(work / "plan.html"),
    ]
    assert report["failed"] == [] and report["notes"] == []
    assert not (work / ".hidden.html").exists()
    again_code, again_out, _ = run(".", "--format", "html", "--json")
    again = json.loads(again_out)
    assert again_code == EXIT_OUTPUT
    assert again["ok"] is False
    assert [item["kind"] for item in again["failed"]] == ["output", "output"]
    assert all("already exists" in item["error"] for item in again["failed"])


@needs_browser
def test_a_folder_with_output_mirrors_its_tree_there(work: Path, tmp_path: Path) -> None:
    (work / "notes").mkdir()
    (work / "notes" / "b.md").write_text("# B\n", encoding="utf-8")
    out_dir = work / "out"
    out_dir.mkdir()
    code, _, err = run(".", "--format", "html", "--output", "out")
    assert (code, err) == (0, "")
    assert (out_dir / "plan.html").is_file()
    assert (out_dir / "notes" / "b.html").is_file()


@pytest.mark.parametrize("case", REFUSED, ids=[case.id for case in REFUSED])
def test_every_refused_output_exits_3_and_leaves_the_files_alone(work: Path, case: Case) -> None:
    paths = lay_out(work, "html")
    force = [] if case.id == "existing" else ["--force"]
    code, out, err = run("plan.md", "--format", "html", "--output", str(paths[case.id]), *force)
    assert code == EXIT_OUTPUT, err
    assert case.says in err
    assert out == ""
    assert untouched(work, "html")


@pytest.mark.parametrize("exists", [True, False])
def test_an_output_outside_the_allowed_folders_is_refused_alike_existing_or_not(
    work: Path, tmp_path: Path, exists: bool
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    target = outside / "plan.html"
    if exists:
        target.write_bytes(b"keep")
    code, _, err = run("plan.md", "--format", "html", "--output", str(target), "--force")
    assert code == EXIT_OUTPUT
    assert err == (
        f"quire: Refusing to write the export to '{target}': it is not inside an allowed "
        f"folder. The allowed folders are '{work}'; pass a path inside one of them.\n"
    )
    assert target.exists() is exists


@needs_browser
def test_allow_widens_the_allowed_folders(work: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    code, _, err = run(
        "plan.md", "--format", "html", "--output", str(outside / "p.html"), "--allow", str(outside)
    )
    assert (code, err) == (0, "")
    assert (outside / "p.html").is_file()


@pytest.mark.parametrize(
    ("name", "content", "says"),
    [
        ("notes.txt", b"x", "Markdown"),
        (".secret.md", b"# x\n", "Markdown"),
        ("missing.md", None, "does not exist"),
    ],
)
def test_a_refused_input_exits_1(work: Path, name: str, content: bytes | None, says: str) -> None:
    if content is not None:
        (work / name).write_bytes(content)
    code, _, err = run(name, "--format", "pdf")
    assert code == EXIT_INPUT
    assert says in err


def test_an_input_outside_the_allowed_folders_exits_1(work: Path, tmp_path: Path) -> None:
    code, _, err = run(str(tmp_path / "elsewhere" / "x.md"), "--format", "pdf")
    assert code == EXIT_INPUT
    assert "not inside an allowed folder" in err


def test_a_wrong_option_is_a_usage_error(work: Path) -> None:
    code, _, err = run("plan.md", "--format", "md")
    assert code == EXIT_USAGE
    assert "'md' is not one of" in err


def test_each_kind_of_error_has_its_exit_code() -> None:
    assert error_kind(EngineMissing("x"), input_checked=True) == "engine"
    assert error_kind(PathRefused("x"), input_checked=False) == "input"
    assert error_kind(PathRefused("x"), input_checked=True) == "output"
    assert error_kind(FileMissing("x"), input_checked=False) == "input"
    assert error_kind(FileMissing("x"), input_checked=True) == "output"
    assert EXIT_ENGINE == 4

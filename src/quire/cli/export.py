"""``quire export FILE|DIR``: export Markdown as PDF, HTML, DOCX or EPUB, in process.

Runs a standalone export service (no server needed) confined to the allowed folders: the
working directory, the input's folder and each ``--allow DIR``. A folder exports every Markdown
document the one walker (``quire.fs.walk``) finds in it, with a progress bar on a terminal.
The rendering and the output rules are the export service's; this module parses, confines
the input, picks the output names and maps each kind of error to its exit code.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import anyio
import click

from quire.api.exports import (
    EXPORT_FORMATS,
    EXPORT_THEMES,
    PAPERS,
    ExportFormat,
    ExportJob,
    ExportResult,
    ExportTheme,
    Paper,
)
from quire.cli.output import echo_json, to_jsonable
from quire.core.errors import (
    EngineMissing,
    ExportFailed,
    FileMissing,
    FileTooLarge,
    InvalidArgument,
    NotUtf8,
    PathRefused,
    QuireError,
)
from quire.core.paths import expand_path
from quire.core.state import state_folder
from quire.fs.documents import find_file
from quire.fs.folders import AllowedFolders
from quire.fs.sandbox import is_document_name
from quire.fs.walk import walk_tree
from quire.settings.model import export_browser

if TYPE_CHECKING:
    from quire.services.export import ExportService

EXIT_OK = 0
EXIT_INPUT = 1
EXIT_USAGE = 2
EXIT_OUTPUT = 3
EXIT_ENGINE = 4
EXIT_FAILED = 5

EXIT_CODES = f"""\b
With --json a FILE prints its result (path, format, bytes, pages, engine,
warnings, diagram_errors) and a DIR prints {{ok, exported, failed, notes}}.
A DIR shows a progress bar on stderr when stderr is a terminal.

\b
Exit codes:
  {EXIT_OK}  every file was exported
  {EXIT_INPUT}  an input was refused (missing, not Markdown, a dotfile, outside the allowed
     folders, too large, not UTF-8)
  {EXIT_USAGE}  the command line is wrong (an unknown option or value)
  {EXIT_OUTPUT}  an output was refused (wrong extension, a symlink or a folder, outside the
     allowed folders, or it exists and --force was not given)
  {EXIT_ENGINE}  no export engine for the format is installed (`quire doctor` says which)
  {EXIT_FAILED}  the engine ran and failed, or the disk refused the write
A folder exports every file it can and exits with the code of the first file that failed."""

HOW_TO_ALLOW = "Run quire export from a folder that holds it, or pass --allow DIR."

Kind = Literal["input", "usage", "output", "engine", "failed"]
_CODES: dict[Kind, int] = {
    "input": EXIT_INPUT,
    "usage": EXIT_USAGE,
    "output": EXIT_OUTPUT,
    "engine": EXIT_ENGINE,
    "failed": EXIT_FAILED,
}


@dataclass(frozen=True)
class Job:
    """One file to export, where its export goes (None: beside it), and whether the folder
    to write into is made first (a folder export mirrored under ``--output``)."""

    source: Path
    output: Path | None
    make_folder: bool = False


@dataclass(frozen=True)
class Failure:
    """A file that was not exported: which, what kind of error, and its message."""

    path: Path
    kind: Kind
    message: str


def error_kind(error: QuireError, *, input_checked: bool) -> Kind:
    """The kind of ``error``: a missing or refused path once the input passed its checks is
    the output's."""
    match error:
        case EngineMissing():
            return "engine"
        case ExportFailed():
            return "failed"
        case NotUtf8() | FileTooLarge():
            return "input"
        case PathRefused() | FileMissing():
            return "output" if input_checked else "input"
        case InvalidArgument():
            return "usage"
        case _:
            return "failed"


def allowed_folders(cwd: Path, source: Path, extra: list[Path]) -> AllowedFolders:
    """The working directory, the input's folder (the folder itself for a folder) and
    ``extra``; a folder that cannot be allowed is left out (its paths are then refused)."""
    folders: list[Path] = []
    base = source if source.is_dir() else source.parent
    for folder in (cwd, base, *extra):
        try:
            folders.append(AllowedFolders([folder]).folders[0])
        except QuireError:
            continue
    return AllowedFolders(folders, how_to_add=HOW_TO_ALLOW)


def folder_jobs(
    root: Path, output: Path | None, format: ExportFormat
) -> tuple[list[Job], list[str]]:
    """Every Markdown document under ``root`` (by the one walker) and its output: beside it,
    or at the same relative path under ``output``; and notes on what the walk left out."""
    walk = walk_tree(root, keep=is_document_name)
    jobs = []
    for found in walk.files:
        target = None
        if output is not None:
            target = (output / found.rel_path).with_suffix("." + format)
        jobs.append(Job(found.path, target, make_folder=target is not None))
    notes = [f"could not list {item.path}: {item.reason}" for item in walk.unreadable]
    if walk.truncated:
        notes.append("the folder is too large or too deep: some files were not exported")
    return jobs, notes


async def run_jobs(
    service: StandaloneExport,
    jobs: list[Job],
    folders: AllowedFolders,
    asked: Callable[[Job], ExportJob],
    advance: Callable[[], None],
) -> tuple[list[ExportResult], list[Failure]]:
    """Export each job in turn; a failure is recorded and the next file goes on."""
    results: list[ExportResult] = []
    failures: list[Failure] = []
    for job in jobs:
        checked = False
        try:
            await anyio.to_thread.run_sync(_check_input, job.source, folders)
            checked = True
            if job.output is not None and job.make_folder:
                await anyio.to_thread.run_sync(_make_parent, job.output, folders)
            results.append(await service.export(asked(job), allowed=list(folders.folders)))
        except QuireError as error:
            failures.append(
                Failure(job.source, error_kind(error, input_checked=checked), str(error))
            )
        advance()
    return results, failures


def _check_input(source: Path, folders: AllowedFolders) -> None:
    find_file(folders, source, verb="export")


def _make_parent(output: Path, folders: AllowedFolders) -> None:
    """Create the subfolders of a folder export's ``--output`` tree (inside allowed folders
    only: anywhere else the export service refuses the output)."""
    if folders.contains(output.parent):
        output.parent.mkdir(parents=True, exist_ok=True)


@contextmanager
def progress(count: int, *, shown: bool, label: str) -> Iterator[Callable[[], None]]:
    """A progress bar on stderr when ``shown``; the callable advances it by one file."""
    if not shown:
        yield lambda: None
        return
    with click.progressbar(length=count, label=label, file=sys.stderr) as bar:
        yield lambda: bar.update(1)


class StandaloneExport:
    """An export service of this process, built on first use (so a command that exports
    nothing never loads the engine) with the ``export.browser`` setting, closed by ``aclose``."""

    def __init__(self, *, environ: Mapping[str, str], home: Path, cwd: Path) -> None:
        self._environ = environ
        self._home = home
        self._cwd = cwd
        self._service: ExportService | None = None

    def service(self) -> ExportService:
        """The export service, built the first time."""
        if self._service is None:
            # Imported here: the engine is loaded only when something is exported.
            from quire.services.export import ExportService

            state = state_folder(self._environ, self._home)
            browser = export_browser(state, self._environ, home=self._home, cwd=self._cwd)
            self._service = ExportService(browser=browser)
        return self._service

    async def export(self, job: ExportJob, *, allowed: Sequence[Path]) -> ExportResult:
        """Export as ``ExportService.export`` does."""
        return await self.service().export(job, allowed=allowed)

    async def aclose(self) -> None:
        """Close the warm browser, if an export started one."""
        if self._service is not None:
            await self._service.aclose()


@click.command("export", epilog=EXIT_CODES)
@click.argument("source", metavar="FILE|DIR")
@click.option(
    "--format",
    "format",
    type=click.Choice(EXPORT_FORMATS),
    required=True,
    help="The format to export.",
)
@click.option(
    "--output",
    "output",
    metavar="PATH",
    help="The file to write (for a folder: the folder to write into). Default: "
    "beside each input, with the format's extension.",
)
@click.option("--force", is_flag=True, help="Replace an existing output file.")
@click.option(
    "--theme",
    type=click.Choice(EXPORT_THEMES),
    default="light",
    show_default=True,
    help="The preview theme the export is drawn in.",
)
@click.option(
    "--paper",
    type=click.Choice(PAPERS),
    default="a4",
    show_default=True,
    help="The page size of a PDF.",
)
@click.option(
    "--allow",
    "allow",
    multiple=True,
    metavar="DIR",
    help="Also allow reading from and writing to DIR (repeatable).",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead.")
def export_command(
    source: str,
    format: ExportFormat,
    output: str | None,
    force: bool,
    theme: ExportTheme,
    paper: Paper,
    allow: tuple[str, ...],
    as_json: bool,
) -> None:
    """Export FILE (a Markdown document) or every Markdown document in DIR as pdf, html, docx
    or epub, drawn as Quire's preview shows it. Runs here, with no server. Inputs and outputs
    must lie in the allowed folders: the working directory, the input's folder and each
    --allow DIR."""
    cwd, home = Path.cwd(), Path.home()
    try:
        path = expand_path(source, cwd=cwd, home=home, argument="FILE|DIR")
        target = (
            None if output is None else expand_path(output, cwd=cwd, home=home, argument="--output")
        )
        extra = [expand_path(item, cwd=cwd, home=home, argument="--allow") for item in allow]
    except InvalidArgument as error:
        raise click.UsageError(str(error)) from None
    folders = allowed_folders(cwd, path, extra)
    notes: list[str] = []
    if path.is_dir():
        if target is not None and not target.is_dir():
            raise click.UsageError(f"--output {output}: for a folder, pass an existing folder.")
        jobs, notes = folder_jobs(path, target, format)
    else:
        jobs = [Job(path, target)]

    def asked(job: Job) -> ExportJob:
        return ExportJob(
            job.source, format, output=job.output, overwrite=force, theme=theme, paper=paper
        )

    shown = path.is_dir() and not as_json and sys.stderr.isatty()

    async def run() -> tuple[list[ExportResult], list[Failure]]:
        exporter = StandaloneExport(environ=os.environ, home=home, cwd=cwd)
        try:
            with progress(len(jobs), shown=shown, label=f"Exporting {len(jobs)} files") as step:
                return await run_jobs(exporter, jobs, folders, asked, step)
        finally:
            await exporter.aclose()

    results, failures = anyio.run(run)
    _report(results, failures, notes, as_json=as_json, folder=path.is_dir())
    if failures:
        sys.exit(_CODES[failures[0].kind])


def _report(
    results: list[ExportResult],
    failures: list[Failure],
    notes: list[str],
    *,
    as_json: bool,
    folder: bool,
) -> None:
    if as_json:
        if not folder and results:
            echo_json(results[0])
            return
        echo_json(
            {
                "ok": not failures,
                "exported": to_jsonable(results),
                "failed": [
                    {"path": str(item.path), "kind": item.kind, "error": item.message}
                    for item in failures
                ],
                "notes": notes,
            }
        )
        return
    for result in results:
        pages = f", {result.pages} pages" if result.pages is not None else ""
        click.echo(f"{result.path} ({result.bytes:,} bytes{pages}, {result.engine})")
        for warning in result.warnings:
            click.echo(f"  warning: {warning}", err=True)
        for diagram in result.diagram_errors:
            click.echo(f"  diagram at line {diagram.line}: {diagram.message}", err=True)
    for item in failures:
        click.echo(f"quire: {item.message}", err=True)
    for note in notes:
        click.echo(f"quire: {note}", err=True)

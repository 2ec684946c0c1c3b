"""``quire text|meta|tasks|diff|render``: the Markdown analysis library from a shell.

Each command reads files through ``quire.fs`` (the same path and read rules as every tool) and
prints what the library returns, as text for people or as JSON with ``--json``.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from quire.cli.output import echo_json, reports_errors, to_jsonable
from quire.core.paths import expand_path
from quire.fs.documents import read_document
from quire.fs.folders import AllowedFolders
from quire.markdown.diff import unified_diff
from quire.markdown.metadata import Metadata, export_metadata
from quire.markdown.render import render
from quire.markdown.tasks import extract_tasks
from quire.markdown.text import export_text

FILE = click.argument("file", metavar="FILE")
AS_JSON = click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead.")


def _read(raw: str, argument: str = "FILE") -> tuple[Path, str]:
    path = expand_path(raw, cwd=Path.cwd(), home=Path.home(), argument=argument)
    found, text = read_document(AllowedFolders.whole_disk(), path)
    return found.path, text


@click.command("text")
@FILE
@AS_JSON
@reports_errors
def text_command(file: str, as_json: bool) -> None:
    """Print FILE as plain text, with the Markdown syntax taken out."""
    path, source = _read(file)
    plain = export_text(source)
    if as_json:
        echo_json({**_fields(plain), "path": str(path)})
    else:
        click.echo(plain.text)


@click.command("meta")
@FILE
@AS_JSON
@reports_errors
def meta_command(file: str, as_json: bool) -> None:
    """Print FILE's structure: front matter, headings, wikilinks, images and words."""
    path, source = _read(file)
    metadata = export_metadata(source)
    if as_json:
        echo_json({**_fields(metadata), "path": str(path)})
    else:
        click.echo(_describe_metadata(path, metadata))


@click.command("tasks")
@FILE
@AS_JSON
@reports_errors
def tasks_command(file: str, as_json: bool) -> None:
    """List FILE's task checkboxes (- [ ] and - [x]) with their line numbers."""
    path, source = _read(file)
    tasks = extract_tasks(source)
    if as_json:
        echo_json({"path": str(path), "tasks": tasks})
        return
    for task in tasks:
        click.echo(f"[{'x' if task.checked else ' '}] {task.line}: {task.text}")
    done = sum(task.checked for task in tasks)
    click.echo(f"{done} of {len(tasks)} done")


@click.command("diff")
@click.argument("file_a", metavar="A")
@click.argument("file_b", metavar="B")
@click.option(
    "--context",
    "context_lines",
    type=click.IntRange(0, 10000),
    default=3,
    show_default=True,
    help="Lines of context around each change.",
)
@AS_JSON
@reports_errors
def diff_command(file_a: str, file_b: str, context_lines: int, as_json: bool) -> None:
    """Print a unified diff of two Markdown files (line endings compared too)."""
    path_a, source_a = _read(file_a, "A")
    path_b, source_b = _read(file_b, "B")
    result = unified_diff(
        source_a, source_b, label_a=str(path_a), label_b=str(path_b), context_lines=context_lines
    )
    if as_json:
        echo_json({**_fields(result), "path_a": str(path_a), "path_b": str(path_b)})
    elif result.diff:
        click.echo(result.diff, nl=not result.diff.endswith("\n"))


@click.command("render")
@FILE
@AS_JSON
@reports_errors
def render_command(file: str, as_json: bool) -> None:
    """Print FILE as the HTML fragment the preview and every export start from."""
    path, source = _read(file)
    rendered = render(source)
    if as_json:
        echo_json({**_fields(rendered), "path": str(path)})
    else:
        click.echo(rendered.html, nl=not rendered.html.endswith("\n"))


def _fields(value: object) -> dict[str, object]:
    result = to_jsonable(value)
    assert isinstance(result, dict)
    return result


def _describe_metadata(path: Path, metadata: Metadata) -> str:
    lines = [f"path: {path}", f"words: {metadata.word_count}"]
    lines.append(f"embedded images: {metadata.embedded_image_count}")
    if metadata.frontmatter is not None:
        lines.append("front matter:")
        lines.extend(
            f"  {key}: {json.dumps(value, ensure_ascii=False)}"
            for key, value in metadata.frontmatter.items()
        )
    if metadata.headings:
        lines.append("headings:")
        lines.extend(
            f"  {'  ' * (heading.level - 1)}{'#' * heading.level} {heading.text}"
            for heading in metadata.headings
        )
    if metadata.wikilinks:
        lines.append("wikilinks: " + ", ".join(metadata.wikilinks))
    return "\n".join(lines)


COMMANDS = (text_command, meta_command, tasks_command, diff_command, render_command)

"""Every command of the ``quire`` tree (walked from click, so a new one is included) run with
a table of hostile arguments: each prints ``quire: …`` or a usage error and exits non-zero or
succeeds; none prints a traceback, or reaches the last-resort handler for unexpected errors.

In process (CliRunner, in a worker thread) against a real ``quire serve`` process, found
through the state folder's server.json like a real CLI finds it; a few cases run the real
entry point as a process too.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import anyio
import click
import pytest
from click.testing import CliRunner, Result

from bench.server import quire_serve
from quire.cli.main import cli
from quire.cli.output import UNEXPECTED
from tests.cli.chat_world import PROGRAM, cli_environ

pytestmark = pytest.mark.anyio

SAYS = ("quire: ", "Error: ")
"""How a refusal starts: Quire's own line, or click's usage error."""

SKIPPED = {("serve",): "runs until stopped; its refusals are tested below"}


def commands(
    group: click.Group, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], click.Command]]:
    """Every leaf command under ``group`` with its words (``("chat", "read")``)."""
    loaded = group.load_all() if hasattr(group, "load_all") else group.commands
    for name, command in sorted(loaded.items()):
        if isinstance(command, click.Group):
            yield from commands(command, (*path, name))
        else:
            yield (*path, name), command


def hostile(workspace: Path) -> dict[str, str]:
    """Arguments no command should trip over."""
    fifo = workspace / "pipe.md"
    if not fifo.exists():
        os.mkfifo(fifo)
    gone = workspace / "gone.md"
    if not gone.is_symlink():
        gone.symlink_to(workspace / "nothing-here.md")
    (workspace / "folder.md").mkdir(exist_ok=True)
    return {
        "non-UTF-8 bytes": os.fsdecode(b"caf\xe9.md"),
        "a 5,000-character name": "n" * 5000 + ".md",
        "a 260-character name": "n" * 256 + ".md",
        "a path over PATH_MAX": "/".join(["d" * 250] * 20) + "/x.md",
        "NUL": "a\x00b.md",
        "a .. chain": "../" * 40 + "etc/passwd",
        "a .. chain to a .md": "../" * 40 + str(workspace.parent / "outside" / "x.md")[1:],
        "a FIFO": str(fifo),
        "a folder": str(workspace / "folder.md"),
        "the workspace": str(workspace),
        "a dangling symlink": str(gone),
        "-": "-",
        "empty": "",
        "a newline": "a\nb.md",
        "a huge number": "9" * 5000,
        "a negative number": "-99999999999999999999",
        "a huge float": "1e999",
    }


def baseline(workspace: Path) -> dict[str, str]:
    """A plausible value for each parameter name, so the hostile one is the only fault."""
    note = workspace / "plan.md"
    note.write_text("# Plan\n\n- [ ] a task\n", encoding="utf-8")
    chat = workspace / "Chats" / "team.md"
    return {
        "chat": str(chat),
        "file": str(note),
        "file_a": str(note),
        "file_b": str(note),
        "source": str(note),
        "workspace": str(workspace),
        "message": "hello",
        "title": "Team",
        "dirs": str(workspace),
        "path": str(workspace / "new.md"),
        "destination": str(workspace / "elsewhere.md"),
        "content": "text",
        "entry_id": "0-00000000",
    }


def invocations(
    words: tuple[str, ...], command: click.Command, values: dict[str, str], base: dict[str, str]
) -> Iterator[tuple[str, list[str]]]:
    """The command with each hostile value in each argument and each option, one at a time."""
    arguments = [p for p in command.params if isinstance(p, click.Argument)]
    options = [p for p in command.params if isinstance(p, click.Option) and not p.is_flag]
    fill = [base.get(p.name or "", "x") for p in arguments]
    extra = ["--timeout", "1000"] if words == ("chat", "wait") else []
    for label, value in values.items():
        for index, argument in enumerate(arguments):
            args = [*fill[:index], value, *fill[index + 1 :]]
            yield f"{argument.name}={label}", [*words, *args, *extra]
        for option in options:
            name = max(option.opts, key=len)
            more = [] if name == "--timeout" else extra
            yield f"{name}={label}", [*words, *fill, name, value, *more]
        if not arguments and not options:
            yield label, [*words, value]


def check(result: Result, where: str) -> None:
    text = result.output + (result.stderr if result.stderr_bytes is not None else "")
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        f"{where}: {result.exception!r}"
    )
    assert "Traceback" not in text, f"{where}:\n{text}"
    assert UNEXPECTED not in text, f"{where}:\n{text}"
    if result.exit_code != 0:
        said = [line for line in result.stderr.splitlines() if line.startswith(SAYS)]
        assert said, f"{where}: exit {result.exit_code} without a quire: line:\n{text}"


async def test_every_command_survives_every_hostile_argument(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    state = tmp_path / "state"
    home = tmp_path / "home"
    home.mkdir()
    env = {**cli_environ(state), "HOME": str(home)}
    for key in ("DISPLAY", "WAYLAND_DISPLAY", "BROWSER"):
        env.pop(key, None)
    values = hostile(workspace)
    base = baseline(workspace)
    runs = [
        (f"quire {' '.join(words)} [{label}]", args)
        for words, command in commands(cli)
        if words not in SKIPPED
        for label, args in invocations(words, command, values, base)
    ]

    def run_all() -> list[str]:
        runner = CliRunner(env=env)
        previous = Path.cwd()
        os.chdir(workspace)
        failures: list[str] = []
        try:
            for where, args in runs:
                try:
                    check(runner.invoke(cli, args, input=""), where)
                except AssertionError as failure:
                    failures.append(str(failure)[:600])
        finally:
            os.chdir(previous)
        return failures

    async with quire_serve(workspace, state, tmp_path / "server.log"):
        with anyio.fail_after(600):
            failures = await anyio.to_thread.run_sync(run_all)
    assert len(runs) > 300
    assert not failures, f"{len(failures)} of {len(runs)} runs:\n" + "\n".join(failures)
    assert "Traceback" not in (tmp_path / "server.log").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "args",
    [
        ["serve", "n" * 5000],
        ["serve", os.fsdecode(b"caf\xe9")],
        ["serve", "--port", "9" * 5000],
        ["serve", "--port", "-1"],
        ["serve", "--db", "nosuch://x"],
        ["serve", "--state-dir", "n" * 5000],
        ["serve", "--host", "\udce9"],
    ],
)
def test_serve_refuses_hostile_arguments_without_a_traceback(
    tmp_path: Path, args: list[str]
) -> None:
    env = {**cli_environ(tmp_path / "state"), "HOME": str(tmp_path)}
    result = CliRunner(env=env).invoke(cli, [*args, "--no-browser"])
    check(result, " ".join(args)[:80])
    assert result.exit_code != 0


@pytest.mark.parametrize(
    "args",
    [
        [b"chat", b"read", b"caf\xe9.md"],
        [b"open", b"n" * 260 + b".md", b"--no-browser"],
        [b"text", b"pipe.md"],
        [b"diff", b"caf\xe9.md", b"n" * 5000 + b".md"],
        [b"export", b"../" * 40 + b"etc/passwd", b"--format", b"html"],
    ],
)
async def test_the_real_entry_point_prints_one_line_and_exits_1(
    tmp_path: Path, args: list[bytes]
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    os.mkfifo(workspace / "pipe.md")
    state = tmp_path / "state"
    async with quire_serve(workspace, state, tmp_path / "server.log"):
        done = await anyio.run_process(
            [*(part.encode() for part in PROGRAM), *args],
            cwd=workspace,
            env={**cli_environ(state), "HOME": str(tmp_path)},
            check=False,
        )
    stderr = done.stderr.decode("utf-8", "replace")
    assert done.returncode == 1, stderr
    assert "Traceback" not in stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("quire: "), stderr

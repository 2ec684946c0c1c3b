"""`quire open` as a person runs it: `.venv/bin/quire` in a subprocess, its exit code and its
exact output, with no server, with a server in this process, and with one it starts itself."""

from __future__ import annotations

import os
import pty
import re
import stat
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse
from starlette.routing import Route

from quire import __version__
from quire.cli.arguments import BadArguments
from quire.cli.open import TERMINAL_HINT, OpenArguments, parse_open_arguments
from quire.client.opening import window_url
from quire.client.refused_token import token_refused_message
from quire.core.limits import MAX_DOCUMENT_BYTES
from quire.core.views import OWNER
from tests.support.quire_cli import (
    QUIRE,
    LocalServer,
    Shell,
    app_server,
    local_server,
    make_shell,
    paths,
)

pytestmark = pytest.mark.anyio

USAGE = (
    "Usage: quire open [-e | -r] [--no-browser] FILE\nTry 'quire open --help' for help.\n\nError: "
)
RULE = (
    "only Markdown documents (.md, .markdown, .mdown, .mkd, .mdx) that are not dotfiles can "
    "be opened."
)
EMPTY_STDIN = (
    "quire: The document on stdin is empty (or only whitespace), so nothing was opened. Pipe "
    "the Markdown in, for example `cat notes.md | quire open -`.\n"
)


@pytest.fixture
async def shell(tmp_path: Path, anyio_backend: str) -> AsyncIterator[Shell]:
    opened = make_shell(tmp_path)
    try:
        yield opened
    finally:
        await opened.stop_started_server()


@pytest.fixture
async def server(shell: Shell) -> AsyncIterator[LocalServer]:
    async with local_server(shell, shell.cwd) as running:
        yield running


def note(shell: Shell, name: str = "plan.md", text: str = "# Plan\n") -> Path:
    path = shell.cwd / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path.resolve()


def inbox(shell: Shell) -> list[Path]:
    folder = shell.state / "inbox"
    return sorted(folder.iterdir()) if folder.exists() else []


def output(result: subprocess.CompletedProcess[bytes]) -> tuple[int, str, str]:
    return result.returncode, result.stdout.decode(), result.stderr.decode()


# The command line, parsed (in process: every rule, quickly).


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ([], "nothing"),
        (["-h"], "help"),
        (["--help"], "help"),
        (["-e", "-r", "--bogus", "x", "y", "-h"], "help"),
        (["\udcff", "--help"], "help"),
        (["-V"], "version"),
        (["--version", "-e", "-r"], "version"),
        (["a.md"], OpenArguments("a.md", False, None, False)),
        (["-e", "a.md"], OpenArguments("a.md", False, "edit", False)),
        (["a.md", "--edit"], OpenArguments("a.md", False, "edit", False)),
        (["-r", "a.md"], OpenArguments("a.md", False, "read", False)),
        (["--read", "--read", "a.md"], OpenArguments("a.md", False, "read", False)),
        (["--no-browser", "a.md"], OpenArguments("a.md", False, None, True)),
        (["-"], OpenArguments("-", True, None, False)),
        (["-e", "-", "--no-browser"], OpenArguments("-", True, "edit", True)),
        (["--", "-"], OpenArguments("-", False, None, False)),
        (["--", "-draft.md"], OpenArguments("-draft.md", False, None, False)),
        (["--", "-h"], OpenArguments("-h", False, None, False)),
        (["--", "--version"], OpenArguments("--version", False, None, False)),
        (["-e", "--", "--"], OpenArguments("--", False, "edit", False)),
    ],
)
def test_the_command_line_means_what_the_rules_say(
    arguments: list[str], expected: OpenArguments | str
) -> None:
    assert parse_open_arguments(arguments) == expected


@pytest.mark.parametrize(
    ("arguments", "words"),
    [
        (["-e", "-r", "a.md"], "cannot be used together"),
        (["-r", "a.md", "--edit"], "cannot be used together"),
        ([""], "The path is empty"),
        (["  \t"], "The path is empty"),
        (["--", ""], "The path is empty"),
        (["-x", "a.md"], "No such option: -x"),
        (["--edit=1", "a.md"], "No such option: --edit=1"),
        (["-er", "a.md"], "No such option: -er"),
        (["-e"], "Missing argument 'FILE'"),
        (["--"], "Missing argument 'FILE'"),
        (["a.md", "b.md"], "also got: b.md"),
        (["-", "-"], "also got: -"),
        (["\udcff.md"], "'\\xff.md' is not valid UTF-8"),
        (["-e", "caf\udcc3"], "'caf\\xc3' is not valid UTF-8"),
    ],
)
def test_a_command_line_that_breaks_a_rule_says_which(arguments: list[str], words: str) -> None:
    with pytest.raises(BadArguments, match=re.escape(words)):
        parse_open_arguments(arguments)


# Usage errors and refusals: exit 1, nothing contacted.


async def test_help_goes_to_stdout_and_wins_over_every_flag(shell: Shell) -> None:
    outputs = {
        output(await shell.run("open", *args))
        for args in (["-h"], ["-e", "-r", "--bogus", b"\xff", "--help", "a", "b"])
    }
    [(code, out, err)] = outputs
    assert (code, err) == (0, "")
    assert out.startswith("Usage: quire open [-e | -r] [--no-browser] FILE\n\n  Open the Markdown")
    for option in ("-e, --edit", "-r, --read", "--no-browser", "-V, --version", "-h, --help"):
        assert f"  {option}" in out


async def test_no_arguments_print_the_help_to_stderr_and_exit_1(shell: Shell) -> None:
    code, out, err = output(await shell.run("open"))
    _, help_text, _ = output(await shell.run("open", "--help"))
    assert (code, out, err) == (1, "", help_text)


@pytest.mark.parametrize("args", [["-V"], ["-e", "-r", "--version"]])
async def test_the_version_is_printed(shell: Shell, args: list[str]) -> None:
    assert output(await shell.run("open", *args)) == (0, f"quire open {__version__}\n", "")


NOT_UTF8 = (
    "is not valid UTF-8 text, and Quire takes paths and options as UTF-8. Rename the file to a "
    "UTF-8 name (or pass a link to it that has one)."
)
EMPTY_PATH = (
    "The path is empty (an unset variable?): pass the path of a Markdown file, or - to read "
    "the document from stdin."
)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["-e", "-r", "plan.md"],
            "-e/--edit and -r/--read cannot be used together: pass one of them.",
        ),
        ([""], EMPTY_PATH),
        ([" "], EMPTY_PATH),
        (
            ["--bogus", "plan.md"],
            "No such option: --bogus. To open a file whose name starts with '-', put `--` "
            "before it (quire open -- --bogus).",
        ),
        (["-e"], "Missing argument 'FILE': pass the Markdown file to open, or - for stdin."),
        (
            ["plan.md", "other.md"],
            "quire open takes one FILE, but also got: other.md. Open each file with its own "
            "command.",
        ),
        ([b"\xffplan.md"], f"The argument '\\xffplan.md' {NOT_UTF8}"),
        (["-r", b"-\xc3"], f"The argument '-\\xc3' {NOT_UTF8}"),
    ],
)
async def test_a_usage_error_exits_1_with_the_usage_and_the_reason(
    shell: Shell, args: list[str | bytes], message: str
) -> None:
    assert output(await shell.run("open", *args)) == (1, "", f"{USAGE}{message}\n")
    assert shell.started_server() is None


async def test_a_folder_is_a_usage_error(shell: Shell) -> None:
    (shell.cwd / "notes.md").mkdir()
    folder = shell.cwd.resolve() / "notes.md"
    message = f"'{folder}' is a folder, not a document: pass the path of a Markdown file inside it."
    assert output(await shell.run("open", "notes.md")) == (1, "", f"{USAGE}{message}\n")


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("notes.txt", RULE),
        (".notes.md", RULE),
        ("-", RULE),
        (
            "missing.md",
            "the file does not exist. Check the path (absolute, or relative to the working "
            "directory).",
        ),
        ("link.md", "it is a symbolic link to '{cwd}/.env', and " + RULE),
        (
            "pipe.md",
            "it is a named pipe (FIFO), not a regular file; only regular files can be opened.",
        ),
    ],
)
async def test_a_file_that_is_no_markdown_document_is_refused_before_any_server(
    shell: Shell, name: str, reason: str
) -> None:
    for plain in ("notes.txt", "README", ".notes.md", "-", "-h", ".env"):
        (shell.cwd / plain).write_text("# x\n", encoding="utf-8")
    (shell.cwd / "link.md").symlink_to(shell.cwd / ".env")
    os.mkfifo(shell.cwd / "pipe.md")
    cwd = shell.cwd.resolve()
    verb = "Cannot open" if name == "missing.md" else "Refusing to open"
    expected = f"quire: {verb} '{cwd / name}': {reason.format(cwd=cwd)}\n"
    assert output(await shell.run("open", "--", name)) == (1, "", expected)
    assert shell.started_server() is None
    assert not (shell.state / "serve.log").exists()


@pytest.mark.parametrize(
    ("stdin", "message"),
    [
        (b"", EMPTY_STDIN),
        (b"  \n\t\r\n", EMPTY_STDIN),
        (
            b"a" * (MAX_DOCUMENT_BYTES + 1),
            "quire: The document on stdin is larger than 16 MiB, the most a Quire document may "
            "hold; nothing was opened. Split it, or save it as a file and open that file.\n",
        ),
        (
            b"# Notes\n\xff\n",
            "quire: The document on stdin is not UTF-8 text: byte 9 (0xFF) on line 2 is not "
            "valid UTF-8. Convert the file to UTF-8 (most editors offer this under Save As or "
            "Encoding). Nothing was opened.\n",
        ),
    ],
)
async def test_stdin_that_holds_no_document_opens_nothing_and_leaves_no_file(
    shell: Shell, stdin: bytes, message: str
) -> None:
    assert output(await shell.run("open", "-", stdin=stdin)) == (1, "", message)
    assert inbox(shell) == []
    assert shell.started_server() is None


async def run_on_terminal(shell: Shell, typed: bytes, *args: str) -> tuple[int, str, str]:
    """Run `quire open ARGS` with a terminal on stdin, typing ``typed`` into it."""
    main, secondary = pty.openpty()
    try:
        process = await anyio.open_process(
            [str(QUIRE), "open", *args],
            stdin=secondary,
            cwd=shell.cwd,
            env=shell.env,
        )
        os.write(main, typed)
        with anyio.fail_after(60):
            assert process.stdout is not None and process.stderr is not None
            out = b"".join([chunk async for chunk in process.stdout])
            err = b"".join([chunk async for chunk in process.stderr])
            code = await process.wait()
    finally:
        os.close(secondary)
        os.close(main)
    return code, out.decode(), err.decode()


async def test_a_terminal_on_stdin_is_told_how_to_finish(shell: Shell) -> None:
    code, out, err = await run_on_terminal(shell, b"\x04", "-")
    assert (code, out, err) == (1, "", f"{TERMINAL_HINT}\n{EMPTY_STDIN}")


# With a running server.


async def test_a_file_opens_in_the_window_silently_when_a_browser_shows_it(
    shell: Shell, server: LocalServer
) -> None:
    path = note(shell)
    async with server.services.bus.subscribe(OWNER):
        assert output(await shell.run("open", "plan.md")) == (0, "", "")
    active = await server.active()
    assert active is not None and (active.path, active.view) == (path, "read")
    assert shell.opened_in_browser() == []


async def test_the_view_flags_set_the_view_and_without_one_a_tab_keeps_its_own(
    shell: Shell, server: LocalServer
) -> None:
    note(shell)
    views = []
    async with server.services.bus.subscribe(OWNER):
        for args in (["-e"], [], ["--read"]):
            assert (await shell.run("open", *args, "plan.md")).returncode == 0
            active = await server.active()
            assert active is not None
            views.append(active.view)
    assert views == ["edit", "edit", "read"]


@pytest.mark.parametrize(
    ("args", "name"), [(["--", "-draft.md"], "-draft.md"), (["notes/../n.md"], "n.md")]
)
async def test_names_after_the_double_dash_and_relative_paths_open(
    shell: Shell, server: LocalServer, args: list[str], name: str
) -> None:
    (shell.cwd / "notes").mkdir()
    path = note(shell, name)
    async with server.services.bus.subscribe(OWNER):
        assert output(await shell.run("open", *args)) == (0, "", "")
    assert paths(await server.tabs()) == [path]


async def test_without_a_browser_window_no_browser_prints_the_address(
    shell: Shell, server: LocalServer
) -> None:
    path = note(shell)
    expected_err = f"quire: no browser window shows Quire; open this address to see '{path}':\n"
    assert output(await shell.run("open", "--no-browser", "plan.md")) == (
        0,
        window_url(server.info) + "\n",
        expected_err,
    )
    assert paths(await server.tabs()) == [path]


async def test_without_a_browser_window_a_browser_opens_at_the_window(
    shell: Shell, server: LocalServer
) -> None:
    note(shell)
    shell.with_browser()
    assert output(await shell.run("open", "plan.md")) == (0, "", "")
    assert shell.opened_in_browser() == [window_url(server.info)]


async def test_with_no_browser_to_start_the_address_is_printed(
    shell: Shell, server: LocalServer
) -> None:
    path = note(shell)
    assert output(await shell.run("open", "plan.md")) == (
        0,
        window_url(server.info) + "\n",
        "quire: no browser window shows Quire, and none could be started here; open this "
        f"address to see '{path}':\n",
    )


async def test_the_address_lets_a_browser_in_and_shows_the_document(
    shell: Shell, server: LocalServer
) -> None:
    path = note(shell)
    result = await shell.run("open", "--no-browser", "plan.md")
    async with httpx.AsyncClient() as browser:
        login = await browser.get(result.stdout.decode().strip(), follow_redirects=True)
        window = await browser.get(f"{server.info.url}/api/window")
    assert login.status_code == 200
    [tab] = window.json()["tabs"]
    assert (tab["path"], window.json()["active"]) == (str(path), tab["docId"])


async def test_stdin_opens_as_a_private_file_in_the_inbox(
    shell: Shell, server: LocalServer
) -> None:
    async with server.services.bus.subscribe(OWNER):
        result = await shell.run("open", "-e", "-", stdin="# Piped\n\nÜber.\n".encode())
    assert output(result) == (0, "", "")
    [saved] = inbox(shell)
    active = await server.active()
    assert active is not None and (active.path, active.view) == (saved, "edit")
    assert saved.read_text(encoding="utf-8") == "# Piped\n\nÜber.\n"
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600
    assert stat.S_IMODE(saved.parent.stat().st_mode) == 0o700


async def test_a_document_typed_on_a_terminal_opens(shell: Shell, server: LocalServer) -> None:
    async with server.services.bus.subscribe(OWNER):
        code, out, err = await run_on_terminal(shell, b"# Typed\n\x04", "-")
    assert (code, out, err) == (0, "", f"{TERMINAL_HINT}\n")
    [saved] = inbox(shell)
    assert saved.read_text(encoding="utf-8") == "# Typed\n"


async def test_a_file_outside_the_served_folders_is_refused_naming_how_to_serve_it(
    shell: Shell, server: LocalServer, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "far.md").write_text("# Far\n", encoding="utf-8")
    folder = elsewhere.resolve()
    expected = (
        f"quire: Refusing to open '{folder / 'far.md'}': the Quire server at {server.info.url} "
        f"does not serve its folder (it serves '{server.workspace}'). Stop that server and "
        f"start it again with the folder added (`quire serve {server.workspace} {folder}`), "
        "then open the file again.\n"
    )
    assert output(await shell.run("open", str(elsewhere / "far.md"))) == (1, "", expected)
    assert await server.tabs() == ()


async def test_a_file_the_server_cannot_read_gets_the_servers_reason(
    shell: Shell, server: LocalServer
) -> None:
    path = shell.cwd / "latin1.md"
    path.write_bytes(b"# Caf\xe9\n")
    expected = (
        f"quire: Cannot read '{path.resolve()}': it is not UTF-8 text: byte 6 (0xE9) on line 1 "
        "is not valid UTF-8. Convert the file to UTF-8 (most editors offer this under Save As "
        "or Encoding).\n"
    )
    assert output(await shell.run("open", "latin1.md")) == (1, "", expected)


@pytest.mark.parametrize("from_stdin", [False, True])
async def test_a_stale_token_gets_the_one_message_and_opens_nothing(
    shell: Shell, from_stdin: bool
) -> None:
    path = note(shell)
    async with local_server(shell, shell.cwd, server_file_token="f" * 64) as server:
        if from_stdin:
            result = await shell.run("open", "-", stdin=b"# Piped\n")
        else:
            result = await shell.run("open", "plan.md")
        assert await server.tabs() == ()
    code, out, err = output(result)
    shown = path if not from_stdin else "{inbox}"
    message = token_refused_message(server.info.url, shell.state / "server.json")
    assert (code, out) == (1, "")
    if from_stdin:
        assert err.startswith(f"quire: Could not open '{(shell.state / 'inbox').resolve()}/stdin-")
        assert err.endswith(f".md' in Quire: {message}\n")
        assert inbox(shell) == []
    else:
        assert err == f"quire: Could not open '{shown}' in Quire: {message}\n"


def failing_server(workspace: Path, *, hang: bool) -> Starlette:
    """A server that lists ``workspace`` and then fails (HTTP 500) or never answers an open."""

    async def workspaces(request: Request) -> JSONResponse:
        return JSONResponse({"workspaces": [{"path": str(workspace), "name": workspace.name}]})

    async def open_document(request: Request) -> PlainTextResponse:
        if hang:
            await anyio.sleep_forever()
        return PlainTextResponse("database is locked", status_code=500)

    return Starlette(
        routes=[
            Route("/api/workspaces", workspaces),
            Route("/api/documents/open", open_document, methods=["POST"]),
        ]
    )


@pytest.mark.parametrize(
    ("hang", "reason"),
    [
        (
            False,
            "failed with HTTP 500: database is locked Retry once; if it fails again, check the "
            "server's log.",
        ),
        (True, "did not answer within 6 seconds."),
    ],
)
async def test_a_server_that_fails_while_opening_keeps_the_text_from_stdin(
    shell: Shell, hang: bool, reason: str
) -> None:
    async with app_server(shell, failing_server(shell.cwd.resolve(), hang=hang)) as info:
        code, out, err = output(await shell.run("open", "-", stdin=b"# Piped\n"))
    [kept] = inbox(shell)
    assert (code, out) == (1, "")
    assert err == (
        f"quire: Could not confirm that Quire opened '{kept}': The Quire server at {info.url} "
        f"{reason} It may still open it. The text from stdin stays in '{kept}'.\n"
    )
    assert kept.read_text(encoding="utf-8") == "# Piped\n"


async def test_a_server_that_does_not_answer_at_all_leaves_no_file_behind(
    shell: Shell, tmp_path: Path
) -> None:
    async with app_server(shell, Starlette()) as info:
        pass
    # The server.json is gone with the server; write it back as a process that lives on and
    # whose port no longer listens.
    (shell.state / "server.json").write_text(
        f'{{"url": "{info.url}", "token": "t", "pid": {os.getpid()}}}', encoding="utf-8"
    )
    code, out, err = output(await shell.run("open", "-", stdin=b"# Piped\n"))
    assert (code, out) == (1, "")
    assert err.endswith(
        f".md' in Quire: The Quire server at {info.url} (pid {os.getpid()}) does not answer "
        "(ConnectError). If it was stopped, start `quire serve` again; if it hangs, stop that "
        "process and start it again.\n"
    )
    assert inbox(shell) == []


# With no server: `quire open` starts one.


async def window_of(shell: Shell) -> dict[str, object]:
    info = shell.started_server()
    assert info is not None
    async with httpx.AsyncClient(headers={"Authorization": f"Bearer {info.token}"}) as client:
        window = (await client.get(f"{info.url}/api/window")).json()
        workspaces = (await client.get(f"{info.url}/api/workspaces")).json()
    assert isinstance(window, dict)
    return {**window, "workspaces": [item["path"] for item in workspaces["workspaces"]]}


async def test_with_no_server_one_starts_for_the_files_folder_and_a_browser_opens(
    shell: Shell,
) -> None:
    path = note(shell, "notes/plan.md")
    shell.with_browser()
    code, out, err = output(await shell.run("open", "notes/plan.md"))
    info = shell.started_server()
    assert info is not None
    assert (code, out) == (0, "")
    assert err == (
        "quire: no Quire server was running, so one was started in the background at "
        f"{info.url} (pid {info.pid}), serving '{path.parent}'.\n"
    )
    assert shell.opened_in_browser() == [window_url(info)]
    window = await window_of(shell)
    assert window["workspaces"] == [str(path.parent)]
    assert [tab["path"] for tab in window["tabs"]] == [str(path)]  # type: ignore[attr-defined]


async def test_with_no_server_a_configured_workspace_holding_the_file_is_served(
    shell: Shell, tmp_path: Path
) -> None:
    workspace = (tmp_path / "vault").resolve()
    (workspace / "deep" / "er").mkdir(parents=True)
    path = workspace / "deep" / "er" / "plan.md"
    path.write_text("# Plan\n", encoding="utf-8")
    shell.state.mkdir()
    (shell.state / "quire.toml").write_text(f'workspaces = ["{workspace}"]\n', encoding="utf-8")
    code, out, err = output(await shell.run("open", "--no-browser", str(path)))
    info = shell.started_server()
    assert info is not None and code == 0
    assert out == window_url(info) + "\n"
    assert f"serving '{workspace}'.\n" in err
    window = await window_of(shell)
    assert window["workspaces"] == [str(workspace)]


async def test_with_no_server_stdin_opens_in_a_server_on_the_working_directory(
    shell: Shell,
) -> None:
    code, out, _ = output(await shell.run("open", "--no-browser", "-", stdin=b"# Piped\n"))
    [saved] = inbox(shell)
    info = shell.started_server()
    assert info is not None
    assert (code, out) == (0, window_url(info) + "\n")
    window = await window_of(shell)
    assert window["workspaces"] == [str(shell.cwd.resolve())]
    assert [tab["path"] for tab in window["tabs"]] == [str(saved)]  # type: ignore[attr-defined]


async def test_a_bad_setting_stops_the_start_with_its_reason(shell: Shell) -> None:
    note(shell)
    shell.env["QUIRE_PORT"] = "many"
    assert output(await shell.run("open", "plan.md")) == (
        1,
        "",
        "quire: The value 'many' from the environment variable QUIRE_PORT is not a port "
        "number: it must be a whole number from 0 to 65535 (0 picks a free port). To fix it, "
        "set QUIRE_PORT to a valid value or unset it.\n",
    )
    assert shell.started_server() is None


async def test_a_server_that_fails_to_start_is_reported_and_stdin_left_nowhere(
    shell: Shell,
) -> None:
    shell.env["QUIRE_PORT"] = "many"
    code, out, err = output(await shell.run("open", "-", stdin=b"# Piped\n"))
    assert (code, out) == (1, "")
    assert "' in Quire: Quire tried to start `quire serve` in the background, but it " in err
    assert "stopped at once (exit status 1)." in err
    assert err.endswith("then retry.\n")
    assert inbox(shell) == []

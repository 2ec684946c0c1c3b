"""Registering Quire with Claude Code and Codex through their own `mcp` commands, against
recording shims: ask first, add when absent, replace a gone program, keep another one."""

from __future__ import annotations

from pathlib import Path

import pytest

from quire.core.errors import AgentNotDetected
from quire.services.agents import mcp_cli
from quire.services.agents.claude import CLAUDE
from quire.services.agents.claude import parse_get as parse_claude
from quire.services.agents.codex import CODEX
from quire.services.agents.codex import parse_get as parse_codex
from quire.services.agents.machine import Machine
from quire.services.agents.mcp_cli import McpCli
from quire.services.agents.registration import Found
from tests.support.agent_shims import FakeAgent, install_fake, make_program

GET = {"claude": ["mcp", "get", "quire"], "codex": ["mcp", "get", "quire", "--json"]}
REMOVE = {
    "claude": ["mcp", "remove", "--scope", "user", "quire"],
    "codex": ["mcp", "remove", "quire"],
}
ADD = {
    "claude": ["mcp", "add", "--scope", "user", "quire", "--"],
    "codex": ["mcp", "add", "quire", "--"],
}
CLIS = {"claude": CLAUDE, "codex": CODEX}
KINDS = pytest.mark.parametrize("kind", ["claude", "codex"])


def _setup(bin_dir: Path, kind: str) -> tuple[FakeAgent, McpCli]:
    return install_fake(bin_dir, "claude" if kind == "claude" else "codex"), CLIS[kind]


@KINDS
def test_an_agent_without_quire_gets_it_added(machine: Machine, bin_dir: Path, kind: str) -> None:
    fake, cli = _setup(bin_dir, kind)
    outcome = mcp_cli.connect(cli, machine)
    assert outcome.ok and outcome.changed
    assert fake.calls() == [GET[kind], [*ADD[kind], str(machine.quire), "mcp"]]
    assert fake.servers() == {"quire": {"command": str(machine.quire), "args": ["mcp"]}}
    assert outcome.message.splitlines()[0] == (
        f"Registered Quire's MCP server with {cli.name}: `'{machine.quire}' mcp`."
    )
    assert outcome.message.splitlines()[1] == cli.next_step


@KINDS
def test_connecting_again_only_asks(machine: Machine, bin_dir: Path, kind: str) -> None:
    fake, cli = _setup(bin_dir, kind)
    mcp_cli.connect(cli, machine)
    again = mcp_cli.connect(cli, machine)
    assert again.ok and not again.changed
    assert fake.calls()[2:] == [GET[kind]]
    assert again.message.splitlines()[0] == (
        f"{cli.name} runs this Quire's MCP server: `'{machine.quire}' mcp`. Nothing changed."
    )


@KINDS
def test_a_registration_whose_program_is_gone_is_replaced(
    machine: Machine, bin_dir: Path, tmp_path: Path, kind: str
) -> None:
    fake, cli = _setup(bin_dir, kind)
    gone = str(tmp_path / "Downloads" / "quire")
    fake.seed(gone, ["mcp"])
    assert mcp_cli.registration(cli, machine).state == "stale"
    outcome = mcp_cli.connect(cli, machine)
    assert outcome.ok and outcome.changed
    assert fake.calls()[1:] == [GET[kind], REMOVE[kind], [*ADD[kind], str(machine.quire), "mcp"]]
    assert fake.servers()["quire"] == {"command": str(machine.quire), "args": ["mcp"]}
    assert outcome.message.splitlines()[0] == (
        f"Replaced {cli.name}'s `quire` server, which ran `{gone}` (no longer there), with this "
        f"Quire: `'{machine.quire}' mcp`."
    )


@KINDS
def test_a_registration_of_another_program_is_kept_and_named(
    machine: Machine, bin_dir: Path, tmp_path: Path, kind: str
) -> None:
    fake, cli = _setup(bin_dir, kind)
    other = make_program(tmp_path / "other" / "quire")
    fake.seed(str(other), ["mcp", "--no-roots"])
    outcome = mcp_cli.connect(cli, machine)
    assert not outcome.ok and not outcome.changed
    assert fake.calls() == [GET[kind]]
    remove = " ".join([kind, *REMOVE[kind]])
    assert outcome.message == (
        f"{cli.name}'s `quire` server runs `{other} mcp --no-roots`, another program. Quire "
        f"keeps it; to use this Quire instead, run `{remove}`, then connect again."
    )


@KINDS
def test_this_quire_without_the_mcp_argument_is_kept(
    machine: Machine, bin_dir: Path, kind: str
) -> None:
    fake, cli = _setup(bin_dir, kind)
    fake.seed(str(machine.quire), ["serve"])
    found = mcp_cli.registration(cli, machine)
    assert found.state == "other"
    assert "this Quire, but not as its MCP server" in found.detail


@KINDS
def test_a_remote_server_named_quire_is_kept(machine: Machine, bin_dir: Path, kind: str) -> None:
    fake, cli = _setup(bin_dir, kind)
    fake.seed("", url="https://quire.example/mcp")
    found = mcp_cli.registration(cli, machine)
    assert (found.state, found.program) == ("other", None)
    assert found.detail.startswith(
        f"{cli.name}'s `quire` server is the URL https://quire.example/mcp. Quire keeps it"
    )


@KINDS
def test_extra_arguments_after_mcp_still_count_as_connected(
    machine: Machine, bin_dir: Path, kind: str
) -> None:
    fake, cli = _setup(bin_dir, kind)
    fake.seed(str(machine.quire), ["mcp", "--allow", "/notes"])
    assert mcp_cli.registration(cli, machine).state == "connected"


@KINDS
def test_a_get_that_fails_for_another_reason_changes_nothing(
    machine: Machine, bin_dir: Path, kind: str
) -> None:
    fake, cli = _setup(bin_dir, kind)
    fake.fail("get", 3, "config file is locked\n")
    outcome = mcp_cli.connect(cli, machine)
    assert not outcome.ok
    shown = " ".join([kind, *GET[kind]])
    assert outcome.message == (
        f"Quire could not ask {cli.name} which servers it has: `{shown}` failed (exit 3): "
        "config file is locked."
    )
    assert fake.calls() == [GET[kind]]


@KINDS
def test_a_failing_add_says_what_to_run(machine: Machine, bin_dir: Path, kind: str) -> None:
    fake, cli = _setup(bin_dir, kind)
    fake.fail("add", 1, "permission denied: ~/.claude.json\nsecond line\n")
    outcome = mcp_cli.connect(cli, machine)
    assert not outcome.ok and not outcome.changed
    shown = " ".join([kind, *ADD[kind], f"'{machine.quire}'", "mcp"])
    assert outcome.message == (
        f"Registering Quire failed: `{shown}` failed (exit 1): permission denied: ~/.claude.json\n"
        f"second line.\nRun it yourself to see more: `{shown}`."
    )


@KINDS
def test_a_failing_remove_leaves_the_registration(
    machine: Machine, bin_dir: Path, tmp_path: Path, kind: str
) -> None:
    fake, cli = _setup(bin_dir, kind)
    fake.seed(str(tmp_path / "gone" / "quire"), ["mcp"])
    fake.fail("remove", 1, "")
    outcome = mcp_cli.connect(cli, machine)
    assert not outcome.ok
    assert outcome.message.endswith(
        "failed (exit 1) without saying why. Nothing was changed; remove it yourself, then "
        "connect again."
    )
    assert [call[1] for call in fake.calls()] == ["get", "remove"]


@KINDS
def test_an_add_failing_after_the_remove_says_the_old_one_is_gone(
    machine: Machine, bin_dir: Path, tmp_path: Path, kind: str
) -> None:
    fake, cli = _setup(bin_dir, kind)
    gone = tmp_path / "gone" / "quire"
    fake.seed(str(gone), ["mcp"])
    fake.fail("add", 1, "disk full")
    outcome = mcp_cli.connect(cli, machine)
    assert not outcome.ok and outcome.changed
    assert outcome.message.startswith(
        f"The old `quire` server (which ran `{gone}`) was removed, but adding this Quire failed:"
    )


@KINDS
def test_an_agent_that_is_not_on_path_is_not_detected(machine: Machine, kind: str) -> None:
    cli = CLIS[kind]
    with pytest.raises(AgentNotDetected) as missing:
        mcp_cli.connect(cli, machine)
    assert str(missing.value) == (
        f"{cli.name} was not found: the `{kind}` command is not on PATH. Install {cli.name}, "
        f"then try again. Or register Quire by hand: `{cli.print_command(machine)}`."
    )


def test_a_settings_folder_without_the_command_says_to_fix_path(machine: Machine) -> None:
    (machine.home / ".claude").mkdir()
    with pytest.raises(AgentNotDetected, match=r"^~/.claude exists, but the `claude` command"):
        mcp_cli.connect(CLAUDE, machine)


def test_an_agent_command_that_cannot_start_is_reported(machine: Machine, bin_dir: Path) -> None:
    broken = bin_dir / "claude"
    broken.write_text("#!/nonexistent/interpreter\n", encoding="utf-8")
    broken.chmod(0o755)
    found = mcp_cli.registration(CLAUDE, machine)
    assert found.state == "other"
    assert found.detail == (
        "Quire could not ask Claude Code which servers it has: `claude mcp get quire` could not "
        "run: No such file or directory."
    )


@pytest.mark.parametrize(
    ("cli", "command"),
    [
        (CLAUDE, "claude mcp add --scope user quire -- '{quire}' mcp"),
        (CODEX, "codex mcp add quire -- '{quire}' mcp"),
    ],
)
def test_the_printed_command_is_what_connect_runs(
    machine: Machine, cli: McpCli, command: str
) -> None:
    assert cli.print_command(machine) == command.format(quire=machine.quire)


CLAUDE_GET = """quire:
  Scope: User config (available in all your projects)
  Status: ✓ Connected
  Type: stdio
  Command: /opt/quire/bin/quire
  Args: mcp --allow /notes
  Environment:
    Command: not-this

To remove this server, run: claude mcp remove "quire" -s user
"""


@pytest.mark.parametrize(
    ("printed", "found"),
    [
        (CLAUDE_GET, Found("/opt/quire/bin/quire", ("mcp", "--allow", "/notes"))),
        ("quire:\n  Type: stdio\n  Command: quire\n  Args: \n", Found("quire", ())),
        ("quire:\n  Type: sse\n  URL: http://x/sse\n", Found(None, (), "the URL http://x/sse")),
        ("quire:\n  Type: http\n", Found(None, (), "a http server")),
        ("", Found(None)),
        ("\x00\udcff", Found(None)),
    ],
)
def test_claude_mcp_get_output_is_read(printed: str, found: Found) -> None:
    assert parse_claude(printed) == found


@pytest.mark.parametrize(
    ("printed", "found"),
    [
        ('{"name": "quire", "command": "/q", "args": ["mcp"]}', Found("/q", ("mcp",))),
        ('{"transport": {"type": "stdio", "command": "/q", "args": ["mcp", 3]}}',
         Found("/q", ("mcp", "3"))),
        ('{"transport": {"type": "stdio", "command": "/q", "args": null}}', Found("/q", ())),
        ('{"transport": {"type": "streamable_http", "url": "http://x"}}',
         Found(None, (), "the URL http://x")),
        ('{"transport": {"command": ""}}', Found(None)),
        ("[1]", Found(None)),
        ("quire\n  command: /q\n", Found(None)),
        ("", Found(None)),
    ],
)  # fmt: skip
def test_codex_mcp_get_json_is_read(printed: str, found: Found) -> None:
    assert parse_codex(printed) == found

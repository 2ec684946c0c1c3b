import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from quire import __version__
from quire.cli.lazy import LazyGroup
from quire.cli.main import COMMANDS, cli
from tests.support.processes import python_prints


def test_version_prints_the_package_version() -> None:
    result = CliRunner().invoke(cli, ["--version"])
    assert result.exit_code == 0
    assert result.output == f"quire {__version__}\n"


def test_every_lazy_command_is_a_click_command_named_as_listed() -> None:
    assert isinstance(cli, LazyGroup)
    commands = cli.load_all()
    assert sorted(commands) == sorted(COMMANDS)
    for name, command in commands.items():
        assert command.name == name


def test_the_hook_starts_without_importing_the_server_or_the_database() -> None:
    code = (
        "import sys; from quire.cli.main import cli; "
        "cli.main(['hook', '--help'], standalone_mode=False); "
        "print(sorted(m for m in ('quire.web.app', 'sqlalchemy', 'uvicorn', 'mcp') "
        "if m in sys.modules))"
    )
    assert python_prints(code).strip().splitlines()[-1] == "[]"


def test_quire_mcp_starts_without_the_markdown_parser_the_schema_checker_or_the_server() -> None:
    # What `quire mcp` imports before it answers `initialize`: the parser, jsonschema and the
    # disk grep load with the first call that needs them (issue 15's spawn → initialize).
    code = (
        "import sys; from quire.cli.main import cli; import quire.cli.mcp, quire.cli.mcp_services; "
        "print(sorted(m for m in ('markdown_it', 'jsonschema', 'quire.search.grep', "
        "'quire.web.app', 'sqlalchemy') if m in sys.modules))"
    )
    assert python_prints(code).strip().splitlines()[-1] == "[]"


def test_python_dash_m_quire_is_the_same_command_line() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "quire", "--version"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert result.stdout == f"quire {__version__}\n"
    usage = subprocess.run(
        [sys.executable, "-m", "quire", "no-such-command"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert usage.returncode == 2
    assert "Usage: quire " in usage.stderr


def test_the_changelog_has_a_section_for_the_package_version() -> None:
    changelog = Path(__file__).parents[2] / "CHANGELOG.md"
    headings = [
        line.removeprefix("## ").split()[0]
        for line in changelog.read_text(encoding="utf-8").splitlines()
        if line.startswith("## ")
    ]
    assert headings, "CHANGELOG.md has no release sections"
    assert headings[0] == __version__, (
        f"CHANGELOG.md's newest section is {headings[0]}, the package is {__version__}: add a "
        f"'## {__version__}' section at the top"
    )

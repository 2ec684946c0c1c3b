import subprocess
import sys

from click.testing import CliRunner

from quire import __version__
from quire.cli.lazy import LazyGroup
from quire.cli.main import COMMANDS, cli


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
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert result.stdout.strip().splitlines()[-1] == "[]"

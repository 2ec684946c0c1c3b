from click.testing import CliRunner

from quire import __version__
from quire.cli.main import cli


def test_version_prints_the_package_version() -> None:
    result = CliRunner().invoke(cli, ["--version"])
    assert result.exit_code == 0
    assert result.output == f"quire {__version__}\n"

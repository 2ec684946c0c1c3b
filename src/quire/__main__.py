"""``python -m quire``: the same command line as the ``quire`` script."""

from quire.cli.main import cli

if __name__ == "__main__":
    cli(prog_name="quire")

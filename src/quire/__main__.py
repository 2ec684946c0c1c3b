"""``python -m quire``: the same command line as the ``quire`` program, started the same way."""

from quire.cli.entry import main

if __name__ == "__main__":
    main(prog_name="quire")

from pathlib import Path

from quire.cli.lazy import LazyGroup
from quire.cli.main import cli
from quire.cli.reference import cli_reference

DOCS = Path(__file__).resolve().parents[2] / "docs" / "cli.md"


def test_docs_cli_md_matches_the_commands_help() -> None:
    expected = cli_reference(cli)
    assert DOCS.read_text(encoding="utf-8") == expected, (
        "docs/cli.md is out of date: run `.venv/bin/python -m quire.cli.reference > docs/cli.md`"
    )


def test_every_visible_command_is_in_the_reference() -> None:
    text = cli_reference(cli)
    assert isinstance(cli, LazyGroup)
    for name in cli.load_all():
        assert f"## `quire {name}`" in text

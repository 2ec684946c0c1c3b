"""llms.txt is generated from the catalogs, and both committed copies are what it generates."""

import subprocess
import sys
from pathlib import Path

import pytest

from quire.cli.llms import DOCS_COPY, PACKAGE_COPY, llms_text, main
from quire.cli.main import COMMANDS, cli
from quire.mcp.catalog import TOOLS
from quire.mcp.prompts import PROMPTS
from quire.mcp.server import INSTRUCTIONS


@pytest.mark.parametrize("copy", [DOCS_COPY, PACKAGE_COPY], ids=["docs", "package"])
def test_the_committed_copy_is_what_the_catalogs_generate(copy: Path) -> None:
    assert copy.read_text(encoding="utf-8") == llms_text(cli), (
        f"{copy} is stale: run `python -m quire.cli.llms --write`"
    )


def test_it_names_every_tool_prompt_and_command_and_carries_the_instructions() -> None:
    text = llms_text(cli)
    assert text.startswith("# Quire\n\n> ")
    for tool in TOOLS:
        assert f"- `{tool.name}` ({tool.title}): " in text
    for prompt in PROMPTS:
        assert f"- `{prompt.name}`: " in text
    for command in COMMANDS:
        assert f"- `quire {command}`: " in text
    assert "- `quire chat wait`: " in text
    assert INSTRUCTIONS in text


def test_a_wrong_argument_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--wirte"]) == 2
    assert "usage: python -m quire.cli.llms [--write]" in capsys.readouterr().err


def test_the_module_prints_the_text() -> None:
    printed = subprocess.run(
        [sys.executable, "-m", "quire.cli.llms"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    assert printed == llms_text(cli)

"""The files that describe Quire to installers: the MCP Registry's server.json and its schema."""

import copy
import hashlib
import importlib.machinery
import io
import json
import subprocess
import sys
import tarfile
import types
import zipfile
from pathlib import Path
from typing import Any

import click
import jsonschema
import pytest

from quire import __version__
from quire.cli.mcp import mcp_command
from quire.cli.mcp_services import TOKEN_ENV
from quire.mcp.catalog import TOOLS

ROOT = Path(__file__).resolve().parent.parent
SERVER_JSON = ROOT / "server.json"
SCHEMA = ROOT / "schemas" / "mcp-registry-server.schema.json"
SCHEMA_SHA256 = "ea52b65c9bb687722a53f96b32d643c6ae17ed0ee2ef4e6b5f2a110eb3c6433f"


def server_json() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(SERVER_JSON.read_text(encoding="utf-8"))
    return loaded


def errors_of(document: object) -> list[str]:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    validator = jsonschema.Draft7Validator(
        schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER
    )
    return [error.message for error in validator.iter_errors(document)]


def test_the_vendored_schema_is_the_copy_its_readme_names() -> None:
    digest = hashlib.sha256(SCHEMA.read_bytes()).hexdigest()
    assert digest == SCHEMA_SHA256
    assert SCHEMA_SHA256 in (SCHEMA.parent / "README.md").read_text(encoding="utf-8")


def test_server_json_is_valid_against_the_registry_schema() -> None:
    assert errors_of(server_json()) == []


def test_server_json_names_the_package_version_everywhere() -> None:
    document = server_json()
    assert document["version"] == __version__
    assert [package["version"] for package in document["packages"]] == [__version__]
    assert document["$schema"].endswith("/2025-12-11/server.schema.json")


def test_server_json_runs_quire_mcp_from_pypi_with_uvx() -> None:
    (package,) = server_json()["packages"]
    assert (package["registryType"], package["identifier"]) == ("pypi", "quire")
    assert package["runtimeHint"] == "uvx"
    assert package["transport"] == {"type": "stdio"}
    assert package["packageArguments"][0] == {
        "type": "positional",
        "value": "mcp",
        "description": "The stdio MCP server subcommand.",
    }


def test_every_named_argument_is_an_option_of_quire_mcp_and_repeats_as_it_does() -> None:
    (package,) = server_json()["packages"]
    options = {
        name: param
        for param in mcp_command.params
        if isinstance(param, click.Option)
        for name in param.opts
    }
    named = [arg for arg in package["packageArguments"] if arg["type"] == "named"]
    assert {arg["name"] for arg in named} >= {"--allow"}
    for argument in named:
        assert argument["name"] in options, argument["name"]
        assert argument.get("isRepeated", False) == options[argument["name"]].multiple


def test_the_environment_variables_are_ones_quire_reads() -> None:
    (package,) = server_json()["packages"]
    names = [variable["name"] for variable in package["environmentVariables"]]
    assert names == ["QUIRE_HOME", TOKEN_ENV]
    secret = {v["name"]: v.get("isSecret", False) for v in package["environmentVariables"]}
    assert secret == {"QUIRE_HOME": False, TOKEN_ENV: True}


def test_the_readme_carries_the_registry_name_for_the_pypi_ownership_check() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"mcp-name: {server_json()['name']}" in readme


def _set(document: dict[str, Any], path: tuple[str | int, ...], value: object) -> None:
    target: Any = document
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value


@pytest.mark.parametrize(
    ("path", "value", "words"),
    [
        (("name",), "quire", "does not match"),
        (("name",), "io.github.quire/quire/extra", "does not match"),
        (("description",), "x" * 101, "is too long"),
        (("description",), "", "should be non-empty"),
        (("packages", 0, "version"), "latest", "should not be valid"),
        (("packages", 0, "transport"), {"type": "pipe"}, "is not valid"),
        (("packages", 0), {"registryType": "pypi"}, "'identifier' is a required"),
        (("packages", 0, "packageArguments", 0), {"type": "positional"}, "is not valid"),
        (
            ("packages", 0, "environmentVariables", 0),
            {"description": "no name"},
            "'name' is a required",
        ),
        (("version",), 1, "is not of type 'string'"),
    ],
)
def test_the_schema_refuses_a_broken_server_json(
    path: tuple[str | int, ...], value: object, words: str
) -> None:
    broken = copy.deepcopy(server_json())
    _set(broken, path, value)
    errors = errors_of(broken)
    assert errors, f"{path} = {value!r} passed the schema"
    assert any(words in error for error in errors), errors


def _script(name: str) -> Any:
    """scripts/NAME as a module (a script, not part of the package)."""
    loader = importlib.machinery.SourceFileLoader(
        name.replace("-", "_"), str(ROOT / "scripts" / name)
    )
    module = types.ModuleType(loader.name)
    module.__file__ = loader.path
    loader.exec_module(module)
    return module


def _build_mcpb() -> Any:
    return _script("build-mcpb")


def _packages(folder: Path, *, left_out: str | None) -> tuple[Path, Path]:
    """A wheel and an sdist of every tracked file, as the build makes them, less ``left_out``
    in both."""
    smoke = _script("wheel-smoke")
    wheel, sdist = folder / "quire-0-py3-none-any.whl", folder / "quire-0.tar.gz"
    with zipfile.ZipFile(wheel, "w") as archive:
        for name in smoke.tracked("src/quire"):
            if name != left_out:
                archive.writestr(name.removeprefix("src/"), b"")
    with tarfile.open(sdist, "w:gz") as archive:
        for name in smoke.tracked("."):
            if name != left_out and (ROOT / name).is_file():
                archive.addfile(tarfile.TarInfo(f"quire-0/{name}"), io.BytesIO(b""))
    return wheel, sdist


def test_the_wheel_smoke_passes_packages_holding_every_tracked_file(tmp_path: Path) -> None:
    _script("wheel-smoke").check_contents(*_packages(tmp_path, left_out=None))


@pytest.mark.parametrize(
    ("left_out", "archive"),
    [
        ("src/quire/web/static/index.html", "quire-0-py3-none-any.whl"),
        ("src/quire/py.typed", "quire-0-py3-none-any.whl"),
        ("README.md", "quire-0.tar.gz"),
    ],
)
def test_the_wheel_smoke_fails_when_a_tracked_file_is_missing(
    tmp_path: Path, left_out: str, archive: str
) -> None:
    smoke = _script("wheel-smoke")
    with pytest.raises(smoke.SmokeFailure, match=f"missing from {archive}") as caught:
        smoke.check_contents(*_packages(tmp_path, left_out=left_out))
    assert left_out in str(caught.value)


def test_the_bundle_manifest_has_a_multi_value_allowed_folders_setting_with_no_default() -> None:
    manifest = _build_mcpb().manifest(__version__)
    assert manifest["version"] == __version__
    assert manifest["server"]["type"] == "python"
    assert manifest["server"]["mcp_config"]["args"][-1] == "${user_config.allowed_folders}"
    setting = manifest["user_config"]["allowed_folders"]
    assert (setting["type"], setting["multiple"], setting["required"]) == ("directory", True, False)
    assert "default" not in setting


def test_the_bundle_lists_every_tool_of_the_catalog() -> None:
    listed = [tool["name"] for tool in _build_mcpb().manifest(__version__)["tools"]]
    assert sorted(listed) == sorted(tool.name for tool in TOOLS)
    assert all(tool["description"] for tool in _build_mcpb().catalog_tools())


def test_the_bundle_launcher_turns_each_folder_into_an_allow_and_drops_unset_values(
    tmp_path: Path,
) -> None:
    launcher = tmp_path / "main.py"
    launcher.write_text(
        _build_mcpb()
        .LAUNCHER.replace('cli(["mcp"', 'print(["mcp"', 1)
        .replace(', prog_name="quire")', ")", 1),
        encoding="utf-8",
    )
    folder = tmp_path / "notes"
    folder.mkdir()
    printed = subprocess.run(
        [sys.executable, str(launcher), str(folder), "", "${user_config.allowed_folders}", "/x"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    assert printed.strip() == str(["mcp", "--only-allowed", f"--allow={folder}", "--allow=/x"])

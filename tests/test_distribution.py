"""The files that describe Quire to installers: the MCP Registry's server.json and its schema."""

import copy
import hashlib
import json
from pathlib import Path
from typing import Any

import click
import jsonschema
import pytest

from quire import __version__
from quire.cli.mcp import TOKEN_ENV, mcp_command

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

"""The import contracts in pyproject.toml name every package and keep core free of
third-party code, so a new package or dependency cannot slip past the layer table."""

from __future__ import annotations

import importlib.metadata
import re
import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = sorted(
    f"quire.{path.parent.name}" for path in (ROOT / "src" / "quire").glob("*/__init__.py")
)


def _config() -> dict[str, Any]:
    with (ROOT / "pyproject.toml").open("rb") as file:
        return tomllib.load(file)


def _contract(name: str) -> dict[str, Any]:
    contracts: list[dict[str, Any]] = _config()["tool"]["importlinter"]["contracts"]
    found = [contract for contract in contracts if contract["name"] == name]
    assert found, f"pyproject.toml has no import contract named {name!r}"
    return found[0]


def _third_party_modules() -> set[str]:
    wanted = {
        re.split(r"[\[<>=!~ ;]", requirement, maxsplit=1)[0].lower().replace("_", "-")
        for requirement in _config()["project"]["dependencies"]
    }
    modules: set[str] = set()
    for module, distributions in importlib.metadata.packages_distributions().items():
        names = {name.lower().replace("_", "-") for name in distributions}
        if names & wanted and not module.startswith("_") and module.isidentifier():
            modules.add(module)
    return modules


def test_the_layers_contract_names_every_package() -> None:
    layers: list[str] = _contract("Layers point downward")["layers"]
    named = {name.strip() for layer in layers for name in re.split(r"[|:]", layer)}
    assert set(PACKAGES) - named == set(), "add these packages to the layers contract"
    assert named - set(PACKAGES) == set(), "the layers contract names packages that do not exist"


def test_core_is_forbidden_every_third_party_dependency() -> None:
    forbidden = set(_contract("core is pure (standard library only)")["forbidden_modules"])
    missing = _third_party_modules() - forbidden
    assert missing == set(), "forbid these modules to quire.core in pyproject.toml"


def test_the_contract_lists_see_every_dependency_module() -> None:
    # The check above is only as good as the module lookup: the core dependencies must show.
    assert {"pydantic", "starlette", "click", "markdown_it", "sqlalchemy"} <= _third_party_modules()

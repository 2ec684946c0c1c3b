"""docs/settings.md is generated from the settings model, and the catalog matches the model."""

from __future__ import annotations

import re
from pathlib import Path

from quire.cli.serve import serve_command
from quire.settings.catalog import FILE_KEYS, SETTINGS
from quire.settings.config_file import file_value, read_config
from quire.settings.model import Settings
from quire.settings.reference import settings_reference

DOCS = Path(__file__).resolve().parents[2] / "docs" / "settings.md"


def test_docs_settings_md_matches_the_settings_model() -> None:
    assert DOCS.read_text(encoding="utf-8") == settings_reference(), (
        "docs/settings.md is out of date: run "
        "`.venv/bin/python -m quire.settings.reference > docs/settings.md`"
    )


def test_the_catalog_names_every_field_of_the_model_once() -> None:
    assert [setting.name for setting in SETTINGS] == list(Settings.model_fields)


def test_every_field_has_a_meaning_in_the_reference() -> None:
    for name, field in Settings.model_fields.items():
        assert field.description, f"Settings.{name} has no description for docs/settings.md"


def test_every_flag_in_the_catalog_is_an_option_or_the_arguments_of_quire_serve() -> None:
    options = {opt for parameter in serve_command.params for opt in parameter.opts}
    arguments = {(parameter.metavar or "").removesuffix("...").strip("[]") for parameter in
                 serve_command.params if parameter.param_type_name == "argument"}  # fmt: skip
    for setting in SETTINGS:
        if setting.flag is not None:
            assert setting.flag in options | arguments, f"{setting.flag} is not a serve flag"


def test_the_example_quire_toml_is_one_the_server_accepts(tmp_path: Path) -> None:
    example = re.search(r"```toml\n(.*?)```", settings_reference(), re.S)
    assert example is not None
    path = tmp_path / "quire.toml"
    path.write_text(example.group(1), encoding="utf-8")
    config = read_config(path)
    assert set(config) == {
        "workspaces",
        "mode",
        "server",
        "chat",
        "approvals",
        "export",
        "preview",
        "history",
    }


def test_the_example_quire_toml_sets_every_key_the_file_may_hold(tmp_path: Path) -> None:
    example = re.search(r"```toml\n(.*?)```", settings_reference(), re.S)
    assert example is not None
    path = tmp_path / "quire.toml"
    path.write_text(example.group(1), encoding="utf-8")
    config = read_config(path)
    for key in FILE_KEYS.values():
        assert file_value(config, key)[0], f"the example quire.toml does not show `{key}`"

"""A click group that imports each subcommand's module only when that command runs.

``quire hook …`` runs on every file an agent writes, so start-up must not pay for the server,
the database and the MCP SDK that other commands need.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

import click


class LazyGroup(click.Group):
    """A group whose commands are named ``module:attribute`` and imported on first use."""

    def __init__(self, *args: Any, lazy_commands: Mapping[str, str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._lazy = dict(lazy_commands)

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Every command name, loaded or not, in name order."""
        return sorted({*super().list_commands(ctx), *self._lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """The command called ``cmd_name``, importing its module the first time."""
        target = self._lazy.pop(cmd_name, None)
        if target is not None:
            module_name, _, attribute = target.partition(":")
            command = getattr(importlib.import_module(module_name), attribute)
            if not isinstance(command, click.Command):
                raise TypeError(f"{target} is not a click command")
            self.add_command(command, cmd_name)
        return super().get_command(ctx, cmd_name)

    def load_all(self) -> dict[str, click.Command]:
        """Import every command (for the reference docs and their tests)."""
        context = click.Context(self)
        for name in list(self._lazy):
            self.get_command(context, name)
        return dict(self.commands)

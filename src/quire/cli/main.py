"""The ``quire`` command group and its entry point.

Commands are imported when they run (see ``lazy.py``), so a hook or ``quire open`` starts fast.
"""

from __future__ import annotations

import click

from quire import __version__
from quire.cli.entry import prepare
from quire.cli.lazy import LazyGroup
from quire.cli.output import unexpected
from quire.cli.startup import RESUMED_BY_THE_COMMAND, startup_done


class QuireGroup(LazyGroup):
    """The top group: an exception a command did not turn into a message (a bug) is printed
    as one ``quire:`` line and exit 1, never as a traceback, whatever the arguments were."""

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        """The command ``args`` name, imported; collection resumes unless it resumes it."""
        name, command, rest = super().resolve_command(ctx, args)
        if name not in RESUMED_BY_THE_COMMAND:
            startup_done()
        return name, command, rest

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except (click.exceptions.ClickException, click.exceptions.Exit, click.Abort):
            raise
        except Exception as error:
            unexpected(error)
            raise AssertionError("unreachable") from error


COMMANDS = {
    "append": "quire.cli.files:append_command",
    "approval": "quire.cli.approval:approval_group",
    "chat": "quire.cli.chat:chat_command",
    "connect": "quire.cli.connect:connect_command",
    "cp": "quire.cli.files:cp_command",
    "diff": "quire.cli.documents:diff_command",
    "doctor": "quire.cli.doctor:doctor_command",
    "export": "quire.cli.export:export_command",
    "history": "quire.cli.history:history_command",
    "login": "quire.cli.login:login_command",
    "logout": "quire.cli.login:logout_command",
    "hook": "quire.cli.hook:hook_group",
    "mcp": "quire.cli.mcp:mcp_command",
    "meta": "quire.cli.documents:meta_command",
    "mv": "quire.cli.files:mv_command",
    "new": "quire.cli.files:new_command",
    "open": "quire.cli.open:open_command",
    "reindex": "quire.cli.reindex:reindex_command",
    "render": "quire.cli.documents:render_command",
    "restore": "quire.cli.history:restore_command",
    "rm": "quire.cli.files:rm_command",
    "serve": "quire.cli.serve:serve_command",
    "setup": "quire.cli.setup:setup_command",
    "show": "quire.cli.history:show_command",
    "tasks": "quire.cli.documents:tasks_command",
    "text": "quire.cli.documents:text_command",
    "trash": "quire.cli.files:trash_command",
    "user": "quire.cli.users:user_group",
    "whoami": "quire.cli.login:whoami_command",
}
"""Each command's name and where it lives, as ``module:attribute``."""


@click.group(
    cls=QuireGroup,
    lazy_commands=COMMANDS,
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.version_option(
    __version__, "-V", "--version", prog_name="quire", message="%(prog)s %(version)s"
)
def cli() -> None:
    """Quire: a Markdown workspace where people and AI coding agents work on the same documents.

    Read, analyse and compare Markdown files from a shell; every command that reads a file
    takes only Markdown documents that are not dotfiles, of at most 16 MiB, in UTF-8.
    """


def main() -> None:
    """Run the ``quire`` command line as ``python -m quire.cli.main`` (the ``quire`` program
    starts at ``quire.cli.entry``, which loads this module only after ``prepare``)."""
    cli(obj=prepare())


if __name__ == "__main__":
    main()

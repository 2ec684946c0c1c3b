"""``quire setup``: Quire's local setup in one step, for a person who just installed it.

Creates the state folder, runs the doctor's checks, offers to connect each agent it finds and
to install the auto-open hook, and prints what it did. A composition root only: the checks are
``quire doctor``'s, the connecting and the hooks ``services.agents``' (as ``quire connect``).
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

import click

from quire import __version__
from quire.api.agents import AgentStatus
from quire.cli.connect import this_machine
from quire.cli.doctor import gather_checks, render_checks
from quire.cli.output import echo_json, reports_errors
from quire.core.state import state_folder
from quire.services.agents import hooks, roster
from quire.services.agents.machine import Machine
from quire.settings.server_file import prepare_state_folder

Action = Literal["done", "already", "declined", "failed", "not offered"]
"""What setup did about one step: made the change, found it made, was told no, tried and
failed, or did not offer it (the agent is not installed, or runs another program)."""


@dataclass(frozen=True)
class Step:
    """One offer and what came of it."""

    name: str
    action: Action
    message: str


class Asker:
    """Puts each offer to the person, or answers it: ``--yes`` accepts every offer, ``--json``
    without ``--yes`` declines (it must not prompt), and once the input ends nothing more is
    asked."""

    def __init__(self, *, yes: bool, quiet: bool) -> None:
        self._yes = yes
        self._quiet = quiet
        self._ended = False

    def accepts(self, question: str) -> bool:
        """Whether the offer ``question`` is taken."""
        if self._yes:
            return True
        if self._quiet or self._ended:
            return False
        try:
            return click.confirm(question, default=True)
        except click.Abort:
            self._ended = True
            click.echo()
            return False


def _offer_agent(status: AgentStatus, machine: Machine, asker: Asker) -> Step:
    if not status.detected:
        return Step(status.name, "not offered", status.detail)
    if status.state == "connected":
        return Step(status.name, "already", status.detail)
    if status.state == "other":
        return Step(status.name, "not offered", status.detail)
    if not asker.accepts(f"Connect {status.name} to Quire ({status.detail})?"):
        return Step(
            status.name,
            "declined",
            f"Not connected; `quire connect {status.id}` connects it later.",
        )
    outcome = roster.connect(status.id, machine)
    return Step(status.name, "done" if outcome.ok else "failed", outcome.message)


def _offer_hook(claude: AgentStatus, machine: Machine, asker: Asker) -> Step:
    name = "auto-open hook"
    hook = hooks.hook_status(machine)
    if hook.installed:
        return Step(name, "already", hook.detail)
    if not claude.detected:
        return Step(name, "not offered", "The auto-open hook is for Claude Code, not installed.")
    question = (
        "Install the auto-open hook (Claude Code opens in Quire each Markdown file it writes)?"
    )
    if not asker.accepts(question):
        return Step(name, "declined", "Not installed; `quire connect hook` installs it later.")
    outcome = roster.change_hooks(machine, chat=False, remove=False)
    return Step(name, "done" if outcome.ok else "failed", outcome.message)


_MARKS: dict[Action, str] = {
    "done": "done",
    "already": "ok  ",
    "declined": "no  ",
    "failed": "FAIL",
    "not offered": "skip",
}

NEXT = (
    "Next: `quire serve ~/notes` serves a folder and prints its login URL; ask your agent to "
    "open its plan in Quire and request your review. `quire connect hook --chat` adds the "
    "chat keep-alive hook; with `[approvals] enabled = true` in quire.toml, `quire connect "
    "hook --approvals` sends the agents' permission prompts to the browser (docs/approvals.md); "
    "`quire connect --print` shows the block for any other MCP client; `quire doctor` checks "
    "again."
)


@click.command("setup")
@click.option("--yes", "-y", is_flag=True, help="Accept every offer without asking.")
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print one JSON object instead (asks nothing: without --yes every offer is declined).",
)
@reports_errors
def setup_command(yes: bool, as_json: bool) -> None:
    """Set Quire up on this machine in one step: create the state folder (~/.quire, or
    $QUIRE_HOME), run the doctor's checks, offer to connect each agent found (Claude Code,
    Codex, Cursor) and to install the auto-open hook, and print what was done.

    Safe to run again: what is already set up is left alone. Exits 1 when a check fails or a
    connection that was accepted did not work.
    """
    state = state_folder(os.environ, Path.home())
    created = not state.exists()
    prepare_state_folder(state)
    checks = gather_checks(state, "quire setup")
    if not as_json:
        click.echo(f"Quire {__version__}: state folder {state}{' (created)' if created else ''}")
        render_checks(checks)
        click.echo()
    machine = this_machine()
    asker = Asker(yes=yes, quiet=as_json)
    statuses = roster.statuses(machine)
    steps = [_offer_agent(status, machine, asker) for status in statuses]
    claude = next(status for status in statuses if status.id == "claude-code")
    steps.append(_offer_hook(claude, machine, asker))
    failed = any(c.status == "fail" for c in checks) or any(s.action == "failed" for s in steps)
    if as_json:
        echo_json(
            {
                "ok": not failed,
                "version": __version__,
                "stateDir": str(state),
                "stateCreated": created,
                "checks": [check.data() for check in checks],
                "steps": [asdict(step) for step in steps],
            }
        )
    else:
        for step in steps:
            click.echo(f"[{_MARKS[step.action]}] {step.name}: {step.message}")
        click.echo(f"\n{NEXT}")
    if failed:
        raise SystemExit(1)

"""``quire doctor``: check what Quire needs, print each problem with its fix, and repair some.

The checks live in ``quire.client.doctor``; this command reads the environment, prints them
(or JSON) and, with ``--fix``, previews the repairs (``--apply`` makes them).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import anyio
import click

from quire.cli.export import StandaloneExport
from quire.client.doctor import Check, run_checks
from quire.core.errors import QuireError
from quire.core.state import state_folder

_MARKS = {"ok": "ok  ", "warn": "warn", "fail": "FAIL"}


def render_checks(checks: list[Check]) -> None:
    """Each check on one line (with its fix below when it is not ok)."""
    for check in checks:
        click.echo(f"[{_MARKS[check.status]}] {check.name}: {check.detail}")
        if check.fix and check.status != "ok":
            click.echo(f"       fix: {check.fix}")


def _repair(checks: list[Check], *, apply: bool) -> list[dict[str, object]]:
    done: list[dict[str, object]] = []
    for check in checks:
        if check.repair is None:
            continue
        entry: dict[str, object] = {"repair": check.repair.description, "applied": False}
        if apply:
            try:
                check.repair.apply()
                entry["applied"] = True
            except OSError as exc:
                entry["error"] = exc.strerror or str(exc)
        done.append(entry)
    return done


def gather_checks(state: Path, caller: str) -> list[Check]:
    """Every doctor check of this machine for the state folder ``state``; a problem that
    keeps one group of checks from running is said on stderr, prefixed with ``caller``."""
    home, cwd = Path.home(), Path.cwd()
    try:
        engines = StandaloneExport(environ=os.environ, home=home, cwd=cwd).service().engines()
    except QuireError as error:  # a bad export.browser setting: say so, check the rest
        click.echo(f"{caller}: cannot check the export engines: {error}", err=True)
        engines = []
    return anyio.run(
        lambda: run_checks(state=state, which=shutil.which, environ=os.environ, engines=engines)
    )


@click.command("doctor")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead.")
@click.option("--fix", is_flag=True, help="Preview the repairs doctor can make.")
@click.option("--apply", is_flag=True, help="With --fix: make the repairs.")
def doctor_command(as_json: bool, fix: bool, apply: bool) -> None:
    """Check the state folder, the server and its token, the workspaces, git, a browser and
    the export engines; print each problem with its fix. Exits 1 when a check fails."""
    if apply and not fix:
        raise click.UsageError("--apply makes the repairs --fix previews: pass --fix --apply.")
    checks = gather_checks(state_folder(os.environ, Path.home()), "quire doctor")
    repairs = _repair(checks, apply=apply) if fix else []
    failed = any(check.status == "fail" for check in checks)
    if as_json:
        report: dict[str, object] = {"ok": not failed, "checks": [c.data() for c in checks]}
        if fix:
            report["repairs"] = repairs
        click.echo(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        render_checks(checks)
        for entry in repairs:
            verb = "done" if entry["applied"] else ("failed" if "error" in entry else "would")
            click.echo(f"repair ({verb}): {entry['repair']}")
        if fix and repairs and not apply:
            click.echo("Run `quire doctor --fix --apply` to make these repairs.")
    if failed:
        raise SystemExit(1)

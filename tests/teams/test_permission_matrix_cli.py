"""The permission matrix of the command line: every ``quire`` command, for the roles of
test_permission_matrix.py, against a real ``quire serve --multi``.

The commands are enumerated from the click tree (``quire.cli.main.cli``, groups walked): a
command without a rule in ``COMMANDS`` fails ``test_every_command_has_a_rule``, so a new
command is judged before it ships. A rule is one of:

- a matrix kind (READ, WRITE, ACCOUNT, WORKSPACE, WORKSPACE_WRITE): the command reaches a
  server this machine signed in to (``@alias/workspace/path.md``, ``@alias``, ``--server
  @alias``, an approvals policy's ``SERVER=@alias``) as the account whose token it saved.
  Each role's client machine ran ``quire login @team URL --token-stdin`` with its account's
  token (before that token was revoked or that account disabled); the owner's machine signed
  in with the server's own token. Each cell runs the command in process (click's CliRunner;
  ``quire mcp --server @team`` as that command builds its server, over an in-memory MCP
  client) on a fresh chat in ``open/`` and in ``secret/`` (whose chats hold ``hunter2``),
  and asserts it allowed (the owner's exit code on a twin chat; for the approval hooks, which
  always exit 0, the card or notice reached the account's own list) or refused: a revoked
  or disabled account's message names ``quire login``, a read-only one says access denied,
  and "not found" is word for word the message of a chat that does not exist. No output of a
  role that may not read ``secret/`` holds ``hunter2``, ``secret/keys.md``, or (allowed, in
  a listing) the cell's secret chat.
- THIS_MACHINE: the command talks only to this machine's own server (server.json, its own
  token: the owner). Where it takes paths or acts on the trash, it is run on the admin's
  signed-in machine with an ``@team/…`` address: refused (exit 1), nothing leaked, nothing
  on the team server changed, so no command falls back to a saved alias.
- LOCAL: the command works on this machine only (the database, files, settings).
"""

from __future__ import annotations

import itertools
import json
import secrets
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import anyio
import click
import httpx
import pytest
from click.testing import CliRunner

from mcp import Client
from quire.cli.chat_context import AS_ENV, SESSION_ENV
from quire.cli.main import cli
from quire.cli.mcp_services import local_services
from quire.client.servers import forget_server, read_servers
from quire.mcp.server import build_server
from tests.teams.remote_world import Machine, RemoteServer, remote_server
from tests.teams.test_permission_matrix import (
    ACCOUNT,
    AREAS,
    LEVELS,
    READ,
    ROLES,
    SECRET_NOTE,
    SECRET_TEXT,
    SIGNED_OUT,
    USERS,
    WORKSPACE,
    WORKSPACE_WRITE,
    WRITE,
    Area,
    Role,
    _expected,
)

THIS_MACHINE = "this-machine"
LOCAL = "local"
ALIAS = "@team"
WORKSPACE_NAME = "team"
HOOK_WAIT_S = 20.0
"""How long an approval hook may take before the cell fails (it ends as soon as it is seen)."""

Who = Role | Literal["owner"]


@dataclass(frozen=True)
class Target:
    """What one cell works on: a fresh chat in ``area`` (``stem`` names it), on the server."""

    area: Area
    stem: str
    workspace: Path
    """The server's workspace folder (the team server runs on this machine)."""

    @property
    def chat(self) -> str:
        return f"{self.area}/{self.stem}-chat.md"

    @property
    def chat_path(self) -> Path:
        return self.workspace / self.chat

    def address(self, relative: str | None = None) -> str:
        """``@team/team/RELATIVE`` (the chat when left out)."""
        return f"{ALIAS}/{WORKSPACE_NAME}/{relative or self.chat}"

    def missing(self) -> Target:
        """The same target under a name nothing has."""
        return Target(self.area, f"absent-{self.stem}", self.workspace)


@dataclass
class Outcome:
    """What a run gave: its exit code, what it printed, and for a command whose effect is
    looked at on the server (the approval hooks, login), whether it took place."""

    code: int
    text: str
    effect: bool | None = None


Runner = Callable[["Team", Who, Target], Outcome]


@dataclass(frozen=True)
class Command:
    """The rule of one command: its kind (a matrix kind, THIS_MACHINE or LOCAL) and how a
    cell runs it."""

    kind: str
    argv: Callable[[Target], list[str]] | None = None
    run: Runner | None = None
    """Runs the cell itself (the hooks, login, mcp); else ``argv`` through the CLI."""
    check: Callable[[Outcome, Who], bool] | None = None
    """What an allowed outcome must also show."""
    names_target: bool = True
    """Whether a refusal can be compared with the same command on a missing chat."""
    why: str = ""
    whole_group: bool = False
    """A rule on a group that covers every command in it."""


# The world: one real server per test module (and xdist worker), every role a machine.


@dataclass
class Team:
    """The running server, each role's client machine (signed in as ``@team``) and token,
    and HTTP clients to make cells (the owner's) and to look at what a role's run did."""

    server: RemoteServer
    machines: dict[Who, Machine]
    tokens: dict[Who, str]
    owner: httpx.Client
    clients: dict[Who, httpx.Client]
    counter: Iterator[int]

    def target(self, area: Area) -> Target:
        """A fresh chat in ``area`` with one message of the owner's."""
        stem = f"c{next(self.counter):03d}-{secrets.token_hex(2)}"
        target = Target(area, stem, self.server.workspace)
        made = self.owner.post("/api/chats", json={"path": str(target.chat_path)})
        assert made.status_code == 200, made.text
        secret = SECRET_TEXT if area == "secret" else "plain"
        posted = self.owner.post(
            "/api/chats/post",
            json={"path": str(target.chat_path), "as": "owner", "body": f"psst {secret}"},
        )
        assert posted.status_code == 200, posted.text
        return target


def quire(machine: Machine, *args: str, stdin: str = "") -> Outcome:
    """``quire ARGS`` on ``machine``, in this process (its home and state folder, no session
    or chat name from the environment that runs the tests)."""
    unset: dict[str, str | None] = dict.fromkeys((*AS_ENV, *SESSION_ENV))
    env = {**unset, "HOME": str(machine.home), "QUIRE_HOME": str(machine.state)}
    result = CliRunner().invoke(cli, list(args), input=stdin, env=env)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return Outcome(result.exit_code, result.stdout + result.stderr)


@pytest.fixture(scope="module")
def team(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Team]:
    base = tmp_path_factory.mktemp("matrix-cli")
    with remote_server(base, toml="[approvals]\nenabled = true\n") as server:
        owner = httpx.Client(
            base_url=server.url, headers={"Authorization": f"Bearer {server.owner_token}"}
        )
        tokens: dict[Who, str] = {"owner": server.owner_token, **_accounts(server, owner)}
        machines: dict[Who, Machine] = {}
        for who, token in tokens.items():
            machine = server.machine(base / f"laptop-{who}")
            signed = quire(machine, "login", ALIAS, server.url, "--token-stdin", stdin=token)
            assert signed.code == 0, signed.text
            (machine.state / "approvals.conf").write_text(
                f"SERVER={ALIAS}\nMACHINE_LABEL=laptop\n", encoding="utf-8"
            )
            machines[who] = machine
        # Signed in while they could; now the token is revoked and the account disabled.
        (listed,) = json.loads(server.user("tokens", USERS["revoked"], "--json"))
        server.user("revoke-token", USERS["revoked"], listed["id"])
        server.user("disable", USERS["disabled"])
        clients = {
            who: httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {token}"})
            for who, token in tokens.items()
        }
        try:
            yield Team(server, machines, tokens, owner, clients, itertools.count(1))
        finally:
            for client in (owner, *clients.values()):
                client.close()


def _accounts(server: RemoteServer, owner: httpx.Client) -> dict[Who, str]:
    """The roles' accounts, with the grants LEVELS gives them, made with ``quire user`` (the
    member's through the group ``crew``, on the admin page's API: no command makes groups
    yet); each account's API token."""
    roles = {"superadmin": "superadmin", "admin": "admin"}
    for role in ROLES:
        server.user("add", USERS[role], "--no-password", "--role", roles.get(role, "collaborator"))
        access, secret = LEVELS[role]["open"], LEVELS[role]["secret"]
        if access is None or role == "member":
            continue
        prefix = [] if secret == access else ["open"]
        server.user("grant", USERS[role], WORKSPACE_NAME, *prefix, "--access", access)
    for path, body in (
        ("/api/admin/groups", {"name": "crew"}),
        ("/api/admin/groups/members", {"group": "crew", "username": USERS["member"]}),
        (
            "/api/admin/grants",
            {"group": "crew", "workspace": WORKSPACE_NAME, "prefix": "open", "access": "read"},
        ),
    ):
        done = owner.post(path, json=body)
        assert done.status_code == 200, done.text
    return {role: server.user("token", USERS[role]).strip().splitlines()[0] for role in ROLES}


# How the commands that need more than their arguments are run.


def _cli(argv: Callable[[Target], list[str]]) -> Runner:
    return lambda team, who, target: quire(team.machines[who], *argv(target))


def _login(team: Team, who: Who, target: Target) -> Outcome:
    """``quire login @again URL`` with the account's token: saved only when it signs in."""
    machine = team.machines[who]
    forget_server(machine.state, "again")
    ran = quire(
        machine, "login", "@again", team.server.url, "--token-stdin", stdin=team.tokens[who]
    )
    ran.effect = "again" in read_servers(machine.state)
    return ran


def _mcp(team: Team, who: Who, target: Target) -> Outcome:
    """``quire mcp --server @team``'s server (built as that command builds it, served over
    an in-memory client instead of stdio): one ``post_chat``."""

    machine = team.machines[who]

    async def call() -> Outcome:
        services = local_services(
            environ={"HOME": str(machine.home), "QUIRE_HOME": str(machine.state)},
            cwd=machine.home,
            home=machine.home,
            allow=(),
            use_roots=False,
            server=ALIAS,
        )
        try:
            async with Client(build_server(services)) as client:
                result = await client.call_tool(
                    "post_chat", {"path": str(target.chat_path), "body": "hi"}
                )
        finally:
            await services.link.aclose()
        text = "\n".join(getattr(block, "text", "") for block in result.content)
        return Outcome(1 if result.is_error else 0, text)

    return anyio.run(call)


def _hook(agent_command: str, payload: Callable[[Target], dict[str, Any]]) -> Runner:
    return lambda team, who, target: quire(
        team.machines[who],
        "approval",
        agent_command,
        "--agent",
        "claude-code",
        stdin=json.dumps(payload(target)),
    )


def _session(target: Target) -> str:
    return f"s-{target.stem}"


def _listed(team: Team, who: Who, target: Target, kind: str) -> bool:
    """Whether the account's own approvals list holds the target session's ``kind``."""
    if who in SIGNED_OUT:
        return False
    found = team.clients[who].get("/api/approvals").json()
    return any(item.get("sessionId") == _session(target) for item in found[kind])


def _request(team: Team, who: Who, target: Target) -> Outcome:
    """The PermissionRequest hook, its cwd in the target's folder: while it waits for the
    person, the card must show in the account's list; it is then answered in the terminal
    (``/api/approvals/done``), which ends the wait."""
    hook = {
        "hook_event_name": "PermissionRequest",
        "session_id": _session(target),
        "cwd": str(target.workspace / target.area),
        "tool_name": "Bash",
        "tool_input": {"command": f"echo {target.stem}"},
    }
    argv = ["approval", "request", "--agent", "claude-code", "--timeout", str(int(HOOK_WAIT_S))]
    seen = False
    with ThreadPoolExecutor(1) as pool:
        running = pool.submit(quire, team.machines[who], *argv, stdin=json.dumps(hook))
        deadline = time.monotonic() + HOOK_WAIT_S
        while not running.done() and time.monotonic() < deadline:
            if _listed(team, who, target, "approvals"):
                seen = True
                done = team.clients[who].post(
                    "/api/approvals/done", json={"session_id": _session(target)}
                )
                assert done.status_code == 200, done.text
                break
            time.sleep(0.02)
        ran = running.result(timeout=HOOK_WAIT_S)
    ran.effect = seen
    return ran


def _notify(team: Team, who: Who, target: Target) -> Outcome:
    ran = _hook(
        "notify", lambda t: {"session_id": _session(t), "notification_type": "idle_prompt"}
    )(team, who, target)
    ran.effect = _listed(team, who, target, "notices")
    return ran


def _done(team: Team, who: Who, target: Target) -> Outcome:
    """The PostToolUse hook ends the session's notice the account's agent raised."""
    if who not in SIGNED_OUT:
        raised = team.clients[who].post(
            "/api/notices",
            json={
                "session_id": _session(target),
                "harness": "claude-code",
                "machine_label": "laptop",
                "kind": "idle",
            },
        )
        assert raised.status_code == 200, raised.text
    ran = _hook("done", lambda t: {"session_id": _session(t)})(team, who, target)
    ran.effect = who not in SIGNED_OUT and not _listed(team, who, target, "notices")
    return ran


def _as_account(outcome: Outcome, who: Who) -> bool:
    return who == "owner" or f"You are {USERS[who]} " in outcome.text


def _probe(argv: Callable[[Target], list[str]]) -> Command:
    return Command(THIS_MACHINE, argv, why="this machine's server only: its own token")


def _local(why: str, *, whole_group: bool = False) -> Command:
    return Command(LOCAL, why=why, whole_group=whole_group)


COMMANDS: dict[str, Command] = {
    # Through a server signed in to with `quire login`, as the account.
    "chat new": Command(WRITE, lambda t: ["chat", "new", t.address(f"{t.area}/{t.stem}-new.md")]),
    "chat read": Command(READ, lambda t: ["chat", "read", t.address(), "--as", "bot"]),
    "chat post": Command(WRITE, lambda t: ["chat", "post", t.address(), "hi", "--as", "bot"]),
    "chat wait": Command(
        READ,
        lambda t: ["chat", "wait", t.address(), "--as", "bot", "--after", "0", "--timeout", "1"],
    ),
    "chat leave": Command(READ, lambda t: ["chat", "leave", t.address(), "--as", "bot"]),
    "chat list": Command(ACCOUNT, lambda t: ["chat", "list", ALIAS, "--as", "bot"]),
    "chat gifs": Command(
        WORKSPACE, lambda t: ["chat", "gifs", f"{ALIAS}/{WORKSPACE_NAME}"], names_target=False
    ),
    "chat avatar": Command(
        WORKSPACE_WRITE,
        lambda t: ["chat", "avatar", f"{ALIAS}/{WORKSPACE_NAME}", "--pick", "fox", "--as", "bot"],
        names_target=False,
    ),
    "whoami": Command(ACCOUNT, lambda t: ["whoami", ALIAS], check=_as_account),
    "login": Command(ACCOUNT, run=_login, check=lambda outcome, who: bool(outcome.effect)),
    "mcp": Command(WRITE, run=_mcp),
    "approval request": Command(ACCOUNT, run=_request),
    "approval notify": Command(ACCOUNT, run=_notify),
    "approval done": Command(ACCOUNT, run=_done),
    # This machine's own server, with its own token (the owner).
    "append": _probe(lambda t: ["append", t.address(), "more"]),
    "cp": _probe(lambda t: ["cp", t.address(), t.address(f"{t.area}/{t.stem}-copy.md")]),
    "mv": _probe(lambda t: ["mv", t.address(), t.address(f"{t.area}/{t.stem}-moved.md")]),
    "new": _probe(lambda t: ["new", t.address(f"{t.area}/{t.stem}-new.md")]),
    "rm": _probe(lambda t: ["rm", t.address()]),
    "history": _probe(lambda t: ["history", t.address()]),
    "show": _probe(lambda t: ["show", f"{t.address()}@HEAD"]),
    "restore": _probe(lambda t: ["restore", f"{t.address()}@HEAD"]),
    "trash list": _probe(lambda t: ["trash", "list"]),
    "trash restore": _probe(lambda t: ["trash", "restore", "1"]),
    "trash empty": _probe(lambda t: ["trash", "empty"]),
    "open": Command(THIS_MACHINE, why="shows a file of this machine in its own server's window"),
    "reindex": Command(
        THIS_MACHINE, why="rebuilds this machine's index, or asks its own server to"
    ),
    "hook post-tool-use": Command(
        THIS_MACHINE, why="opens an edited file in this machine's server"
    ),
    "chat keepalive": Command(THIS_MACHINE, why="asks this machine's server about the session"),
    # This machine only.
    "serve": _local("runs a server"),
    "user": _local("works on the server's database itself", whole_group=True),
    "connect": _local("writes this machine's agent settings", whole_group=True),
    "setup": _local("sets this machine up"),
    "doctor": _local("checks this machine"),
    "logout": _local("forgets a saved server here (the token stays valid on it)"),
    "approval check": _local("reads this machine's approvals policy"),
    "approval hook-config": _local("prints a settings block"),
    "export": _local("exports files of this machine, in process"),
    "text": _local("reads a file of this machine"),
    "meta": _local("reads a file of this machine"),
    "tasks": _local("reads a file of this machine"),
    "diff": _local("reads files of this machine"),
    "render": _local("reads a file of this machine"),
}

REMOTE_KINDS = frozenset({READ, WRITE, ACCOUNT, WORKSPACE, WORKSPACE_WRITE})


def _command_paths() -> list[str]:
    """Every command of the click tree, as typed after ``quire`` (a group that runs by
    itself counts as a command too)."""
    found: list[str] = []

    def walk(group: click.Group, prefix: str, parent: click.Context) -> None:
        for name in group.list_commands(parent):
            command = group.get_command(parent, name)
            assert command is not None, name
            path = f"{prefix} {name}".strip()
            if isinstance(command, click.Group):
                if command.invoke_without_command:
                    found.append(path)
                walk(command, path, click.Context(command, info_name=name, parent=parent))
            else:
                found.append(path)

    walk(cli, "", click.Context(cli, info_name="quire"))
    return found


def _rule_of(path: str) -> Command | None:
    if path in COMMANDS:
        return COMMANDS[path]
    words = path.split()
    for end in range(len(words) - 1, 0, -1):
        rule = COMMANDS.get(" ".join(words[:end]))
        if rule is not None and rule.whole_group:
            return rule
    return None


def test_every_command_has_a_rule() -> None:
    paths = _command_paths()
    missing = [path for path in paths if _rule_of(path) is None]
    assert not missing, f"quire commands without a rule in COMMANDS: {missing}"
    stale = [
        name
        for name, rule in COMMANDS.items()
        if name not in paths
        and not (rule.whole_group and any(p.startswith(f"{name} ") for p in paths))
    ]
    assert not stale, f"rules for commands quire does not have: {stale}"
    assert all(rule.kind in (REMOTE_KINDS | {THIS_MACHINE, LOCAL}) for rule in COMMANDS.values())
    assert all(rule.why for rule in COMMANDS.values() if rule.kind in (THIS_MACHINE, LOCAL))


# The cells.


def _runner(command: Command) -> Runner:
    if command.run is not None:
        return command.run
    assert command.argv is not None
    return _cli(command.argv)


def _leaks(outcome: Outcome, role: Role, refused: int | None, target: Target) -> list[str]:
    may_read_secret = LEVELS[role]["secret"] is not None and role not in SIGNED_OUT
    if may_read_secret and refused is None:
        return []
    found = [text for text in (SECRET_TEXT, SECRET_NOTE) if text in outcome.text]
    if target.area == "secret" and refused is None and target.chat_path.name in outcome.text:
        found.append(target.chat_path.name)
    return found


def _judge(team: Team, command: Command, role: Role, area: Area) -> str | None:
    """One cell: the role's run on a fresh chat in ``area``, judged by the rule."""
    run = _runner(command)
    refused = _expected(command.kind, role, area)
    target = team.target(area)
    outcome = run(team, role, target)
    leaks = _leaks(outcome, role, refused, target)
    if leaks:
        return f"exit {outcome.code}: leaked {leaks}"
    if refused is None:
        return _judge_allowed(team, command, role, area, outcome)
    return _judge_refused(team, command, role, target, outcome, refused)


def _judge_allowed(
    team: Team, command: Command, role: Role, area: Area, outcome: Outcome
) -> str | None:
    if outcome.effect is False:
        return (
            f"allowed, but nothing reached the account: exit {outcome.code} {outcome.text[:200]!r}"
        )
    if command.check is not None and not command.check(outcome, role):
        return f"allowed, but not as the account: {outcome.text[:200]!r}"
    if outcome.effect is None:
        owners = _runner(command)(team, "owner", team.target(area))
        if outcome.code != owners.code:
            return f"allowed, exit {outcome.code} (owner {owners.code}): {outcome.text[:200]!r}"
    return None


def _judge_refused(
    team: Team, command: Command, role: Role, target: Target, outcome: Outcome, refused: int
) -> str | None:
    shown = f"exit {outcome.code} {outcome.text[:200]!r}"
    if outcome.effect:
        return f"expected {refused}, but it took place: {shown}"
    if outcome.effect is None and outcome.code == 0:
        return f"expected {refused}, got {shown}"
    if refused == 401:
        # The one message of a token that stopped working: make a new one, sign in again.
        if f"quire login {ALIAS}" not in outcome.text and "quire login @again" not in outcome.text:
            return f"expected the signed-out message, got {shown}"
        return None
    if refused == 403:
        return None if "Access denied" in outcome.text else f"expected access denied, got {shown}"
    if command.names_target:
        # "Not found" is what a chat that does not exist gets, word for word.
        missing = _runner(command)(team, role, target.missing())
        expected = missing.text.replace(f"absent-{target.stem}", target.stem)
        if (missing.code, expected) != (outcome.code, outcome.text):
            return (
                f"expected the missing chat's exit {missing.code} {expected[:200]!r}, got {shown}"
            )
    return None


REMOTE = sorted(name for name, rule in COMMANDS.items() if rule.kind in REMOTE_KINDS)


@pytest.mark.parametrize("name", REMOTE)
def test_command(team: Team, name: str) -> None:
    command = COMMANDS[name]
    failures: list[str] = []
    for role in ROLES:
        for area in AREAS:
            try:
                failure = _judge(team, command, role, area)
            except Exception as error:  # a cell that could not even run
                failure = f"error: {error!r}"[:300]
            if failure is not None:
                failures.append(f"{role:<10} {area:<6} {failure}")
    assert not failures, f"quire {name}:\n" + "\n".join(failures)


PROBED = sorted(
    name for name, rule in COMMANDS.items() if rule.kind == THIS_MACHINE and rule.argv is not None
)


@pytest.mark.parametrize("name", PROBED)
def test_a_command_of_this_machine_never_reaches_a_signed_in_server(team: Team, name: str) -> None:
    command = COMMANDS[name]
    assert command.argv is not None
    target = team.target("secret")
    before = target.chat_path.read_text(encoding="utf-8")
    trashed = team.owner.get("/api/trash").json()
    ran = quire(team.machines["admin"], *command.argv(target))
    assert ran.code == 1, ran.text
    assert SECRET_TEXT not in ran.text and SECRET_NOTE not in ran.text
    assert target.chat_path.read_text(encoding="utf-8") == before
    assert team.owner.get("/api/trash").json() == trashed

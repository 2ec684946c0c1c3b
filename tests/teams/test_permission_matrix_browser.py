"""The permission matrix for a browser session: the routes of test_permission_matrix.py's
ROUTES, for its roles and areas, signed in through the real sign-in form instead of a token.

Every role's browser gets its session cookie from ``GET /login`` then ``POST /login`` (the
form's CSRF value, the app's own Origin, as a browser sends them) and sends the app's Origin
with every request. The two signed-out roles keep a dead cookie: ``revoked`` signed out at
``POST /logout``, ``disabled`` signed in and then had its account disabled. The accounts use
a cheap argon2 hasher (``cheap_passwords``), so that signing eight browsers in costs
milliseconds; the form, the cookie and the session checks are the product's.

- ``test_route_in_a_browser``: every route whose rule depends on the account's grants, role
  or way of signing in (every kind but OPEN, SIGN_IN, ACCOUNT and BROWSER_ONLY), and the
  ACCOUNT routes that list workspace content (search, titles, files, trash, chats…; in
  ``secret/`` only, where they could leak), generated from ROUTES, in shards of a few routes
  per world, each cell judged by the token matrix's own ``_judge``: the cookie reaches the
  same grant checks, answers the same statuses and leaks nothing more. Left to the token
  matrix: the other ACCOUNT routes (pages, rendering, notices: any account's, holding no
  workspace content) and the history routes, whose cells need a world that commits every
  change to git (ten times the cost of a cell). Each shard also sends each of its routes
  from the admin's browser with a foreign Origin (a page of another site): 403, nothing
  leaked, the target untouched.
- ``test_browser_only_routes``: the routes ROUTES marks BROWSER_ONLY are allowed for the
  account's browser (2xx; an approval decided is the account's own, which its agent asked
  for with its token) and refused to the same account's token (403 ``BrowserLoginNeeded``).
- ``test_websocket_joins_in_a_browser``: the live editing and events sockets joined with the
  session cookie, closed or kept open as with a token.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import anyio
import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from quire.web.auth import SESSION_COOKIE
from tests.services.users.world import cheap_passwords
from tests.support.team import BASE_URL, PASSWORD, TeamWorld, team_world
from tests.teams.test_permission_matrix import (
    ACCOUNT,
    AREAS,
    BROWSER_ONLY,
    LEVELS,
    OPEN,
    PENDING,
    ROLES,
    ROUTES,
    SECRET_TEXT,
    SIGN_IN,
    SIGNED_OUT,
    USERS,
    Area,
    Cell,
    Failure,
    Matrix,
    Role,
    Rule,
    _cell,
    _cell_leaks,
    _expected,
    _judge,
    _keeps_history,
    _leaks,
    _matrix,
    _route_keys,
    _send,
    ask_approval,
)
from tests.web.live_server import live_server

pytestmark = pytest.mark.anyio

FOREIGN_ORIGIN = "https://evil.example"
SHARD_SIZE = 8
"""Routes per world: a world costs half a second, and a world that grew slows every cell."""

SKIPPED_KINDS = frozenset({OPEN, SIGN_IN, ACCOUNT, BROWSER_ONLY})
"""OPEN needs no sign-in, SIGN_IN is the form itself (test_sign_in.py, test_login_hardening.py),
ACCOUNT is any account's (but for its listings, see the docstring), BROWSER_ONLY is judged
apart (allowed here, refused to a token)."""


def _is_listing(key: str, rule: Rule) -> bool:
    """An ACCOUNT route that reads workspace content (search, files, trash, chats…), filtered
    by the account's access; the API's own description holds none."""
    return rule.kind == ACCOUNT and key.startswith("GET /api/") and key != "GET /api/openapi.json"


def _browser_keys() -> list[str]:
    return [
        key
        for key, rule in ROUTES.items()
        if rule.build is not None
        and not key.startswith("WS ")
        and not _keeps_history(rule.prepare)
        and (rule.kind not in SKIPPED_KINDS or _is_listing(key, rule))
    ]


def _shards() -> dict[str, list[str]]:
    """The routes by rule kind, in shards of at most SHARD_SIZE (``read-1``, ``read-2``…)."""
    by_kind: dict[str, list[str]] = defaultdict(list)
    for key in _browser_keys():
        by_kind[ROUTES[key].kind].append(key)
    shards: dict[str, list[str]] = {}
    for kind, keys in by_kind.items():
        for number, start in enumerate(range(0, len(keys), SHARD_SIZE), start=1):
            shards[f"{kind}-{number}"] = keys[start : start + SHARD_SIZE]
    return shards


SHARDS = _shards()


@dataclass
class Browsers:
    """The matrix with each role's browser as its client, the same roles' token clients, and
    each browser's session id (a dead one for the signed-out roles)."""

    matrix: Matrix
    tokens: Matrix
    sessions: dict[Role, str]


@pytest.fixture
def cheap_hashing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Team servers made in this test hash passwords with the cheapest argon2 parameters."""
    monkeypatch.setattr("quire.services.users.team.Passwords", cheap_passwords)


async def _sign_in(world: TeamWorld, username: str) -> httpx.AsyncClient:
    """A browser signed in through the form, sending the app's Origin from then on."""
    client = world.client({"Origin": BASE_URL})
    form = await client.get("/login")
    assert form.status_code == 200, form.text
    csrf = re.search(r'name="csrf" value="([^"]+)"', form.text)
    assert csrf is not None
    answer = await client.post(
        "/login", data={"username": username, "password": PASSWORD, "csrf": csrf.group(1)}
    )
    assert answer.status_code == 303, answer.text
    assert client.cookies.get(SESSION_COOKIE)
    return client


async def _browsers(world: TeamWorld) -> Browsers:
    """Every role signed in through the form; the signed-out roles' sessions then ended."""
    tokens = await _matrix(world)
    team = world.team
    await team.accounts.set_disabled(USERS["disabled"], False)
    for role in ROLES:
        await team.accounts.set_password(USERS[role], PASSWORD)
    browsers = {role: await _sign_in(world, USERS[role]) for role in ROLES}
    sessions = {role: str(browsers[role].cookies.get(SESSION_COOKIE)) for role in ROLES}
    signed_out = await browsers["revoked"].post("/logout", follow_redirects=False)
    assert signed_out.status_code == 303, signed_out.text
    browsers["revoked"] = world.client(
        {"Origin": BASE_URL, "Cookie": f"{SESSION_COOKIE}={sessions['revoked']}"}
    )
    await team.accounts.set_disabled(USERS["disabled"], True)
    return Browsers(Matrix(world, browsers), tokens, sessions)


def test_the_shards_hold_every_route_judged_in_a_browser() -> None:
    held = [key for keys in SHARDS.values() for key in keys]
    assert sorted(held) == sorted(_browser_keys())
    assert len(held) == len(set(held))
    assert all(len(keys) <= SHARD_SIZE for keys in SHARDS.values())


@pytest.mark.slow
@pytest.mark.parametrize("shard", sorted(SHARDS))
async def test_route_in_a_browser(tmp_path: Path, shard: str, cheap_hashing: None) -> None:
    failures: list[str] = []
    async with team_world(tmp_path) as world:
        served = _route_keys(world)
        browsers = await _browsers(world)
        for key in SHARDS[shard]:
            if key in PENDING and key not in served:
                continue  # another branch adds it (see PENDING)
            rule = ROUTES[key]
            # A listing's cell in open/ shows only that it answers; secret/ is where it leaks.
            areas: tuple[Area, ...] = ("secret",) if rule.kind == ACCOUNT else AREAS
            for role in ROLES:
                for area in areas:
                    try:
                        failure = await _judge(browsers.matrix, key, rule, role, area)
                    except Exception as error:  # a cell that could not even run
                        failure = Failure(role, area, f"error: {error!r}"[:300])
                    if failure is not None:
                        failures.append(f"{key}: {failure}")
            crossed = await _cross_site(browsers.matrix, rule)
            if crossed is not None:
                failures.append(f"{key}: {crossed}")
    assert not failures, f"{shard}:\n" + "\n".join(failures)


async def _cross_site(matrix: Matrix, rule: Rule) -> str | None:
    """The route sent from the admin's browser (which may do anything to ``open/``) by a page
    of another site: refused before any route runs."""
    assert rule.build is not None
    cell = await _cell(matrix, "open", rule, "admin")
    before = cell.target.read_text(encoding="utf-8")
    call = rule.build(cell)
    answer = await matrix.clients["admin"].request(
        call.method,
        call.url,
        json=call.json,
        params=call.params,
        content=call.content,
        headers={"Origin": FOREIGN_ORIGIN},
        follow_redirects=False,
    )
    if answer.status_code != 403 or _leaks(matrix, answer):
        return f"cross-site: expected 403, got {answer.status_code} {answer.text[:160]!r}"
    if not cell.target.exists() or cell.target.read_text(encoding="utf-8") != before:
        return "cross-site: the target changed"
    return None


BROWSER_ONLY_KEYS = [
    key for key, rule in ROUTES.items() if rule.kind == BROWSER_ONLY and rule.build is not None
]


def test_browser_only_routes_are_the_approval_decision_and_the_account_secrets() -> None:
    assert sorted(BROWSER_ONLY_KEYS) == [
        "POST /api/account/password",
        "POST /api/account/tokens",
        "POST /api/approvals/{approval_id}/decision",
    ]


@pytest.mark.parametrize("key", BROWSER_ONLY_KEYS)
async def test_browser_only_routes(tmp_path: Path, key: str, cheap_hashing: None) -> None:
    rule = ROUTES[key]
    assert rule.build is not None
    failures: list[Failure] = []
    async with team_world(tmp_path) as world:
        if key in PENDING and key not in _route_keys(world):
            pytest.skip(f"{key} is not served by this app (another branch adds it)")
        browsers = await _browsers(world)
        for role in ROLES:
            for area in AREAS:
                try:
                    failure = await _judge_browser_only(browsers, rule, role, area)
                except Exception as error:
                    failure = Failure(role, area, f"error: {error!r}"[:300])
                if failure is not None:
                    failures.append(failure)
    assert not failures, f"{key}:\n" + "\n".join(str(failure) for failure in failures)


async def _judge_browser_only(
    browsers: Browsers, rule: Rule, role: Role, area: Area
) -> Failure | None:
    """The role's token is refused (403 BrowserLoginNeeded), its browser allowed (2xx); a
    signed-out role gets 401 either way. An approval decided is the account's own."""
    assert rule.build is not None
    matrix = browsers.matrix
    answers: dict[str, httpx.Response] = {}
    for signed_by, clients in (("token", browsers.tokens), ("browser", matrix)):
        cell = await _cell(matrix, area, Rule(rule.kind), role)
        if "approval" in rule.prepare:
            await _own_approval(browsers, cell, role)
        answer = await _send(clients.clients[role], rule.build(cell))
        assert answer is not None
        refused = None if signed_by == "browser" else _expected(BROWSER_ONLY, role, area)
        if role in SIGNED_OUT:
            refused = 401
        leaks = _cell_leaks(matrix, cell, answer, role, refused)
        if leaks:
            return Failure(role, area, f"{signed_by} {answer.status_code}: leaked {leaks}")
        answers[signed_by] = answer
    token, browser = answers["token"], answers["browser"]
    if role in SIGNED_OUT:
        if (token.status_code, browser.status_code) != (401, 401):
            return Failure(
                role, area, f"expected 401, got {token.status_code}/{browser.status_code}"
            )
        return None
    if token.status_code != 403 or "BrowserLoginNeeded" not in token.text:
        return Failure(
            role, area, f"token: expected 403, got {token.status_code} {token.text[:160]!r}"
        )
    if not 200 <= browser.status_code < 300:
        return Failure(
            role, area, f"browser: expected 2xx, got {browser.status_code} {browser.text[:160]!r}"
        )
    return None


async def _own_approval(browsers: Browsers, cell: Cell, role: Role) -> None:
    """The cell's approval: one the role's own agent asked for with its token (the owner's for
    a signed-out role, whose token asks nothing)."""
    world = browsers.matrix.world
    asker = world.owner if role in SIGNED_OUT else browsers.tokens.clients[role]
    await ask_approval(asker, cell, "from its own agent")


WS_KEYS = [key for key in ROUTES if key.startswith("WS ")]
WS_WINDOW_S = 1.0
"""How long an allowed socket must stay open (a refused one closes at once)."""


@pytest.mark.parametrize("key", WS_KEYS)
async def test_websocket_joins_in_a_browser(tmp_path: Path, key: str, cheap_hashing: None) -> None:
    rule = ROUTES[key]
    failures: list[Failure] = []
    async with team_world(tmp_path) as world:
        browsers = await _browsers(world)
        matrix = browsers.matrix
        async with live_server(world.app) as port:
            origin = f"http://127.0.0.1:{port}"
            cells = [
                (role, area, await _cell(matrix, area, rule, role))
                for role in ROLES
                for area in AREAS
            ]

            async def join(role: Role, area: Area, doc_id: str) -> None:
                path = key.split(" ", 1)[1].replace("{doc_id}", doc_id)
                headers = {
                    "Cookie": f"{SESSION_COOKIE}={browsers.sessions[role]}",
                    "Origin": origin,
                }
                failure = await _join(f"ws://127.0.0.1:{port}{path}", headers, rule, role, area)
                if failure is not None:
                    failures.append(failure)

            async with anyio.create_task_group() as group:
                for role, area, cell in cells:
                    group.start_soon(join, role, area, cell.doc_id)
    assert not failures, f"{key}:\n" + "\n".join(str(failure) for failure in failures)


async def _join(
    url: str, headers: dict[str, str], rule: Rule, role: Role, area: Area
) -> Failure | None:
    """Join as a browser does (its cookie and page's Origin): a refused join is closed at
    once with the rule's code, an allowed one stays open; hunter2 only reaches its readers."""
    refused = _expected(rule.kind, role, area)
    code: int | None = None
    got = b""
    async with connect(url, additional_headers=headers) as socket:
        try:
            with anyio.move_on_after(WS_WINDOW_S):
                while True:
                    message = await socket.recv()
                    got += message if isinstance(message, bytes) else message.encode()
        except ConnectionClosed as closed:
            code = None if closed.rcvd is None else closed.rcvd.code
    may_read_secret = LEVELS[role]["secret"] is not None and role not in SIGNED_OUT
    if SECRET_TEXT.encode() in got and not (may_read_secret and refused is None):
        return Failure(role, area, "leaked hunter2 on the socket")
    if refused == 401 and code != 4401:
        return Failure(role, area, f"expected 4401, got {code}")
    if refused in (403, 404) and code not in (4403, 4404):
        return Failure(role, area, f"expected 4403/4404, got {code}")
    if refused is None and code not in (None, 1000):
        return Failure(role, area, f"allowed, closed with {code}")
    return None

"""The permission matrix: every route of the app, every MCP tool and resource, for every role,
asserted.

The cells are generated from the app's own route list (``create_app(services).routes``, with
their methods), from the MCP tool catalog (tests/mcp/tool_catalog.json) and from the MCP
resources Quire offers (``quire.mcp.resources``): a route, tool or resource without a rule in
``ROUTES`` / ``TOOLS`` / ``RESOURCES`` fails ``test_every_route_has_a_rule`` /
``test_every_tool_has_a_rule`` / ``test_every_resource_has_a_rule``, so nothing new ships
unjudged.

This module: every HTTP route and WebSocket join with each role's API token, and every MCP
tool and resource through each role's MCP server. Beside it, with the same roles, areas, rules
and judges:

- test_permission_matrix_browser.py: the ROUTES whose rule depends on the grants, the role or
  the way of signing in, with a browser session (the cookie of the real sign-in form) instead
  of a token; the BROWSER_ONLY routes allowed to the session and refused to the token;
  cross-site requests refused; the WebSocket joins;
- test_permission_matrix_cli.py: every ``quire`` command (enumerated from the click tree,
  with its own rule table) against a real ``quire serve --multi``, from client machines
  signed in with ``quire login``.

Roles (one account each, signed in with an API token):

- ``superadmin``: manages accounts; no grant, so no note content.
- ``admin``: a workspace admin (role ``admin``) with write on the whole workspace.
- ``writer``: write on ``open/``.  ``reader``: read on ``open/``.
- ``member``: read on ``open/`` through the access group ``crew``.
- ``stranger``: an account with no grant.
- ``revoked``: write on everything, but its token was revoked.
- ``disabled``: write on everything, but the account is disabled.

Each cell runs one request on a fresh target of its own, in ``open/`` and in ``secret/`` (whose
notes hold ``hunter2``), and asserts it is allowed (the answer the owner gets for the same
request on a twin target, status for status) or refused with the rule's status; no refused
answer, and no allowed answer of a role that may not read ``secret/``, holds ``hunter2`` or a
secret note's path.
"""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import quote

import anyio
import httpx
import pytest
from mcp.shared.exceptions import MCPError
from starlette.routing import Route, WebSocketRoute
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from quire.mcp.resources import CURRENT_URI, RECENT_URI, SEARCH_TEMPLATE, STATIC, TEMPLATE
from quire.mcp.uris import SEARCH_PREFIX
from tests.support.team import BASE_URL, PASSWORD, TeamWorld, team_world
from tests.web.live_server import live_server

pytestmark = pytest.mark.anyio

SECRET_TEXT = "hunter2"
SECRET_NOTE = "secret/keys.md"
CATALOG = Path(__file__).parents[1] / "mcp" / "tool_catalog.json"

Role = Literal[
    "superadmin", "admin", "writer", "reader", "member", "stranger", "revoked", "disabled"
]
ROLES: tuple[Role, ...] = (
    "superadmin",
    "admin",
    "writer",
    "reader",
    "member",
    "stranger",
    "revoked",
    "disabled",
)
Area = Literal["open", "secret"]
AREAS: tuple[Area, ...] = ("open", "secret")
Level = Literal["write", "read"] | None

# What each role may do in each area of the workspace (None: nothing; the signed-out roles
# are refused before any rule).
LEVELS: dict[Role, dict[Area, Level]] = {
    "superadmin": {"open": None, "secret": None},
    "admin": {"open": "write", "secret": "write"},
    "writer": {"open": "write", "secret": None},
    "reader": {"open": "read", "secret": None},
    "member": {"open": "read", "secret": None},
    "stranger": {"open": None, "secret": None},
    "revoked": {"open": "write", "secret": "write"},
    "disabled": {"open": "write", "secret": "write"},
}
SIGNED_OUT: frozenset[Role] = frozenset({"revoked", "disabled"})

# The kinds of rule.
OPEN = "open"  # anyone, signed in or not (no data)
SIGN_IN = "sign-in"  # the sign-in form: anyone reaches it; judged by tests/teams/test_sign_in.py
ACCOUNT = "account"  # any signed-in account; what it lists is filtered (no secret leaks)
LINK = "link"  # a browser link (/open, /export): always a redirect; opens only what is readable
READ = "read"  # reads the target: allowed with read, else 404
# Reads the target; without read access it answers exactly as for a missing target, which is
# an empty answer (200), not a 404 (annotations, backlinks: see docs/teams.md).
AS_MISSING = "as-missing"
WRITE = "write"  # changes the target: allowed with write, 403 with read only, else 404
CHAT_DELETE = "chat-delete"  # deleting the owner's chat: only a workspace admin (and the owner)
PERSONAL = "personal"  # someone else's review or approval by id: "not found" to every account
# A browser's login only, never a token (deciding an approval, a new token, a new password).
BROWSER_ONLY = "browser-only"
ADMIN = "admin"  # account administration: superadmin only
SELF = "self"  # the signed-in account's own page and tokens: any account, for itself
# The admin page's gate: superadmins and workspace admins (finer rules: test_admin_api).
ADMINS = "admins"
# Names a workspace: an account with no grant in it is told it is not served (400).
WORKSPACE = "workspace"
# Writes at a workspace's top: needs write access to all of it.
WORKSPACE_WRITE = "workspace-write"
DISK = "disk"  # an MCP tool that reads the MCP process's own disk: never offered to an account
SUPERADMIN = "superadmin"  # the server machine's own agents page: the owner and superadmins


@dataclass
class Cell:
    """What one request of one cell works on: a fresh target note (and its twins)."""

    world: TeamWorld
    area: Area
    target: Path
    chat: Path
    folder: Path
    doc_id: str = ""
    review_id: str = ""
    approval_id: str = ""
    trash_id: str = ""
    rev: str = ""
    extra: dict[str, str] = field(default_factory=dict)

    @property
    def dest(self) -> Path:
        return self.folder / f"moved-{self.target.stem}.md"


@dataclass(frozen=True)
class Call:
    method: str
    url: str
    json: Any = None
    params: dict[str, str] | None = None
    content: bytes | None = None


Build = Callable[[Cell], Call]


@dataclass(frozen=True)
class Rule:
    kind: str
    build: Build | None = None
    prepare: tuple[str, ...] = ()
    """What the cell needs made first by the owner: doc (open it), review, approval, trash,
    chat, history."""
    signed_out: int = 401
    """What a revoked token or disabled account gets (a page sends it to /login: 303)."""


def _p(cell: Cell) -> str:
    return str(cell.target)


def _get(route: str, /, **params: Callable[[Cell], str]) -> Build:
    return lambda cell: Call("GET", route, params={k: f(cell) for k, f in params.items()})


def _post(url: str, body: Callable[[Cell], Any]) -> Build:
    return lambda cell: Call("POST", url, json=body(cell))


def _doc(cell: Cell) -> str:
    return cell.doc_id


ROUTES: dict[str, Rule] = {
    "GET /health": Rule(OPEN, _get("/health")),
    "GET /": Rule(ACCOUNT, _get("/"), signed_out=303),
    "HEAD /": Rule(ACCOUNT),
    "GET /login": Rule(SIGN_IN),
    "POST /login": Rule(SIGN_IN),
    "POST /logout": Rule(SIGN_IN),
    "GET /api/openapi.json": Rule(ACCOUNT, _get("/api/openapi.json")),
    "GET /llms.txt": Rule(ACCOUNT, _get("/llms.txt")),
    "GET /favicon.svg": Rule(ACCOUNT, _get("/favicon.svg")),
    "GET /assets/{name:path}": Rule(ACCOUNT, _get("/assets/missing.js")),
    # Documents.
    "POST /api/documents/open": Rule(READ, _post("/api/documents/open", lambda c: {"path": _p(c)})),
    "GET /api/documents/current": Rule(
        ACCOUNT, _get("/api/documents/current"), prepare=("open-as-role",)
    ),
    "POST /api/documents/edit": Rule(
        WRITE,
        _post("/api/documents/edit", lambda c: {"find": "alpha", "replace": "beta", "path": _p(c)}),
        prepare=("open-as-role",),
    ),
    "POST /api/documents/stream-edit": Rule(
        READ,  # a preview: it changes nothing (applying it is stream-edit-apply, a write)
        _post(
            "/api/documents/stream-edit",
            lambda c: {"find": "alpha", "replace": "beta", "path": _p(c)},
        ),
        prepare=("open-as-role",),
    ),
    "POST /api/documents/stream-edit-apply": Rule(
        WRITE,
        _post(
            "/api/documents/stream-edit-apply",
            lambda c: {"find": "alpha", "replace": "beta", "path": _p(c)},
        ),
        prepare=("open-as-role",),
    ),
    "POST /api/documents/set-content": Rule(
        WRITE,
        _post("/api/documents/set-content", lambda c: {"content": "# New\n", "path": _p(c)}),
        prepare=("open-as-role",),
    ),
    "POST /api/documents/save": Rule(
        WRITE, _post("/api/documents/save", lambda c: {"path": _p(c)}), prepare=("open-as-role",)
    ),
    "GET /api/documents/render": Rule(
        READ, _get("/api/documents/render", docId=_doc), prepare=("doc",)
    ),
    "GET /api/documents/blocks": Rule(
        READ, _get("/api/documents/blocks", docId=_doc), prepare=("doc",)
    ),
    "GET /api/documents/state": Rule(
        READ, _get("/api/documents/state", docId=_doc), prepare=("doc",)
    ),
    "POST /api/documents/toggle-task": Rule(
        WRITE,
        _post(
            "/api/documents/toggle-task", lambda c: {"docId": c.doc_id, "line": 5, "checked": True}
        ),
        prepare=("doc",),
    ),
    "POST /api/documents/resolve-conflict": Rule(
        WRITE,
        _post("/api/documents/resolve-conflict", lambda c: {"docId": c.doc_id, "keep": "mine"}),
        prepare=("doc",),
    ),
    "POST /api/render": Rule(ACCOUNT, _post("/api/render", lambda c: {"markdown": "# Hi"})),
    # The window (each account's own).
    "GET /api/window": Rule(ACCOUNT, _get("/api/window"), prepare=("open-as-role",)),
    "POST /api/window/present": Rule(READ, _post("/api/window/present", lambda c: {"path": _p(c)})),
    "POST /api/window/leave-present": Rule(
        ACCOUNT, _post("/api/window/leave-present", lambda c: {})
    ),
    "POST /api/window/view": Rule(
        READ,
        _post("/api/window/view", lambda c: {"docId": c.doc_id, "view": "read"}),
        prepare=("doc",),
    ),
    "POST /api/window/activate": Rule(
        READ, _post("/api/window/activate", lambda c: {"docId": c.doc_id}), prepare=("doc",)
    ),
    "POST /api/window/close": Rule(
        READ, _post("/api/window/close", lambda c: {"docId": c.doc_id}), prepare=("doc",)
    ),
    "GET /api/recent": Rule(ACCOUNT, _get("/api/recent"), prepare=("open-as-role",)),
    "GET /api/recent/documents": Rule(
        ACCOUNT, _get("/api/recent/documents"), prepare=("open-as-role",)
    ),
    # Files.
    "GET /api/files": Rule(ACCOUNT, _get("/api/files")),
    "GET /api/workspaces": Rule(ACCOUNT, _get("/api/workspaces")),
    "POST /api/files/note": Rule(
        WRITE,
        _post("/api/files/note", lambda c: {"path": str(c.folder / f"new-{c.target.stem}.md")}),
    ),
    "POST /api/files/folder": Rule(
        WRITE, _post("/api/files/folder", lambda c: {"path": str(c.folder / f"d-{c.target.stem}")})
    ),
    "POST /api/files/links": Rule(
        READ, _post("/api/files/links", lambda c: {"path": _p(c), "to": str(c.dest)})
    ),
    "POST /api/files/move": Rule(
        WRITE, _post("/api/files/move", lambda c: {"path": _p(c), "to": str(c.dest)})
    ),
    "POST /api/files/copy": Rule(
        WRITE, _post("/api/files/copy", lambda c: {"path": _p(c), "to": str(c.dest)})
    ),
    "POST /api/files/delete": Rule(WRITE, _post("/api/files/delete", lambda c: {"path": _p(c)})),
    "POST /api/files/append": Rule(
        WRITE, _post("/api/files/append", lambda c: {"path": _p(c), "content": "more\n"})
    ),
    "POST /api/files/upload": Rule(
        WRITE,
        lambda c: Call(
            "POST",
            "/api/files/upload",
            params={"path": str(c.folder / f"up-{c.target.stem}.md")},
            content=b"# Up\n",
        ),
    ),
    "GET /api/files/download": Rule(READ, _get("/api/files/download", path=_p)),
    "GET /api/trash": Rule(ACCOUNT, _get("/api/trash"), prepare=("trash",)),
    "POST /api/trash/restore": Rule(
        WRITE, _post("/api/trash/restore", lambda c: {"id": c.trash_id}), prepare=("trash",)
    ),
    "POST /api/trash/empty": Rule(
        ACCOUNT, _post("/api/trash/empty", lambda c: {}), prepare=("trash", "trash-survives")
    ),
    # Reviews and approvals.
    "POST /api/reviews": Rule(READ, _post("/api/reviews", lambda c: {"path": _p(c)})),
    "GET /api/reviews/active": Rule(ACCOUNT, _get("/api/reviews/active"), prepare=("review",)),
    "GET /api/reviews/{review_id}": Rule(
        PERSONAL, lambda c: Call("GET", f"/api/reviews/{c.review_id}"), prepare=("review",)
    ),
    "GET /api/reviews/{review_id}/wait": Rule(
        PERSONAL,
        lambda c: Call("GET", f"/api/reviews/{c.review_id}/wait", params={"wait_ms": "1000"}),
        prepare=("review",),
    ),
    "POST /api/reviews/{review_id}/wait": Rule(
        PERSONAL,
        lambda c: Call("POST", f"/api/reviews/{c.review_id}/wait", json={"wait_ms": 1000}),
        prepare=("review",),
    ),
    "POST /api/reviews/{review_id}/decision": Rule(
        PERSONAL,
        lambda c: Call(
            "POST", f"/api/reviews/{c.review_id}/decision", json={"verdict": "approved"}
        ),
        prepare=("review",),
    ),
    "GET /api/annotations": Rule(AS_MISSING, _get("/api/annotations", path=_p)),
    # The cwd is the agent's folder on its own machine, shown on the account's own card: no
    # path of the server, so no grant is needed.
    "POST /api/approvals": Rule(
        ACCOUNT,
        _post(
            "/api/approvals",
            lambda c: {
                "harness": "claude-code",
                "session_id": f"s-{c.target.stem}",
                "cwd": str(c.folder),
                "tool_name": "Bash",
                "tool_input": {"command": "ls"},
                "machine_label": f"laptop-{c.target.stem}",
            },
        ),
    ),
    "GET /api/approvals": Rule(ACCOUNT, _get("/api/approvals"), prepare=("approval",)),
    "POST /api/approvals/done": Rule(
        ACCOUNT, _post("/api/approvals/done", lambda c: {"session_id": "s-none"})
    ),
    "GET /api/approvals/{approval_id}": Rule(
        PERSONAL, lambda c: Call("GET", f"/api/approvals/{c.approval_id}"), prepare=("approval",)
    ),
    "GET /api/approvals/{approval_id}/wait": Rule(
        PERSONAL,
        lambda c: Call("GET", f"/api/approvals/{c.approval_id}/wait", params={"wait_ms": "1000"}),
        prepare=("approval",),
    ),
    "POST /api/approvals/{approval_id}/decision": Rule(
        BROWSER_ONLY,
        lambda c: Call(
            "POST",
            f"/api/approvals/{c.approval_id}/decision",
            json={"input_hash": c.extra.get("input_hash", ""), "behavior": "deny"},
        ),
        prepare=("approval",),
    ),
    "POST /api/notices": Rule(
        ACCOUNT,
        _post(
            "/api/notices",
            lambda c: {
                "session_id": "s-n",
                "harness": "claude-code",
                "machine_label": "laptop",
                "kind": "idle",
            },
        ),
    ),
    "POST /api/notices/dismiss": Rule(
        ACCOUNT, _post("/api/notices/dismiss", lambda c: {"session_id": "s-n", "kind": "idle"})
    ),
    # Chats.
    "GET /api/chats": Rule(ACCOUNT, _get("/api/chats"), prepare=("chat",)),
    "POST /api/chats": Rule(
        WRITE, _post("/api/chats", lambda c: {"path": str(c.folder / f"chat-{c.target.stem}.md")})
    ),
    "GET /api/chats/read": Rule(READ, _get("/api/chats/read", path=lambda c: str(c.chat))),
    "POST /api/chats/post": Rule(
        WRITE,
        _post("/api/chats/post", lambda c: {"path": str(c.chat), "as": "bot", "body": "hi"}),
    ),
    "POST /api/chats/wait": Rule(
        READ,
        _post(
            "/api/chats/wait",
            lambda c: {"path": str(c.chat), "as": "bot", "after": 0, "timeoutMs": 1000},
        ),
    ),
    "POST /api/chats/leave": Rule(
        READ, _post("/api/chats/leave", lambda c: {"path": str(c.chat), "as": "bot"})
    ),
    "GET /api/chats/session": Rule(ACCOUNT, _get("/api/chats/session", id=lambda c: "sess-x")),
    "POST /api/chats/session/stop": Rule(
        ACCOUNT, _post("/api/chats/session/stop", lambda c: {"id": "sess-x"})
    ),
    "POST /api/chats/pin": Rule(
        READ, _post("/api/chats/pin", lambda c: {"path": str(c.chat), "pinned": True})
    ),
    "GET /api/chats/members": Rule(READ, _get("/api/chats/members", path=lambda c: str(c.chat))),
    "POST /api/chats/members": Rule(
        WRITE,
        _post(
            "/api/chats/members",
            # ada may read the workspace (a member needs a grant): the add itself is judged.
            lambda c: {"path": str(c.chat), "action": "add", "username": USERS["admin"]},
        ),
    ),
    "GET /api/chats/people": Rule(
        WORKSPACE, _get("/api/chats/people", workspace=lambda c: str(c.world.workspace))
    ),
    "POST /api/chats/delete": Rule(
        CHAT_DELETE, _post("/api/chats/delete", lambda c: {"path": str(c.chat)})
    ),
    "GET /api/chats/gifs": Rule(
        WORKSPACE, _get("/api/chats/gifs", workspace=lambda c: str(c.world.workspace))
    ),
    "GET /api/chats/gif": Rule(
        WORKSPACE,
        _get("/api/chats/gif", workspace=lambda c: str(c.world.workspace), name=lambda c: "nod"),
    ),
    "POST /api/chats/avatar": Rule(
        WORKSPACE_WRITE,
        _post(
            "/api/chats/avatar",
            lambda c: {"workspace": str(c.world.workspace), "as": "bot", "pick": "fox"},
        ),
    ),
    # Rendering, links, exports.
    "GET /open": Rule(LINK, _get("/open", path=_p), signed_out=303),
    "GET /export": Rule(LINK, _get("/export", path=_p)),
    "POST /api/export": Rule(
        WRITE,
        _post(
            "/api/export",
            lambda c: {
                "path": _p(c),
                "format": "html",
                "output_path": str(c.folder / f"out-{c.target.stem}.html"),
            },
        ),
    ),
    "GET /api/export/download": Rule(
        READ, _get("/api/export/download", path=_p, format=lambda c: "html")
    ),
    "POST /api/export/dialog": Rule(
        READ, _post("/api/export/dialog", lambda c: {"path": _p(c), "format": "pdf"})
    ),
    "GET /api/export/engines": Rule(ACCOUNT, _get("/api/export/engines")),
    "GET /remote-image": Rule(ACCOUNT, _get("/remote-image", url=lambda c: "notaurl")),
    # Search.
    # "hunter" finds the secret note's "hunter2" without the answer's echo of the query
    # holding it: only a leaked snippet or path can.
    "GET /api/search": Rule(ACCOUNT, _get("/api/search", q=lambda c: SECRET_TEXT[:-1])),
    "POST /api/search/reindex": Rule(ADMIN, _post("/api/search/reindex", lambda c: {})),
    "GET /api/backlinks": Rule(AS_MISSING, _get("/api/backlinks", path=_p)),
    "GET /api/titles": Rule(ACCOUNT, _get("/api/titles", q=lambda c: "keys")),
    # History.
    "GET /api/history": Rule(READ, _get("/api/history", path=_p), prepare=("history",)),
    "GET /api/history/version": Rule(
        READ, _get("/api/history/version", path=_p, rev=lambda c: c.rev), prepare=("history",)
    ),
    "GET /api/history/diff": Rule(
        READ,
        lambda c: Call("GET", "/api/history/diff", params={"path": _p(c), "from": c.rev}),
        prepare=("history",),
    ),
    "GET /api/history/blame": Rule(READ, _get("/api/history/blame", path=_p), prepare=("history",)),
    "POST /api/history/restore": Rule(
        WRITE,
        _post("/api/history/restore", lambda c: {"path": _p(c), "rev": c.rev}),
        prepare=("history",),
    ),
    "GET /api/history/timeline": Rule(ACCOUNT, _get("/api/history/timeline"), prepare=("history",)),
    # Agents on this machine.
    "GET /api/agents": Rule(SUPERADMIN, _get("/api/agents")),
    "POST /api/agents/hook": Rule(SUPERADMIN, _post("/api/agents/hook", lambda c: {})),
    "POST /api/agents/{agent_id}/connect": Rule(
        SUPERADMIN, lambda c: Call("POST", "/api/agents/none/connect")
    ),
    # WebSockets (joined in test_websocket_joins).
    "WS /ws/events": Rule(ACCOUNT),
    "WS /ws/documents/{doc_id}": Rule(READ, prepare=("doc",)),
}

# Routes other branches add (gap-admin's account and admin pages): judged when they are served,
# and not a stale rule while they are not.
PENDING: dict[str, Rule] = {
    "GET /api/account": Rule(SELF, _get("/api/account")),
    "GET /api/account/tokens": Rule(SELF, _get("/api/account/tokens")),
    # An API token can neither make tokens nor change the password, whatever the role.
    "POST /api/account/tokens": Rule(
        BROWSER_ONLY, _post("/api/account/tokens", lambda c: {"name": f"made-{c.target.stem}"})
    ),
    "POST /api/account/tokens/revoke": Rule(
        SELF, _post("/api/account/tokens/revoke", lambda c: {})
    ),
    "POST /api/account/password": Rule(
        BROWSER_ONLY,
        _post(
            "/api/account/password",
            lambda c: {"current_password": PASSWORD, "new_password": PASSWORD},
        ),
    ),
    "POST /api/account/sign-out-everywhere": Rule(SIGN_IN),
    "GET /api/admin": Rule(ADMINS, _get("/api/admin")),
    **{
        f"POST /api/admin/{tail}": Rule(ADMINS, _post(f"/api/admin/{tail}", lambda c: {}))
        for tail in (
            "users",
            "users/role",
            "users/disable",
            "users/delete",
            "users/password",
            "grants",
            "grants/revoke",
            "groups",
            "groups/delete",
            "groups/members",
            "groups/members/remove",
        )
    },
}
ROUTES.update(PENDING)

# MCP tools: the same rules, through the HTTP routes each tool calls (the MCP server reaches
# the server only through its API, with the account's token).
TOOLS: dict[str, str] = {
    "create_chat": WRITE,
    "create_document": WRITE,
    "delete_document": WRITE,
    "diff_documents": DISK,
    "edit_canvas": DISK,
    "edit_document": WRITE,
    "export": ACCOUNT,
    "export_markdown_to_pdf": WRITE,
    "export_metadata": DISK,
    "export_text": DISK,
    "get_conversation_context": DISK,
    "get_current_content": ACCOUNT,
    "get_history": READ,
    "get_user_annotations": ACCOUNT,
    "get_version": READ,
    "list_ai_actions": OPEN,
    "list_chat_gifs": ACCOUNT,
    "list_chats": ACCOUNT,
    "list_recent": ACCOUNT,
    "move_document": WRITE,
    "open_file": READ,
    "post_chat": WRITE,
    "present_document": READ,
    "read_chat": READ,
    "replace_document": ACCOUNT,
    "request_review": WRITE,
    "restore_version": WRITE,
    "save_conversation_message": DISK,
    "search_vault": ACCOUNT,
    "set_chat_avatar": ACCOUNT,
    "set_content": ACCOUNT,
    "stream_edit": WRITE,
    "stream_edit_apply": WRITE,
    "wait_chat": READ,
}


def _route_keys(world: TeamWorld) -> list[str]:
    keys = []
    for route in world.app.routes:
        if isinstance(route, WebSocketRoute):
            keys.append(f"WS {route.path}")
        elif isinstance(route, Route):
            for method in sorted(route.methods or ()):
                if method == "HEAD" and f"HEAD {route.path}" not in ROUTES:
                    continue  # HEAD is GET's, judged with it
                keys.append(f"{method} {route.path}")
        else:
            keys.append(f"? {getattr(route, 'path', route)!r}")
    return keys


GATES: dict[str, frozenset[str]] = {
    ADMIN: frozenset({"superadmin"}),
    SUPERADMIN: frozenset({"superadmin"}),
    ADMINS: frozenset({"superadmin", "admin"}),
}
"""The kinds allowed by role alone (403 for the other roles)."""
FIXED: dict[str, int] = {DISK: 403, PERSONAL: 404, BROWSER_ONLY: 403}
"""The kinds refused to every account, with their status."""


def _expected(kind: str, role: Role, area: Area, *, signed_out: int = 401) -> int | None:
    """The status a refused cell gets, or None when it is allowed."""
    if kind == OPEN:
        return None
    if role in SIGNED_OUT:
        return signed_out
    if kind in (ACCOUNT, LINK, SELF):
        return None
    if kind in GATES:
        return None if role in GATES[kind] else 403
    if kind in FIXED:
        return FIXED[kind]
    return _by_grant(kind, role, area)


def _by_grant(kind: str, role: Role, area: Area) -> int | None:
    """The status of a kind judged by the role's grants."""
    level = LEVELS[role][area]
    if kind == WORKSPACE:
        return None if any(LEVELS[role].values()) else 400
    if kind == WORKSPACE_WRITE:
        return None if all(value == "write" for value in LEVELS[role].values()) else 404
    if kind in (READ, AS_MISSING):
        return None if level is not None else 404
    if kind == WRITE:
        return None if level == "write" else (403 if level == "read" else 404)
    if kind == CHAT_DELETE:
        if level is None:
            return 404
        return None if role == "admin" else 403
    raise AssertionError(f"no expectation for {kind}")


# The world: one per route, every role an account.


@dataclass
class Matrix:
    world: TeamWorld
    clients: dict[Role, httpx.AsyncClient]
    counter: int = 0


NOTE_TEXT = "# Target\n\nalpha {secret}\n\n- [ ] a task\n"


USERS: dict[Role, str] = {
    "superadmin": "sam",
    "admin": "ada",
    "writer": "wren",
    "reader": "rita",
    "member": "mona",
    "stranger": "stan",
    "revoked": "rex",
    "disabled": "dora",
}
"""The account of each role (role names such as ``admin`` are reserved usernames)."""


async def _matrix(world: TeamWorld) -> Matrix:
    team = world.team
    await team.accounts.add("boss", role="superadmin")
    await team.accounts.add(USERS["superadmin"], role="superadmin")
    await team.accounts.add(USERS["admin"], role="admin")
    await team.grants.grant(USERS["admin"], "team", access="write")
    partial: tuple[tuple[Role, str], ...] = (("writer", "write"), ("reader", "read"))
    for granted, access in partial:
        await team.accounts.add(USERS[granted])
        await team.grants.grant(USERS[granted], "team", "open", access=access)
    await team.accounts.add(USERS["member"])
    await team.grants.add_group("crew")
    await team.grants.add_member("crew", USERS["member"])
    await team.grants.grant_group("crew", "team", "open", access="read")
    await team.accounts.add(USERS["stranger"])
    for gone in SIGNED_OUT:
        await team.accounts.add(USERS[gone])
        await team.grants.grant(USERS[gone], "team", access="write")
    clients: dict[Role, httpx.AsyncClient] = {}
    for role in ROLES:
        issued = await team.tokens.issue(USERS[role], name="matrix")
        clients[role] = world.client({"Authorization": f"Bearer {issued.token}"})
    await team.tokens.revoke(USERS["revoked"], issued_id(await team.tokens.list(USERS["revoked"])))
    await team.accounts.set_disabled(USERS["disabled"], True)
    return Matrix(world, clients)


def issued_id(tokens: list[Any]) -> str:
    (token,) = tokens
    return str(token.id)


async def _cell(
    matrix: Matrix, area: Area, rule: Rule, as_role: Role, *, as_owner: bool = False
) -> Cell:
    """A fresh target in ``area``, and what the rule needs made first (by the owner)."""
    world = matrix.world
    matrix.counter += 1
    name = f"t{matrix.counter:03d}-{secrets.token_hex(2)}"
    folder = world.workspace / area
    target = folder / f"{name}.md"
    secret = SECRET_TEXT if area == "secret" else "plain"
    target.write_text(NOTE_TEXT.format(secret=secret), encoding="utf-8")
    chat = folder / f"{name}-chat.md"
    owner = world.owner
    made = await owner.post("/api/chats", json={"path": str(chat)})
    assert made.status_code == 200, made.text
    posted = await owner.post(
        "/api/chats/post", json={"path": str(chat), "as": "owner", "body": f"psst {secret}"}
    )
    assert posted.status_code == 200, posted.text
    cell = Cell(world, area, target, chat, folder)
    actor = matrix.world.owner if as_owner else matrix.clients[as_role]
    for need in rule.prepare:
        await _prepare(matrix, cell, need, actor)
    return cell


async def ask_approval(asker: httpx.AsyncClient, cell: Cell, words: str) -> None:
    """An approval for the cell, asked by ``asker``'s agent (a Bash command echoing ``words``
    and the target's name): its id and input hash kept in the cell."""
    asked = await asker.post(
        "/api/approvals",
        json={
            "harness": "claude-code",
            "session_id": f"s-{cell.target.stem}",
            "cwd": str(cell.folder),
            "tool_name": "Bash",
            "tool_input": {"command": f"echo {cell.target.stem} {words}"},
            # One machine per cell: a machine may have at most 20 approvals waiting.
            "machine_label": f"laptop-{cell.target.stem}",
        },
    )
    assert asked.status_code in (200, 201, 202), asked.text
    found = asked.json()
    cell.approval_id = found["approvalId"]
    cell.extra["input_hash"] = found["inputHash"]


async def _prepare(matrix: Matrix, cell: Cell, need: str, actor: httpx.AsyncClient) -> None:
    """Make what a cell needs: the owner makes it, except ``doc`` and ``open-as-role``, which
    the acting client opens in its own window (when it may; else the owner's docId)."""
    owner = matrix.world.owner
    if need == "doc":
        opened = await actor.post("/api/documents/open", json={"path": str(cell.target)})
        if opened.status_code != 200:
            opened = await owner.post("/api/documents/open", json={"path": str(cell.target)})
        assert opened.status_code == 200, opened.text
        cell.doc_id = opened.json()["docId"]
    elif need == "open-as-role":
        await actor.post("/api/documents/open", json={"path": str(cell.target)})
    elif need == "review":
        asked = await owner.post("/api/reviews", json={"path": str(cell.target)})
        assert asked.status_code in (200, 202), asked.text
        cell.review_id = asked.json()["reviewId"]
    elif need == "approval":
        await ask_approval(owner, cell, SECRET_TEXT)
    elif need == "trash":
        doomed = cell.folder / f"{cell.target.stem}-trash.md"
        doomed.write_text(f"# Doomed {SECRET_TEXT if cell.area == 'secret' else ''}\n", "utf-8")
        gone = await owner.post("/api/files/delete", json={"path": str(doomed)})
        assert gone.status_code == 200, gone.text
        listed = await owner.get("/api/trash")
        for item in listed.json()["items"]:
            if doomed.name in json.dumps(item):
                cell.trash_id = str(item.get("id"))
        cell.extra["trashed"] = doomed.name
    elif need == "history":
        # The world keeps history (``_keeps_history``): the owner's edit commits the note and
        # ``rev`` is that commit, the newest of its log (git may follow the log on into the
        # commits of an older note with the same text).
        await owner.post("/api/documents/open", json={"path": str(cell.target)})
        edited = await owner.post(
            "/api/documents/edit",
            json={"find": "alpha", "replace": "alpha2", "path": str(cell.target), "save": True},
        )
        assert edited.status_code == 200, edited.text
        history = matrix.world.services.history
        assert history is not None, "a cell that needs history runs in a world that keeps it"
        with anyio.fail_after(20):
            await history.recorder.settled()
        listed = await owner.get("/api/history", params={"path": str(cell.target)})
        assert listed.status_code == 200, listed.text
        cell.rev = listed.json()["entries"][0]["commit"]


def _keeps_history(prepare: tuple[str, ...]) -> bool:
    """Whether a rule's world must keep history (only then: a commit per save is slow)."""
    return "history" in prepare


WAIT_CAP_S = 3.0
"""A wait that is allowed waits (the world's clock stands still); a refused one answers at once."""


async def _send(client: httpx.AsyncClient, call: Call) -> httpx.Response | None:
    """The answer, or None when the request was still waiting after ``WAIT_CAP_S``."""
    with anyio.move_on_after(WAIT_CAP_S):
        return await client.request(
            call.method,
            call.url,
            json=call.json,
            params=call.params,
            content=call.content,
            follow_redirects=False,
        )
    return None


def _leaks(matrix: Matrix, answer: httpx.Response) -> list[str]:
    secret_paths = [
        str(matrix.world.workspace / SECRET_NOTE),
        SECRET_NOTE,
        quote(str(matrix.world.workspace / SECRET_NOTE)),
    ]
    body = answer.text
    return [text for text in (SECRET_TEXT, *secret_paths) if text in body]


@dataclass
class Failure:
    role: Role
    area: Area
    what: str

    def __str__(self) -> str:
        return f"{self.role:<10} {self.area:<6} {self.what}"


async def _judge(matrix: Matrix, key: str, rule: Rule, role: Role, area: Area) -> Failure | None:
    """Run one cell: the role's request on a fresh target in ``area``, judged by the rule."""
    assert rule.build is not None
    refused = _expected(rule.kind, role, area, signed_out=rule.signed_out)
    cell = await _cell(matrix, area, rule, role)
    answer = await _send(matrix.clients[role], rule.build(cell))
    if answer is None:
        return None if refused is None else Failure(role, area, "waited instead of refusing")
    leaks = _cell_leaks(matrix, cell, answer, role, refused)
    if leaks:
        return Failure(role, area, f"{answer.status_code}: leaked {leaks}")
    if refused is not None:
        return await _judge_refused(matrix, rule, role, cell, answer, refused)
    return await _judge_allowed(matrix, rule, role, cell, answer)


def _cell_leaks(
    matrix: Matrix, cell: Cell, answer: httpx.Response, role: Role, refused: int | None
) -> list[str]:
    may_read_secret = LEVELS[role]["secret"] is not None and role not in SIGNED_OUT
    if may_read_secret and refused is None:
        return []
    leaks = _leaks(matrix, answer)
    # Allowed on a listing: the cell's own secret target must not show either.
    if (
        cell.area == "secret"
        and refused is None
        and (cell.target.name in answer.text or cell.chat.name in answer.text)
    ):
        leaks.append(cell.target.name)
    return leaks


async def _judge_refused(
    matrix: Matrix, rule: Rule, role: Role, cell: Cell, answer: httpx.Response, refused: int
) -> Failure | None:
    if answer.status_code == refused:
        return None
    if refused == 404:
        # "Not found" is whatever a missing path gets: the same request on a path that is
        # not there must answer alike (status and error type).
        missing = await _missing_answer(matrix, rule, role, cell)
        if missing is not None and _same_refusal(answer, missing):
            return None
        if rule.kind == AS_MISSING and missing is not None and _same_answer(answer, missing, cell):
            return None
    return Failure(
        role, cell.area, f"expected {refused}, got {answer.status_code} {answer.text[:160]!r}"
    )


async def _judge_allowed(
    matrix: Matrix, rule: Rule, role: Role, cell: Cell, answer: httpx.Response
) -> Failure | None:
    """Allowed: the answer the owner gets for the same request on a twin cell."""
    assert rule.build is not None
    area = cell.area
    # Before the owner's twin request, which may change the same state (empty the trash).
    if "trash-survives" in rule.prepare and area == "secret" and LEVELS[role]["secret"] is None:
        listed = await matrix.world.owner.get("/api/trash")
        if cell.extra["trashed"] not in listed.text:
            return Failure(role, area, "emptied a trash item it may not write")
    twin = await _cell(matrix, area, rule, role, as_owner=True)
    owners = await _send(matrix.world.owner, rule.build(twin))
    if owners is None:
        return None
    if rule.kind in (SELF, ADMIN):
        # The owner (the server's token) has no account: judge by the role's answer alone.
        if answer.status_code in (401, 403, 404) or answer.status_code >= 500:
            return Failure(role, area, f"allowed, got {answer.status_code} {answer.text[:160]!r}")
        return None
    if answer.status_code in (401, 403) or (
        answer.status_code != owners.status_code and answer.status_code >= 400
    ):
        return Failure(
            role,
            area,
            f"allowed, got {answer.status_code} (owner {owners.status_code}) {answer.text[:160]!r}",
        )
    if rule.kind == LINK:
        window = await matrix.clients[role].get("/api/window")
        if LEVELS[role][area] is None and cell.target.name in window.text:
            return Failure(role, area, "a link opened a note the account may not read")
    return None


async def _missing_answer(
    matrix: Matrix, rule: Rule, role: Role, cell: Cell
) -> httpx.Response | None:
    """The role's answer to the same request on a note (and chat, and docId) that do not
    exist, beside the cell's own."""
    assert rule.build is not None
    missing = Cell(
        matrix.world,
        cell.area,
        cell.folder / f"absent-{cell.target.stem}.md",
        cell.folder / f"absent-{cell.chat.stem}.md",
        cell.folder,
        doc_id="0" * 24 if cell.doc_id else "",
        review_id=cell.review_id,
        approval_id=cell.approval_id,
        trash_id=cell.trash_id,
        rev=cell.rev,
        extra=dict(cell.extra),
    )
    return await _send(matrix.clients[role], rule.build(missing))


def _error_type(answer: httpx.Response) -> str | None:
    try:
        found = answer.json()
    except ValueError:
        return None
    error = found.get("error") if isinstance(found, dict) else None
    kind = error.get("type") if isinstance(error, dict) else None
    return kind if isinstance(kind, str) else None


def _same_refusal(answer: httpx.Response, missing: httpx.Response) -> bool:
    """Whether ``answer`` is the refusal a missing target gets: a refusal (an allowed answer
    is never "as missing", even when the missing twin is allowed too), status and error type
    alike."""
    return (
        answer.status_code >= 400
        and answer.status_code == missing.status_code
        and _error_type(answer) == _error_type(missing)
    )


def _same_answer(answer: httpx.Response, missing: httpx.Response, cell: Cell) -> bool:
    """Whether ``answer`` is, word for word, the answer to the same request on a missing
    target (whose names stand in for the cell's)."""
    absent = missing.text.replace(f"absent-{cell.target.stem}", cell.target.stem)
    return answer.status_code == missing.status_code and answer.text == absent


def _http_keys() -> list[str]:
    return [key for key, rule in ROUTES.items() if rule.build is not None and key not in PENDING]


async def test_every_route_has_a_rule(tmp_path: Path) -> None:
    async with team_world(tmp_path) as world:
        keys = _route_keys(world)
    missing = [key for key in keys if key not in ROUTES]
    assert not missing, f"routes without a rule in ROUTES: {missing}"
    stale = [
        key
        for key in ROUTES
        if key not in keys and not key.startswith("HEAD ") and key not in PENDING
    ]
    assert not stale, f"rules for routes the app does not have: {stale}"


def test_every_tool_has_a_rule() -> None:
    names = [tool["name"] for tool in json.loads(CATALOG.read_text(encoding="utf-8"))]
    missing = [name for name in names if name not in TOOLS]
    assert not missing, f"MCP tools without a rule in TOOLS: {missing}"
    assert not [name for name in TOOLS if name not in names]


@pytest.mark.parametrize("key", _http_keys() + [key for key in PENDING if PENDING[key].build])
async def test_route(tmp_path: Path, key: str) -> None:
    rule = ROUTES[key]
    failures: list[Failure] = []
    if key in PENDING:
        (tmp_path / "probe").mkdir()
        async with team_world(tmp_path / "probe") as probe:
            served = key in _route_keys(probe)
        if not served:
            pytest.skip(f"{key} is not served by this app (another branch adds it)")
    async with team_world(tmp_path, history=_keeps_history(rule.prepare)) as world:
        matrix = await _matrix(world)
        for role in ROLES:
            for area in AREAS:
                try:
                    failure = await _judge(matrix, key, rule, role, area)
                except Exception as error:  # a cell that could not even run
                    failure = Failure(role, area, f"error: {error!r}"[:300])
                if failure is not None:
                    failures.append(failure)
    assert not failures, f"{key}:\n" + "\n".join(str(failure) for failure in failures)


@pytest.mark.parametrize("key", [key for key in ROUTES if key.startswith("WS ")])
async def test_websocket_joins(tmp_path: Path, key: str) -> None:
    rule = ROUTES[key]
    failures: list[Failure] = []
    async with team_world(tmp_path) as world:
        matrix = await _matrix(world)
        async with live_server(world.app) as port:
            for role in ROLES:
                for area in AREAS:
                    cell = await _cell(matrix, area, rule, role)
                    path = key.split(" ", 1)[1].replace("{doc_id}", cell.doc_id)
                    token = matrix.clients[role].headers["authorization"]
                    refused = _expected(rule.kind, role, area)
                    code: int | None = None
                    got = b""
                    async with connect(
                        f"ws://127.0.0.1:{port}{path}", additional_headers={"Authorization": token}
                    ) as socket:
                        try:
                            with anyio.move_on_after(1.0):
                                while True:
                                    message = await socket.recv()
                                    got += (
                                        message if isinstance(message, bytes) else message.encode()
                                    )
                        except ConnectionClosed as closed:
                            code = None if closed.rcvd is None else closed.rcvd.code
                    if SECRET_TEXT.encode() in got and refused is not None:
                        failures.append(Failure(role, area, "leaked hunter2 on the socket"))
                    if refused == 401 and code != 4401:
                        failures.append(Failure(role, area, f"expected 4401, got {code}"))
                    elif refused in (403, 404) and code not in (4403, 4404):
                        failures.append(Failure(role, area, f"expected 4403/4404, got {code}"))
                    elif refused is None and code not in (None, 1000):
                        failures.append(Failure(role, area, f"allowed, closed with {code}"))
    assert not failures, f"{key}:\n" + "\n".join(str(failure) for failure in failures)


# MCP tools, through the MCP server of each role (the account's token, the app in process).

ToolArgs = Callable[[Cell], dict[str, Any]]

TOOL_ARGS: dict[str, ToolArgs] = {
    "create_chat": lambda c: {"path": str(c.folder / f"chat-{c.target.stem}.md")},
    "create_document": lambda c: {"path": str(c.folder / f"new-{c.target.stem}.md")},
    "delete_document": lambda c: {"path": _p(c)},
    "diff_documents": lambda c: {"path_a": _p(c), "path_b": str(c.chat)},
    "edit_canvas": lambda c: {"path": _p(c), "ops": []},
    "edit_document": lambda c: {"find": "alpha", "replace": "beta", "path": _p(c)},
    "export": lambda c: {"format": "html"},
    "export_markdown_to_pdf": lambda c: {"input": _p(c)},
    "export_metadata": lambda c: {"path": _p(c)},
    "export_text": lambda c: {"path": _p(c)},
    "get_conversation_context": lambda c: {"session_id": "session-x"},
    "get_current_content": lambda c: {},
    "get_history": lambda c: {"path": _p(c)},
    "get_user_annotations": lambda c: {"path": _p(c)},
    "get_version": lambda c: {"path": _p(c), "rev": c.rev or "0"},
    "list_ai_actions": lambda c: {},
    "list_chat_gifs": lambda c: {"workspace": str(c.world.workspace)},
    "list_chats": lambda c: {},
    "list_recent": lambda c: {},
    "move_document": lambda c: {"path": _p(c), "to": str(c.dest)},
    "open_file": lambda c: {"path": _p(c)},
    "post_chat": lambda c: {"path": str(c.chat), "body": "hi"},
    "present_document": lambda c: {"path": _p(c)},
    "read_chat": lambda c: {"path": str(c.chat)},
    "replace_document": lambda c: {"content": "# Replaced\n"},
    "request_review": lambda c: {"path": _p(c), "content": "# R\n", "blocking": False},
    "restore_version": lambda c: {"path": _p(c), "rev": c.rev or "0"},
    "save_conversation_message": lambda c: {
        "session_id": "session-x",
        "role": "user",
        "content": "hi",
    },
    "search_vault": lambda c: {"query": SECRET_TEXT[:-1]},
    "set_chat_avatar": lambda c: {
        "workspace": str(c.world.workspace),
        "as": "bot",
        "pick": "fox",
    },
    "set_content": lambda c: {"content": "# Set\n"},
    "stream_edit": lambda c: {"find": "alpha", "replace": "beta", "path": _p(c)},
    "stream_edit_apply": lambda c: {"find": "alpha", "replace": "beta", "path": _p(c)},
    "wait_chat": lambda c: {"path": str(c.chat), "timeout_seconds": 1},
}
TOOL_PREPARE: dict[str, tuple[str, ...]] = {
    "get_current_content": ("open-as-role",),
    "replace_document": ("open-as-role",),
    "set_content": ("open-as-role",),
    "export": ("open-as-role",),
    "get_version": ("history",),
    "restore_version": ("history",),
    "get_history": ("history",),
}


def _tool_text(result: Any) -> str:
    parts = [getattr(block, "text", "") for block in result.content]
    structured = getattr(result, "structured_content", None)
    return "\n".join(parts) + (json.dumps(structured) if structured else "")


@asynccontextmanager
async def _mcp_clients(
    matrix: Matrix, tmp_path: Path
) -> AsyncIterator[dict[Role | Literal["owner"], Any]]:
    from mcp import Client
    from quire.core.server_info import ServerInfo
    from tests.mcp.harness import make_harness

    world = matrix.world
    transport = httpx.ASGITransport(app=world.app)
    tokens: dict[Role | Literal["owner"], str] = {
        role: matrix.clients[role].headers["authorization"].split(" ", 1)[1] for role in ROLES
    }
    tokens["owner"] = world.owner.headers["authorization"].split(" ", 1)[1]
    async with AsyncExitStack() as stack:
        clients: dict[Role | Literal["owner"], Any] = {}
        for who, token in tokens.items():
            place = tmp_path / f"mcp-{who}"
            place.mkdir()
            info = ServerInfo(url=BASE_URL, token=token, pid=os.getpid())
            # An account's agent reaches the server as `quire mcp --server @alias` (or /mcp)
            # does: remote, so every path goes to the server and its grants.
            harness = make_harness(
                place,
                allow=[world.workspace],
                fixed=info,
                transport=transport,
                remote=who != "owner",
            )
            stack.push_async_callback(harness.services.link.aclose)
            clients[who] = await stack.enter_async_context(Client(harness.server))
        yield clients


def _mcp_failure(kind: str, role: Role, area: Area, text: str, is_error: bool) -> str | None:
    """What is wrong with an MCP answer (a tool's or a resource's), judged without a twin:
    a leak, or an answer where the rule expects a refusal; None when neither."""
    may_read_secret = LEVELS[role]["secret"] is not None and role not in SIGNED_OUT
    if not may_read_secret and (SECRET_TEXT in text or SECRET_NOTE in text):
        return f"leaked: {text[:160]!r}"
    if _expected(kind, role, area) is not None and not is_error:
        return f"expected a refusal, got {text[:160]!r}"
    return None


def _needs_twin(kind: str, role: Role, area: Area, is_error: bool) -> bool:
    """Whether an error must be compared with the owner's answer on a twin target: the rule
    allows the call, so it may fail only where the owner's fails too."""
    return _expected(kind, role, area) is None and is_error and kind != ACCOUNT


Ask = Callable[[Any, Cell], Awaitable[tuple[str, bool]]]
"""One MCP call of a cell through a client: its text and whether it was an error."""


async def _mcp_cells(tmp_path: Path, rule: Rule, ask: Ask) -> tuple[list[Failure], int]:
    """Every role's MCP client asks ``ask`` on a fresh cell in each area, judged by ``rule``
    (an error the rule allows is compared with the owner's on a twin cell); the failures,
    and how many cells answered without an error."""
    failures: list[Failure] = []
    answered = 0
    async with team_world(tmp_path, history=_keeps_history(rule.prepare)) as world:
        matrix = await _matrix(world)
        async with _mcp_clients(matrix, tmp_path) as clients:
            for role in ROLES:
                for area in AREAS:
                    try:
                        cell = await _cell(matrix, area, rule, role)
                        text, is_error = await ask(clients[role], cell)
                        wrong = _mcp_failure(rule.kind, role, area, text, is_error)
                        if wrong is not None:
                            failures.append(Failure(role, area, wrong))
                        elif _needs_twin(rule.kind, role, area, is_error):
                            twin = await _cell(matrix, area, rule, role, as_owner=True)
                            _, owners_error = await ask(clients["owner"], twin)
                            if not owners_error:
                                failures.append(
                                    Failure(role, area, f"allowed, got error {text[:160]!r}")
                                )
                        answered += not is_error
                    except Exception as error:
                        failures.append(Failure(role, area, f"error: {error!r}"[:300]))
    return failures, answered


@pytest.mark.parametrize("tool", sorted(TOOL_ARGS))
async def test_tool(tmp_path: Path, tool: str) -> None:
    async def call(client: Any, cell: Cell) -> tuple[str, bool]:
        try:
            result = await client.call_tool(tool, TOOL_ARGS[tool](cell))
        except MCPError as refused_call:  # a tool not offered to this caller
            return str(refused_call), True
        return _tool_text(result), bool(result.is_error)

    rule = Rule(TOOLS[tool], prepare=TOOL_PREPARE.get(tool, ()))
    failures, _ = await _mcp_cells(tmp_path, rule, call)
    assert not failures, f"{tool}:\n" + "\n".join(str(failure) for failure in failures)


def test_every_tool_has_arguments() -> None:
    assert sorted(TOOL_ARGS) == sorted(TOOLS)


# MCP resources: each resource (and template) Quire offers, read by every role's agent.

RESOURCE_URIS: dict[str, Callable[[Cell], str]] = {
    CURRENT_URI: lambda c: CURRENT_URI,
    RECENT_URI: lambda c: RECENT_URI,
    "file://": lambda c: Path(_p(c)).as_uri(),
    SEARCH_TEMPLATE: lambda c: f"{SEARCH_PREFIX}q={SECRET_TEXT[:-1]}",
}
RESOURCES: dict[str, str] = {
    CURRENT_URI: ACCOUNT,  # the role's own open document
    RECENT_URI: ACCOUNT,  # the role's own recents, those it may still read
    "file://": READ,
    SEARCH_TEMPLATE: ACCOUNT,  # results filtered note by note
}
RESOURCE_PREPARE: dict[str, tuple[str, ...]] = {
    CURRENT_URI: ("open-as-role",),
    RECENT_URI: ("open-as-role",),
}


def test_every_resource_has_a_rule() -> None:
    offered = {str(item.uri) for item in STATIC} | {TEMPLATE.uri_template, "file://"}
    assert sorted(RESOURCES) == sorted(offered) == sorted(RESOURCE_URIS)


async def _read(client: Any, uri: str) -> tuple[str, bool]:
    """The text of a resource, or the error's, and whether it was an error."""
    try:
        result = await client.read_resource(uri)
    except MCPError as refused:
        return str(refused), True
    return "\n".join(getattr(part, "text", "") for part in result.contents), False


@pytest.mark.parametrize("resource", sorted(RESOURCE_URIS))
async def test_resource(tmp_path: Path, resource: str) -> None:
    async def read(client: Any, cell: Cell) -> tuple[str, bool]:
        return await _read(client, RESOURCE_URIS[resource](cell))

    rule = Rule(RESOURCES[resource], prepare=RESOURCE_PREPARE.get(resource, ()))
    failures, answered = await _mcp_cells(tmp_path, rule, read)
    assert not failures, f"{resource}:\n" + "\n".join(str(failure) for failure in failures)
    assert answered, f"{resource}: no role could read it, so the cells judged nothing"

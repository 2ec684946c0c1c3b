"""The ASGI app: every route behind the Host/Origin check, the token check and the body limit.

Assembles routes, middleware and error handlers around already-open services, plus the sub-apps
its caller hands in (``quire serve`` mounts ``/mcp`` that way); it opens and closes nothing but
those sub-apps' lifespans and the event bus subscriptions (at shutdown), and holds no behaviour.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from typing import cast

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp, ExceptionHandler, Receive, Scope, Send

from quire import __version__
from quire.api.server import Health
from quire.core.errors import QuireError
from quire.core.views import OWNER
from quire.services.app import AppServices
from quire.settings.server_file import server_file
from quire.web import (
    account,
    admin,
    agents,
    approvals,
    chats,
    documents,
    events,
    exports,
    files,
    history,
    llms,
    preview,
    remote_images,
    rendering,
    reviews,
    search,
    sign_in,
    static_files,
    sync,
    windows,
)
from quire.web.answers import answer
from quire.web.auth import (
    AuthMiddleware,
    HostOriginMiddleware,
    OwnerSignIn,
    Sessions,
    SignInMethod,
    TeamSignIn,
)
from quire.web.authors import HistoryAuthorMiddleware
from quire.web.connections import OpenConnections
from quire.web.errors import http_error_handler, internal_error_handler, quire_error_handler
from quire.web.limits import BodyLimitMiddleware
from quire.web.login import login_response
from quire.web.openapi import OPENAPI_PATH, openapi_endpoint


@dataclass(frozen=True)
class SubApp:
    """An ASGI app served beside the API at ``path``, behind the same Host/Origin check, token
    check and body limit, with the lifespan it needs while the server runs."""

    path: str
    app: ASGIApp
    running: Callable[[], AbstractAsyncContextManager[None]]
    """Entered when the server starts, left (before the event bus closes) when it stops."""
    methods: tuple[str, ...]
    name: str


class _Served:
    """``app`` as a route's endpoint: Starlette takes a plain function or method for a
    ``request -> response`` handler, so an ASGI app that is one is wrapped in an object."""

    def __init__(self, app: ASGIApp) -> None:
        self._app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self._app(scope, receive, send)


def how_to_sign_in(services: AppServices) -> str:
    """The advice every 401 gives: where the token is and how a browser signs in."""
    if services.team is not None:
        return (
            "Send `Authorization: Bearer <token>` with an API token of your account: it may "
            "have expired or been revoked, or the account disabled. Make a new one on your "
            "account page or with `quire user token USER` on the server, then sign the CLI in "
            "again with `quire login @alias URL`; a browser signs in at /login."
        )
    return (
        "Send `Authorization: Bearer <token>` with the token in "
        f"{server_file(services.settings.state_dir)}, or open the login URL `quire serve` "
        "printed (it signs the browser in with a cookie)."
    )


def create_app(services: AppServices, *, sub_apps: Sequence[SubApp] = ()) -> Starlette:
    """The Quire server app over ``services`` (which the caller opened and will close), with
    ``sub_apps`` served after the app's own routes."""
    sessions = Sessions()
    advice = how_to_sign_in(services)

    async def home(request: Request) -> Response:
        """The home page; ``/?token=…`` signs a browser in first."""
        if "token" in request.query_params and services.team is None:
            return login_response(
                request, token=services.token, user=OWNER, sessions=sessions, how_to_sign_in=advice
            )
        return static_files.index_page(request, remote_images=bool(settings.remote_images))

    settings = services.settings

    async def health(request: Request) -> Response:
        """Whether the server is up, its version, and whether its database and its replicas'
        Redis answer (no token needed); 503 when the database does not."""
        answers = await services.database.answers()
        fanout = services.fanout
        shown = Health(
            ok=answers,
            version=__version__,
            replica=fanout.replica if fanout is not None else "",
            database="ok" if answers else "unreachable",
            fanout=fanout.state if fanout is not None else "alone",
        )
        return answer(shown, 200 if shown.ok else 503)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with AsyncExitStack() as stack:
            for sub_app in sub_apps:
                await stack.enter_async_context(sub_app.running())
            if connections is not None:
                await stack.enter_async_context(connections.watching())
            yield
        # Ends every /ws/events stream, so no socket keeps the shutdown waiting.
        services.bus.close()

    routes: list[BaseRoute] = [
        Route("/health", health, methods=["GET"], name="health"),
        Route("/", home, methods=["GET"], name="home"),
        Route(OPENAPI_PATH, openapi_endpoint, methods=["GET"], name="openapi"),
        *documents.routes,
        *windows.routes,
        *reviews.routes,
        *approvals.routes,
        *chats.routes,
        *preview.routes,
        *exports.routes,
        *files.routes,
        *rendering.routes,
        *remote_images.routes,
        *search.routes,
        *history.routes,
        *static_files.routes,
        *llms.routes,
        *events.routes,
        *sync.routes,
        *agents.routes,
        *account.routes,
        *(
            Route(sub.path, _Served(sub.app), methods=list(sub.methods), name=sub.name)
            for sub in sub_apps
        ),
    ]
    owner = OwnerSignIn(token=services.token, user=OWNER, sessions=sessions)
    connections: OpenConnections | None = None
    method: SignInMethod = owner
    if services.team is not None:
        team_sign_in = TeamSignIn(owner, services.team)
        method = team_sign_in
        connections = OpenConnections(team_sign_in)
        # After the API's own routes (Starlette tries routes in order, and every request pays
        # for the ones before its own), before the static files' catch-all.
        at = routes.index(static_files.routes[0])
        routes[at:at] = [*sign_in.routes, *account.multi_routes, *admin.routes]
    middleware = [
        Middleware(
            HostOriginMiddleware,
            host=settings.host,
            port=settings.port,
            scheme=settings.scheme,
            public_url=settings.public_url,
        ),
        Middleware(
            AuthMiddleware,
            method=method,
            connections=connections,
            how_to_sign_in=advice,
            sign_in_page=None if connections is None else sign_in.SIGN_IN_PATH,
        ),
        Middleware(HistoryAuthorMiddleware),
        Middleware(BodyLimitMiddleware),
    ]
    app = Starlette(
        routes=routes,
        middleware=middleware,
        exception_handlers={
            # One handler answers both HTTP requests and WebSockets, which Starlette's
            # handler type spells as two separate signatures.
            QuireError: cast("ExceptionHandler", quire_error_handler),
            HTTPException: http_error_handler,
            Exception: internal_error_handler,
        },
        lifespan=lifespan,
    )
    app.state.services = services
    app.state.connections = connections
    return app

"""HTTP routes of the admin page (multi mode only): accounts, served workspaces, grants and
access groups.

Thin: parse the request, call one method of ``services.users.admin.Admin`` (which decides
whether the asker may), answer the page's data afresh. A change that can take access away
closes the open connections it ended at once.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from quire.api.admin import (
    AdminGrant,
    AdminGroup,
    AdminOverview,
    AdminUser,
    AdminWorkspace,
    DisableBody,
    GrantBody,
    GroupBody,
    MemberBody,
    NewUserBody,
    PasswordResetBody,
    RevokeBody,
    RoleBody,
    UsernameBody,
)
from quire.core.teams.grants import check_access
from quire.services.users.access import current_access
from quire.services.users.admin import Admin, Subject, actor_of
from quire.web.answers import answer
from quire.web.arguments import query_args, read_body
from quire.web.context import rechecked, services_of, signed_in_by_browser


def _admin(request: Request) -> Admin:
    services = services_of(request)
    assert services.team is not None, "the admin routes are served in multi mode only"
    actor = actor_of(current_access(), by_browser=signed_in_by_browser(request))
    admin = Admin(services.team, services.workspaces.folders, actor)
    admin.require_admin()
    return admin


async def _overview(admin: Admin) -> Response:
    seen = await admin.overview()
    return answer(
        AdminOverview(
            everything=seen.everything,
            users=tuple(
                AdminUser(
                    username=user.username,
                    role=user.role,
                    disabled=user.disabled,
                    has_password=user.has_password,
                    created_at=user.created_at_ms,
                )
                for user in seen.users
            ),
            workspaces=tuple(
                AdminWorkspace(name=each.name, path=each.path, manageable=each.manageable)
                for each in seen.workspaces
            ),
            grants=tuple(
                AdminGrant(
                    username=grant.username,
                    group=grant.group,
                    workspace=grant.workspace,
                    prefix=grant.prefix,
                    access=check_access(grant.access),
                )
                for grant in seen.grants
            ),
            groups=tuple(
                AdminGroup(name=group.name, members=group.members) for group in seen.groups
            ),
        )
    )


async def overview(request: Request) -> Response:
    """The admin page's data: `{everything, users, workspaces, grants, groups}`. A superadmin
    (or the server's own token) sees every grant; a workspace admin those of the workspaces
    it holds write access to as a whole (`manageable`). 403 for anyone else."""
    query_args(request, ())
    return await _overview(_admin(request))


async def add_user(request: Request) -> Response:
    """Add the account `username` with `role` (default collaborator) and `password` (leave it
    out for an account that cannot sign in until one is set). Superadmins only."""
    admin = _admin(request)
    body = await read_body(request, NewUserBody)
    await admin.add_user(body.username, body.role, body.password)
    return await _overview(admin)


async def set_role(request: Request) -> Response:
    """Give another account `username` the `role` superadmin, admin or collaborator (the last
    enabled superadmin keeps its role). Superadmins only."""
    admin = _admin(request)
    body = await read_body(request, RoleBody)
    await admin.set_role(body.username, body.role)
    return rechecked(request, await _overview(admin))


async def set_disabled(request: Request) -> Response:
    """Disable (`disabled: true`: its sessions end, its tokens are refused, its open
    connections close) or enable another account. Superadmins only."""
    admin = _admin(request)
    body = await read_body(request, DisableBody)
    await admin.set_disabled(body.username, body.disabled)
    return rechecked(request, await _overview(admin))


async def delete_user(request: Request) -> Response:
    """Delete another account with its tokens, sessions, memberships and grants.
    Superadmins only."""
    admin = _admin(request)
    body = await read_body(request, UsernameBody)
    await admin.delete_user(body.username)
    return rechecked(request, await _overview(admin))


async def reset_password(request: Request) -> Response:
    """Set another account's `password` (by the password rules); its browser sessions end,
    its API tokens stay. Superadmins only."""
    admin = _admin(request)
    body = await read_body(request, PasswordResetBody)
    await admin.reset_password(body.username, body.password)
    return rechecked(request, await _overview(admin))


async def grant(request: Request) -> Response:
    """Give an account (`username`) or a group (`group`) `access` read or write on `prefix`
    (default: all) of the served `workspace`, replacing its grant on exactly that prefix.
    A superadmin grants on any served workspace; a workspace admin on those it manages."""
    admin = _admin(request)
    body = await read_body(request, GrantBody)
    await admin.grant(Subject(body.username, body.group), body.workspace, body.prefix, body.access)
    return rechecked(request, await _overview(admin))


async def revoke(request: Request) -> Response:
    """Remove the grant of an account (`username`) or a group (`group`) on exactly `prefix`
    (default: all) of `workspace`; open connections that lose access close at once."""
    admin = _admin(request)
    body = await read_body(request, RevokeBody)
    await admin.revoke(Subject(body.username, body.group), body.workspace, body.prefix)
    return rechecked(request, await _overview(admin))


async def add_group(request: Request) -> Response:
    """Make the empty access group `name`. Superadmins only."""
    admin = _admin(request)
    body = await read_body(request, GroupBody)
    await admin.add_group(body.name)
    return await _overview(admin)


async def delete_group(request: Request) -> Response:
    """Delete the group `name` with its memberships and grants (its members keep their own
    grants). Superadmins only."""
    admin = _admin(request)
    body = await read_body(request, GroupBody)
    await admin.delete_group(body.name)
    return rechecked(request, await _overview(admin))


async def add_member(request: Request) -> Response:
    """Put the account `username` in the group `group`. Superadmins only."""
    admin = _admin(request)
    body = await read_body(request, MemberBody)
    await admin.add_member(body.group, body.username)
    return await _overview(admin)


async def remove_member(request: Request) -> Response:
    """Take the account `username` out of the group `group`; its open connections that lose
    access close at once. Superadmins only."""
    admin = _admin(request)
    body = await read_body(request, MemberBody)
    await admin.remove_member(body.group, body.username)
    return rechecked(request, await _overview(admin))


routes: list[BaseRoute] = [
    Route("/api/admin", overview, methods=["GET"], name="admin"),
    Route("/api/admin/users", add_user, methods=["POST"], name="admin-user-add"),
    Route("/api/admin/users/role", set_role, methods=["POST"], name="admin-user-role"),
    Route("/api/admin/users/disable", set_disabled, methods=["POST"], name="admin-user-disable"),
    Route("/api/admin/users/delete", delete_user, methods=["POST"], name="admin-user-delete"),
    Route(
        "/api/admin/users/password", reset_password, methods=["POST"], name="admin-user-password"
    ),
    Route("/api/admin/grants", grant, methods=["POST"], name="admin-grant"),
    Route("/api/admin/grants/revoke", revoke, methods=["POST"], name="admin-grant-revoke"),
    Route("/api/admin/groups", add_group, methods=["POST"], name="admin-group-add"),
    Route("/api/admin/groups/delete", delete_group, methods=["POST"], name="admin-group-delete"),
    Route("/api/admin/groups/members", add_member, methods=["POST"], name="admin-member-add"),
    Route(
        "/api/admin/groups/members/remove",
        remove_member,
        methods=["POST"],
        name="admin-member-remove",
    ),
]
"""Served in multi mode only."""

"""How an account's call names a file on the server: absolute there, or by workspace."""

from __future__ import annotations

from pathlib import Path

import pytest

from quire.core.errors import InvalidArgument
from quire.mcp.remote_paths import server_path

ONE = [("team", "/srv/team")]
TWO = [("team", "/srv/team"), ("lab", "/data/lab")]


@pytest.mark.parametrize(
    ("raw", "workspaces", "expected"),
    [
        ("/srv/team/plan.md", TWO, "/srv/team/plan.md"),
        ("//srv//team/./plan.md", TWO, "/srv/team/plan.md"),
        ("/elsewhere/plan.md", ONE, "/elsewhere/plan.md"),  # the server judges it
        ("team/plan.md", TWO, "/srv/team/plan.md"),
        ("lab/a/b/c.md", TWO, "/data/lab/a/b/c.md"),
        ("lab", TWO, "/data/lab"),
        ("plans/q3.md", ONE, "/srv/team/plans/q3.md"),
        ("team/plans/q3.md", ONE, "/srv/team/plans/q3.md"),
        ("team//plans/q3.md", ONE, "/srv/team/plans/q3.md"),
    ],
)
def test_a_path_is_named_on_the_server(
    raw: str, workspaces: list[tuple[str, str]], expected: str
) -> None:
    assert server_path(raw, "path", workspaces) == Path(expected)


@pytest.mark.parametrize(
    ("raw", "workspaces", "says"),
    [
        ("~/plan.md", TWO, "starts with ~"),
        ("~", ONE, "starts with ~"),
        ("~alice/plan.md", ONE, "starts with ~"),
        ("team/../etc/passwd", TWO, "`.`, `..`"),
        ("../plan.md", ONE, "`.`, `..`"),
        ("./plan.md", ONE, "`.`, `..`"),
        ("team\\plan.md", ONE, "backslash"),
        ("other/plan.md", TWO, "names none of the server's workspaces"),
        ("plan.md", [], "no workspace on this server"),
        ("", ONE, "must not be empty"),
        ("  ", ONE, "must not be empty"),
        ("a\0b.md", ONE, "NUL"),
    ],
)
def test_a_path_the_server_cannot_take_is_refused_with_the_forms_it_can(
    raw: str, workspaces: list[tuple[str, str]], says: str
) -> None:
    with pytest.raises(InvalidArgument) as refused:
        server_path(raw, "path", workspaces)
    assert says in refused.value.message
    assert refused.value.argument == "path"


def test_the_refusal_names_the_servers_workspaces_as_examples() -> None:
    with pytest.raises(InvalidArgument) as refused:
        server_path("other/plan.md", "to", TWO)
    message = refused.value.message
    assert "`to`" in message and "/srv/team/note.md" in message and "team/note.md" in message
    assert "team, lab" in message

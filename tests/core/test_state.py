from pathlib import Path

import pytest

from quire.core.state import sessions_folder, state_folder

HOME = Path("/home/ann")


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({}, HOME / ".quire"),
        ({"QUIRE_HOME": ""}, HOME / ".quire"),
        ({"QUIRE_HOME": "   "}, HOME / ".quire"),
        ({"QUIRE_HOME": "/srv/quire"}, Path("/srv/quire")),
        ({"QUIRE_HOME": "alt"}, HOME / "alt"),
        ({"QUIRE_HOME": "~/q"}, HOME / "q"),
        ({"HOME": "/elsewhere"}, HOME / ".quire"),
    ],
)
def test_the_state_folder_follows_quire_home_else_dot_quire(
    environ: dict[str, str], expected: Path
) -> None:
    assert state_folder(environ, HOME) == expected


def test_sessions_live_in_the_state_folder() -> None:
    assert sessions_folder(Path("/s")) == Path("/s/sessions")

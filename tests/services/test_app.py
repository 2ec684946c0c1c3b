from pathlib import Path

import anyio
import pytest

from quire.core.errors import InvalidArgument
from quire.core.views import OWNER
from quire.services.app import open_services
from quire.settings.model import Settings
from tests.support.machines import machine_under

pytestmark = pytest.mark.anyio

TOKEN = "f" * 64


def _settings(tmp_path: Path) -> Settings:
    workspace = tmp_path / "workspace"
    workspace.mkdir(exist_ok=True)
    return Settings(workspaces=(workspace,), state_dir=tmp_path / "state")


async def test_the_services_share_one_database_bus_and_clock(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    machine = machine_under(tmp_path)
    async with open_services(settings, token=TOKEN, clock=lambda: 42, machine=machine) as services:
        assert services.settings is settings
        assert services.machine is machine
        assert services.token == TOKEN
        assert services.clock() == 42
        assert services.workspaces.folders == settings.workspaces
        assert (settings.state_dir / "quire.db").is_file()


async def test_closing_the_services_ends_every_event_subscription(tmp_path: Path) -> None:
    async with open_services(
        _settings(tmp_path), token=TOKEN, clock=lambda: 1, machine=machine_under(tmp_path)
    ) as services:
        bus = services.bus
    async with bus.subscribe(OWNER) as events:
        with anyio.fail_after(5):
            assert [event async for event in events] == []


async def test_unsaved_edits_survive_closing_and_reopening(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    note = settings.workspaces[0] / "note.md"
    note.write_text("# Draft\n\nfirst words\n", encoding="utf-8")
    async with open_services(
        settings, token=TOKEN, clock=lambda: 1, machine=machine_under(tmp_path)
    ) as services:
        opened = await services.windows.open(OWNER, note)
        await services.documents.replace_unique(opened.doc_id, "first", "second", author="agent")
    assert note.read_text(encoding="utf-8") == "# Draft\n\nfirst words\n"
    async with open_services(
        settings, token="e" * 64, clock=lambda: 2, machine=machine_under(tmp_path)
    ) as services:
        current = await services.windows.current(OWNER)
        assert current.path == note
        assert current.content == "# Draft\n\nsecond words\n"
        assert current.dirty


async def test_a_database_that_cannot_be_used_stops_the_start(tmp_path: Path) -> None:
    settings = _settings(tmp_path).model_copy(update={"db_url": "mysql://nowhere/db"})
    with pytest.raises(InvalidArgument, match="database URL"):
        async with open_services(
            settings, token=TOKEN, clock=lambda: 1, machine=machine_under(tmp_path)
        ):
            pass

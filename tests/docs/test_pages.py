"""Every page of docs/ names only commands, options, routes, MCP tools and settings that exist.

Each check reads every page (and the README) against the code itself: the click CLI, the app's
routes, the tool catalog and the settings model. The README's Documentation list names every
page. The last tests feed the checkers made-up names, so a typo in the docs cannot pass.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from starlette.routing import BaseRoute, Mount, Route, WebSocketRoute

from quire.api.operations import OPERATIONS
from quire.cli.lazy import LazyGroup
from quire.cli.main import cli
from quire.mcp.catalog import TOOLS
from quire.mcp.prompts import PROMPTS
from quire.services.app import open_services
from quire.settings.catalog import ENV_NAMES, FILE_KEYS, SETTINGS
from quire.settings.model import Settings
from quire.web.app import create_app
from tests.docs.mentions import (
    command_problems,
    route_problems,
    schema_names,
    setting_problems,
    tool_problems,
    unlisted_pages,
)
from tests.support.machines import machine_under

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PAGES = sorted(path.name for path in DOCS.glob("*.md"))
TEXTS = [*PAGES, "README.md"]


def _read(name: str) -> str:
    path = ROOT / name if name == "README.md" else DOCS / name
    return path.read_text(encoding="utf-8")


def _route_paths(routes: list[BaseRoute], prefix: str = "") -> set[str]:
    found: set[str] = set()
    for route in routes:
        if isinstance(route, Mount):
            found |= _route_paths(list(route.routes), prefix + route.path)
        elif isinstance(route, Route | WebSocketRoute):
            found.add(prefix + route.path)
    return found


@pytest.fixture
async def routes(tmp_path: Path, anyio_backend: str) -> set[str]:
    """The path of every route the app serves, HTTP and WebSocket, in either mode (multi mode
    adds the sign-in, account and admin routes)."""
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    found: set[str] = set()
    for mode in ("single", "multi"):
        settings = Settings(
            workspaces=(workspace,), state_dir=tmp_path / f"state-{mode}", mode=mode
        )
        async with open_services(
            settings, token="t" * 64, clock=lambda: 0, machine=machine_under(tmp_path)
        ) as services:
            found |= _route_paths(create_app(services).routes)
    return found


def _env_names_read() -> set[str]:
    """The QUIRE_ variables Quire's code names (the settings', those a command or a benchmark
    reads)."""
    names = {setting.env for setting in SETTINGS if setting.env is not None}
    for folder in ("src/quire", "tests/support", "scripts", "bench"):
        for path in (ROOT / folder).rglob("*"):
            if path.is_file() and path.suffix in ("", ".py"):
                text = path.read_text(encoding="utf-8", errors="replace")
                names |= set(re.findall(r"\bQUIRE_[A-Z0-9_]*[A-Z0-9]\b", text))
    return names


def _other_names() -> set[str]:
    """Names that look like tools but are something else: arguments, enum values, prompts."""
    names = {prompt.name for prompt in PROMPTS} | set(Settings.model_fields)
    for tool in TOOLS:
        names |= set(schema_names(tool.input_schema)) | set(schema_names(tool.output_schema))
    return names


@pytest.mark.parametrize("name", TEXTS)
def test_every_command_and_option_a_page_names_exists(name: str) -> None:
    assert isinstance(cli, LazyGroup)
    assert command_problems(_read(name), cli) == []


@pytest.mark.anyio
@pytest.mark.parametrize("name", TEXTS)
async def test_every_route_a_page_names_is_served(name: str, routes: set[str]) -> None:
    assert {operation.path for operation in OPERATIONS} <= routes
    assert route_problems(_read(name), routes) == []


@pytest.mark.parametrize("name", TEXTS)
def test_every_mcp_tool_a_page_names_is_in_the_catalog(name: str) -> None:
    tools = {tool.name for tool in TOOLS}
    assert tool_problems(_read(name), tools, _other_names()) == []


@pytest.mark.parametrize("name", TEXTS)
def test_every_setting_a_page_names_is_in_the_settings_model(name: str, tmp_path: Path) -> None:
    problems = setting_problems(_read(name), set(FILE_KEYS.values()), _env_names_read(), tmp_path)
    assert problems == []


def test_the_readme_documentation_list_names_every_page() -> None:
    assert unlisted_pages(_read("README.md"), PAGES) == []


def test_a_made_up_command_subcommand_or_option_is_caught() -> None:
    page = (
        "Run `quire srve`, then `quire chat pots --as claude`.\n\n"
        "```sh\n$ quire chat post --ass claude general hi\nquire mcp --no-roots\n```\n\n"
        "| `--no-rots` | typo |\n"
        "`codex mcp get quire --json` and `quire doctor [--json]` are fine.\n"
    )
    assert isinstance(cli, LazyGroup)
    assert command_problems(page, cli) == [
        "line 4: `quire chat post --ass`: no such option",
        "line 1: `quire srve`: no such command",
        "line 1: `quire chat pots`: no such command",
        "line 8: `--no-rots`: no command has this option",
    ]


def test_a_made_up_route_is_caught() -> None:
    routes = {"/api/window", "/api/reviews/{review_id}/wait", "/ws/events"}
    page = (
        "`GET /api/window` and `/api/reviews/{review_id}/wait`, `/ws/events`.\n"
        "`POST /api/windows` and `/ws/event` and `/api/reviews/{id}/wait`.\n"
    )
    assert route_problems(page, routes) == [
        "line 2: `/api/windows`: no such route",
        "line 2: `/ws/event`: no such route",
        "line 2: `/api/reviews/{id}/wait`: no such route",
    ]


def test_a_made_up_tool_name_is_caught() -> None:
    page = "`open_file`, `get_user_anotations`, `wait_ms`, `review_id` and `list_recents`.\n"
    tools = {"open_file", "list_recent", "get_user_annotations"}
    assert tool_problems(page, tools, {"wait_ms"}) == [
        "line 1: `get_user_anotations`: no such MCP tool",
        "line 1: `list_recents`: no such MCP tool",
    ]


def test_a_made_up_setting_is_caught(tmp_path: Path) -> None:
    page = (
        "Set `QUIRE_PROT` or `QUIRE_PORT`; `[chat] enabled` but `[chat] enable`, `server.prot`.\n"
        "```toml\n[server]\nport = 1\nhots = 'x'\n```\n"
    )
    problems = setting_problems(page, set(FILE_KEYS.values()), set(ENV_NAMES.values()), tmp_path)
    assert problems[:3] == [
        "line 1: `QUIRE_PROT`: Quire reads no such variable",
        "line 1: `chat.enable`: no such quire.toml key",
        "line 1: `server.prot`: no such quire.toml key",
    ]
    assert len(problems) == 4 and "unknown setting `server.hots`" in problems[3]


def test_a_page_missing_from_the_readme_is_caught() -> None:
    readme = "## Documentation\n\n- [docs/cli.md](docs/cli.md): commands.\n\n## Development\n"
    assert unlisted_pages(readme, ["cli.md", "settings.md"]) == ["settings.md"]

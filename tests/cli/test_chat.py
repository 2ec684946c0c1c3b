"""``quire chat`` as a real process against a real server: exact output and exit codes."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from quire.client.chats import ChatApi
from quire.client.transcript import GONE_MARKER
from quire.core.server_info import ServerInfo
from tests.cli.chat_world import (
    PROGRAM,
    TOKEN,
    ChatWorld,
    chat_world,
    client,
    finished,
    serve,
    start_process,
    started,
    until_waiting,
    write_server_file,
)

pytestmark = pytest.mark.anyio

TIME = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"
MODULE = " ".join(PROGRAM)


def stamped(text: str) -> str:
    """``text`` with every UTC time replaced by ``TIME``, so outputs compare exactly."""
    return re.sub(TIME, "TIME", text)


async def new_chat(world: ChatWorld, name: str = "team.md") -> Path:
    path = world.workspace / "Chats" / name
    await world.chats.create(str(path), "Release")
    return path


async def test_new_post_and_read_show_the_conversation(tmp_path: Path) -> None:
    async with chat_world(tmp_path) as world:
        made = await world.cli("new", "Chats/team.md", "Release")
        assert (made.code, made.stdout, made.stderr) == (
            0,
            f"Created the chat {world.workspace.resolve()}/Chats/team.md.\n",
            "",
        )
        again = await world.cli("new", "Chats/team.md")
        assert again.stdout == f"{world.workspace.resolve()}/Chats/team.md is already a chat.\n"
        posted = await world.cli("post", "Chats/team.md", "API migration is done.", "--as", "api")
        assert posted.stdout == (
            f"Posted #1 to {world.workspace.resolve()}/Chats/team.md as api.\n"
        )
        await world.chats.post(str(world.workspace / "Chats/team.md"), "web", "On it @api")
        read = await world.cli("read", "Chats/team.md", "--as", "qa")
    assert read.code == 0
    assert stamped(read.stdout) == (
        "In this chat: api, web\n\n"
        f"Title: Release\nPath: {world.workspace.resolve()}/Chats/team.md\n\n"
        "[#1] api · TIME\nAPI migration is done.\n\n"
        "[#2] web · TIME\nOn it @api\n"
    )


async def test_read_names_busy_agents_as_working_now(tmp_path: Path) -> None:
    async with chat_world(tmp_path) as world:
        chat = await new_chat(world)
        await world.chats.post(str(chat), "ann", "hello")
        await world.chats.post(str(chat), "qa-1", "/status running the suite")
        read = await world.cli("read", str(chat), "--as", "ann")
    assert read.stdout.splitlines()[0] == (
        "In this chat: ann, qa-1 · working now: qa-1 (running the suite)"
    )


async def test_wait_returns_what_others_posted_since_the_name_last_read(tmp_path: Path) -> None:
    async with chat_world(tmp_path) as world:
        chat = await new_chat(world)
        await world.chats.post(str(chat), "ann", "before")
        await world.cli("read", str(chat), "--as", "bot")
        await world.chats.post(str(chat), "bot", "my own post")
        await world.chats.post(str(chat), "ann", "while you were busy")
        waited = await world.cli("wait", str(chat), "--as", "bot", "--timeout", "30")
        again = await world.cli("wait", str(chat), "--as", "bot", "--after", "1", "--timeout", "30")
    assert (waited.code, stamped(waited.stdout), waited.stderr) == (
        0,
        "[#3] ann · TIME\nwhile you were busy\n",
        "",
    )
    assert stamped(again.stdout) == "[#3] ann · TIME\nwhile you were busy\n"


async def test_wait_wakes_the_moment_someone_posts(tmp_path: Path) -> None:
    async with chat_world(tmp_path) as world:
        chat = await new_chat(world)
        process = await started(["wait", str(chat), "--as", "bot", "--timeout", "60"], world)
        await world.waiting(chat, "bot")
        await world.chats.post(str(chat), "ann", "@bot ping")
        ran = await finished(process)
    assert (ran.code, stamped(ran.stdout)) == (0, "[#1] ann · TIME\n@bot ping\n")


async def test_wait_with_mentions_skips_messages_not_addressed_to_the_name(
    tmp_path: Path,
) -> None:
    async with chat_world(tmp_path) as world:
        chat = await new_chat(world)
        await world.cli("read", str(chat), "--as", "bot")
        await world.chats.post(str(chat), "ann", "general chatter, mail me at x@bot.com")
        await world.chats.post(str(chat), "ann", "@bot-2 not you")
        await world.chats.post(str(chat), "ann", "@Bot can you look?")
        await world.chats.post(str(chat), "ann", "@all standup")
        waited = await world.cli("wait", str(chat), "--as", "bot", "--mentions", "--timeout", "30")
    assert stamped(waited.stdout) == (
        "[#3] ann · TIME\n@Bot can you look?\n\n[#4] ann · TIME\n@all standup\n"
    )


async def test_wait_times_out_with_exit_2(tmp_path: Path) -> None:
    async with chat_world(tmp_path) as world:
        chat = await new_chat(world)
        waited = await world.cli("wait", str(chat), "--as", "bot", "--timeout", "1")
    assert (waited.code, waited.stdout, waited.stderr) == (
        2,
        f"No new messages for bot in {chat.resolve()} within 1 s. Run the same command again "
        "to keep waiting.\n",
        "",
    )


async def test_a_chat_deleted_mid_wait_exits_3_with_the_leave_command(tmp_path: Path) -> None:
    async with chat_world(tmp_path) as world:
        chat = await new_chat(world)
        process = await started(["wait", "Chats/team.md", "--as", "bot"], world)
        await world.waiting(chat, "bot")
        await world.chats.delete(str(chat))
        ran = await finished(process)
    assert (ran.code, ran.stderr) == (3, "")
    assert ran.stdout == (
        f"{GONE_MARKER}: {chat.resolve()} was deleted, made unreadable or is no longer a chat. "
        f"Stop waiting on it and run:\n{MODULE} chat leave Chats/team.md --as bot\n"
    )


async def test_wait_json_carries_the_messages_and_next(tmp_path: Path) -> None:
    async with chat_world(tmp_path) as world:
        chat = await new_chat(world)
        await world.chats.post(str(chat), "ann", "one")
        await world.chats.post(str(chat), "ann", "two")
        waited = await world.cli("wait", str(chat), "--as", "bot", "--after", "1", "--json")
    data = json.loads(waited.stdout)
    assert waited.code == 0
    assert data["status"] == "messages" and data["next"] == 2 and data["reminder"] is None
    assert [(m["number"], m["author"], m["body"]) for m in data["messages"]] == [(2, "ann", "two")]


async def test_after_a_post_the_keepalive_hook_still_replays_the_session_s_wait(
    tmp_path: Path,
) -> None:
    # A post sends no command line: the one the server keeps is the last wait's, which is
    # what the Stop hook hands back (replaying a post would post it twice).
    async with chat_world(tmp_path) as world:
        chat = await new_chat(world)
        wait = ["wait", "Chats/team.md", "--as", "bot", "--timeout", "1", "--session", "s-7"]
        assert (await world.cli(*wait)).code == 2
        posted = await world.cli("post", "Chats/team.md", "done", "--as", "bot", "--session", "s-7")
        assert posted.code == 0
        record = await world.chats.session("s-7")
    assert (record.last_kind, record.path) == ("post", str(chat.resolve()))
    assert record.wait_command == " ".join([*PROGRAM, "chat", *wait])


async def test_escape_sequences_in_messages_never_reach_the_terminal(tmp_path: Path) -> None:
    async with chat_world(tmp_path) as world:
        chat = await new_chat(world)
        await world.chats.post(str(chat), "ann", "\x1b[2J\x1b]0;owned\x07 \u202eevil\x9b")
        read = await world.cli("read", str(chat), "--as", "bot")
        waited = await world.cli("wait", str(chat), "--as", "eve", "--after", "0", "--json")
    for output in (read.stdout, waited.stdout):
        assert "\x1b" not in output and "\x07" not in output and "\u202e" not in output
        assert "\x9b" not in output
    assert "\\u{1B}[2J\\u{1B}]0;owned\\u{7} \\u{202E}evil\\u{9B}" in read.stdout
    assert json.loads(waited.stdout)["messages"][0]["body"] == (
        "\x1b[2J\x1b]0;owned\x07 \u202eevil\x9b"
    )


async def test_post_reads_the_message_from_stdin_or_a_file(tmp_path: Path) -> None:
    async with chat_world(tmp_path) as world:
        chat = await new_chat(world)
        (tmp_path / "msg.md").write_text("From a **file**.\n", encoding="utf-8")
        piped = await world.cli("post", str(chat), "-", "--as", "bot", stdin=b"From *stdin*.\n")
        filed = await world.cli(
            "post", str(chat), "--file", str(tmp_path / "msg.md"), "--as", "bot"
        )
        view = await world.chats.read(str(chat))
    assert (piped.code, filed.code) == (0, 0)
    assert [m.body for m in view.messages] == ["From *stdin*.", "From a **file**."]


MISTAKES: list[tuple[list[str], bytes | None, str]] = [
    (["post", "Chats/team.md"], None, "Pass the message to post"),
    (["post", "Chats/team.md", "x", "--file", "m.md"], None, "not both"),
    (["post", "Chats/team.md", "-"], b"\xff\xfe", "not UTF-8"),
    (["post", "Chats/team.md", "   "], None, "empty"),
    (["post", "Chats/team.md", "x" * 70_000], None, "64"),
    (["read", "@mini/notes/Chats/team.md"], None, "quire login"),
    (["read", "/etc/hosts.md"], None, "is not inside a workspace"),
    (["read", "Chats/missing.md"], None, "missing.md"),
    (["read", "Chats/notes.txt"], None, "Markdown"),
    (["read", "Chats/\x1b[2Jgone.md"], None, "Chats/\\u{1B}[2Jgone.md"),
    (["wait", "Chats/team.md", "--as", "(·)"], None, "as"),
    (["wait", "Chats/team.md", "--session", "has space"], None, "session"),
    (["avatar", "--as", "bot"], None, "exactly one of --pick"),
]


async def test_mistakes_exit_1_with_one_line_on_stderr(tmp_path: Path) -> None:
    async with chat_world(tmp_path) as world:
        await new_chat(world)
        for args, stdin, fragment in MISTAKES:
            ran = await world.cli(*args, stdin=stdin)
            assert (ran.code, ran.stdout) == (1, ""), (args, ran)
            assert ran.stderr.startswith("quire: ") and fragment in ran.stderr, (args, ran.stderr)
            assert ran.stderr.count("\n") == 1, (args, ran.stderr)


async def test_a_refused_token_fails_at_once_with_exit_1(tmp_path: Path) -> None:
    async with chat_world(tmp_path) as world:
        chat = await new_chat(world)
        info = world.info
        write_server_file(world.state, ServerInfo(info.url, "x" * 64, info.pid))
        ran = await world.cli("wait", str(chat), "--as", "bot", "--timeout", "60")
    assert ran.code == 1
    assert "refused the token" in ran.stderr


async def test_a_wait_outlives_a_server_restart_and_gets_the_next_message(
    tmp_path: Path,
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    state = tmp_path / "state"
    chat = workspace / "Chats" / "team.md"
    async with serve(workspace, state) as (_, port):
        first = ServerInfo(f"http://127.0.0.1:{port}", TOKEN, os.getpid())
        write_server_file(state, first)
        before = ChatApi(client(first, state))
        await before.create(str(chat), "Release")
        await before.read(str(chat), "bot")
        process = await start_process(
            ["wait", str(chat), "--as", "bot", "--timeout", "120"], workspace, state
        )
        await until_waiting(before, chat, "bot")
        await before.api.aclose()
    # The first server is gone; its server.json still names its port until the next one
    # starts, as when `quire serve` is restarted.
    async with serve(workspace, state) as (_, port):
        second = ServerInfo(f"http://127.0.0.1:{port}", TOKEN, os.getpid())
        after = ChatApi(client(second, state))
        write_server_file(state, second)
        await after.post(str(chat), "ann", "posted after the restart")
        ran = await finished(process)
        await after.api.aclose()
    assert (ran.code, stamped(ran.stdout), ran.stderr) == (
        0,
        "[#1] ann · TIME\nposted after the restart\n",
        "",
    )


async def test_list_leave_gifs_and_avatar(tmp_path: Path) -> None:
    async with chat_world(tmp_path) as world:
        chat = await new_chat(world)
        await world.chats.post(str(chat), "ann", "one")
        await world.chats.post(str(chat), "ann", "two")
        listed = await world.cli("list", "--as", "bot")
        in_workspace = await world.cli("list", ".", "--as", "ann", "--json")
        left = await world.cli("leave", "Chats/team.md", "--as", "bot")
        avatar = await world.cli("avatar", "--as", "bot", "--pick", "owl")
        gifs = await world.cli("gifs", "--json")
    root = world.workspace.resolve()
    assert stamped(listed.stdout) == (
        f"{root}/Chats/team.md — Release (2 messages, 2 unread, last TIME)\n"
    )
    assert json.loads(in_workspace.stdout)["chats"][0]["unread"] == 0
    assert left.stdout == f"bot left {root}/Chats/team.md.\n"
    assert avatar.stdout == "bot now has the avatar avatar-bot (the built-in owl).\n"
    data = json.loads(gifs.stdout)
    assert {"name": "nod", "builtin": True} in data["gifs"]
    assert data["avatars"] == {"bot": "avatar-bot"}

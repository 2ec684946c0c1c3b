"""The chat format on a long chat against the same work on a short one, in the same run.

Target (issue 7): reading a chat's newest message from the offset of its last message costs
about the same on a 10,000-message chat as on a 10-message chat (within 2x). Parsing the
whole chat grows with its length; it is reported beside it for scale.
"""

from __future__ import annotations

import random
from functools import partial

from bench.corpus import WORDS
from bench.timing import best_of, print_table, progress
from quire.core.chat import sanitize_label
from quire.markdown.chat import check_message, make_chat, message_block, parse_chat, scan_messages

SHORT, LONG = 10, 10_000
TAIL_CALLS = 500
TAIL_ROUNDS = 40
REPEAT = 5
TARGET = 2.0
LAST_BODY = "@agent-1 The release notes are ready for review.\n\n- `notes.md`\n- changelog"


def chat_of(count: int, seed: int = 7) -> str:
    """A chat note with ``count`` messages of a few sentences each, from three authors."""
    rng = random.Random(seed)
    text = make_chat("", "Bench chat") + "\nWhat this chat is for.\n"
    blocks: list[str] = []
    for number in range(count - 1):
        words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 60)))
        body = f"@agent-{number % 3} {words}.\n\n- {rng.choice(WORDS)}\n- `{rng.choice(WORDS)}`"
        minute, second = divmod(number, 60)
        stamp = f"2026-10-02T{minute // 60 % 24:02d}:{minute % 60:02d}:{second:02d}Z"
        blocks.append(
            message_block(sanitize_label(f"agent-{number % 3}"), stamp, check_message(body))
        )
    # The same last message in every chat, so only the chat's length differs between runs.
    blocks.append(
        message_block(sanitize_label("agent-0"), "2026-10-03T00:00:00Z", check_message(LAST_BODY))
    )
    return text + "\n" + "\n".join(blocks)


def _tail(text: str, offset: int, number: int) -> None:
    for _ in range(TAIL_CALLS):
        scan_messages(text, offset, number)


def _best_tails(chats: dict[int, str]) -> dict[int, float]:
    """Per chat, the fastest tail read of many rounds; the chats take turns within each round
    so a burst of load on a shared machine slows both alike."""
    best = dict.fromkeys(chats, float("inf"))
    lasts = {count: parse_chat(text).messages[-1] for count, text in chats.items()}
    for _ in range(TAIL_ROUNDS):
        for count, text in chats.items():
            last = lasts[count]
            elapsed = best_of(partial(_tail, text, last.offset, last.number), 1)
            best[count] = min(best[count], elapsed / TAIL_CALLS)
    return best


def run() -> None:
    """Time the tail read and the whole parse on both chats and print the ratio table."""
    chats: dict[int, str] = {}
    for count in (SHORT, LONG):
        progress(f"chat format: generating a {count:,}-message chat")
        chats[count] = chat_of(count)
        last = parse_chat(chats[count]).messages[-1]
        assert scan_messages(chats[count], last.offset, last.number) == (last,)
    progress("chat format: reading the last message of each chat")
    tails = _best_tails(chats)
    progress("chat format: parsing each whole chat")
    wholes = {count: best_of(partial(parse_chat, text), REPEAT) for count, text in chats.items()}
    timings = {count: (tails[count], wholes[count]) for count in chats}
    ratio = timings[LONG][0] / timings[SHORT][0]
    print_table(
        "Chat format: a 10,000-message chat as a ratio to a 10-message chat",
        ["operation", "10 messages", "10,000 messages", "ratio", "target", "result"],
        [
            [
                "scan from the last message",
                f"{timings[SHORT][0] * 1e6:.1f} µs",
                f"{timings[LONG][0] * 1e6:.1f} µs",
                f"{ratio:.2f}",
                f"≤ {TARGET}",
                "met" if ratio <= TARGET else "MISSED",
            ],
            [
                "parse the whole chat",
                f"{timings[SHORT][1] * 1e3:.2f} ms",
                f"{timings[LONG][1] * 1e3:.2f} ms",
                f"{timings[LONG][1] / timings[SHORT][1]:.0f}",
                "",
                "",
            ],
        ],
    )

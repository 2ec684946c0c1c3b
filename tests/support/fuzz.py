"""A seeded generator of hostile input for the fuzz suites (HTTP routes, the document
WebSocket, ``quire mcp``'s stdio): JSON values of every type and size that matters, bodies
built on a model's own field names, and bytes that are not JSON or not UTF-8.

``QUIRE_FUZZ_SCALE`` multiplies how many inputs each suite sends: ``make test`` runs 1 (a few
seconds), ``make fuzz`` a long profile. The seed is printed with any failure, so a finding
replays exactly (``QUIRE_FUZZ_SEED``).
"""

from __future__ import annotations

import json
import os
import random
import sys
from types import UnionType
from typing import Any, Literal, Union, get_args, get_origin

SCALE = int(os.environ.get("QUIRE_FUZZ_SCALE", "1") or "1")
SEED = int(os.environ.get("QUIRE_FUZZ_SEED", "1212") or "1212")

INTEGERS = (0, 1, -1, 7, 3, 2**31, -(2**31), 2**53 + 1, 2**63 - 1, -(2**63), 2**63, 2**64, 10**30)
TEXTS = (
    "",
    " ",
    "a",
    "é日😀",
    "\x00",
    "\ud800",
    "\udce9.md",
    "../" * 30 + "etc/passwd",
    "/etc/passwd",
    "/",
    "~",
    "~/.ssh/id_rsa.md",
    "n" * 300 + ".md",
    "/".join(["d" * 250] * 20) + ".md",
    "x" * 5000,
    "<script>alert(1)</script>",
    "-",
    "html",
    "edit",
    "read",
    "mine",
    "approved",
    "[[[[",
    '{"a": 1}',
    "\n\r\t",
    "C:\\Windows\\x.md",
    "@alias",
    "http://127.0.0.1:9/x",
)
RAW = (
    b"",
    b"{",
    b"[1,",
    b"nul",
    b"\xff\xfe\x00{}",
    b'{"a": "\xff"}',
    b"\xef\xbb\xbf{}",
    b"NaN",
    b'{"a": NaN}',
    b'{"a": 1e99999}',
    b'{"a": -' + b"9" * 5000 + b"}",
    b"[" * 5000 + b"]" * 5000,
    b'{"a":' * 3000 + b"1" + b"}" * 3000,
    b"0" * 20000,
    b'"' + b"\\" * 999 + b'"',
    b'{"a": "\\ud800\\udc00\\udfff"}',
)


class Hostile:
    """Random hostile values from one seeded stream; ``paths`` are real paths worth hitting."""

    def __init__(self, seed: int, paths: tuple[str, ...] = ()) -> None:
        self.random = random.Random(seed)
        self.texts = (*TEXTS, *paths)

    def value(self, depth: int = 0) -> Any:
        """A JSON value: scalars of every kind, and containers up to a few levels (rarely deep)."""
        pick = self.random.random()
        if depth > 3 or pick < 0.3:
            return self.random.choice(self.texts)
        if pick < 0.5:
            return self.random.choice(INTEGERS)
        if pick < 0.6:
            return self.random.choice((True, False, None, 0.5, -0.0, 1e308, 5e-324, 1.5e300))
        if pick < 0.75:
            return [self.value(depth + 1) for _ in range(self.random.randint(0, 4))]
        if pick < 0.78:
            return self.deep(self.random.choice((63, 64, 65, 200)))
        return {
            self.random.choice(self.texts)[:20]: self.value(depth + 1)
            for _ in range(self.random.randint(0, 4))
        }

    def deep(self, levels: int) -> Any:
        value: Any = 1
        for _ in range(levels):
            value = [value] if self.random.random() < 0.5 else {"a": value}
        return value

    def body(self, fields: tuple[str, ...]) -> bytes:
        """A request body: mostly an object over ``fields`` (some left out, some extra), at
        times another JSON value or raw bytes that are not JSON."""
        pick = self.random.random()
        if pick < 0.1:
            return self.random.choice(RAW)
        if pick < 0.2:
            return dump(self.value())
        names = [name for name in fields if self.random.random() < 0.7]
        if self.random.random() < 0.2:
            names.append(self.random.choice(self.texts)[:20])
        return dump({name: self.value() for name in names})

    def typed(self, annotation: Any, depth: int = 0) -> Any:
        """A value of the type ``annotation`` names, with hostile contents (to get past the
        body's types and reach the services)."""
        origin, args = get_origin(annotation), get_args(annotation)
        if origin is Literal:
            return self.random.choice(args)
        if origin in (Union, UnionType):
            return self.typed(self.random.choice(args), depth)
        if origin in (list, tuple) and args and depth < 3:
            return [self.typed(args[0], depth + 1) for _ in range(self.random.randint(0, 3))]
        if annotation is str:
            return self.random.choice(self.texts)
        if annotation is bool:
            return self.random.random() < 0.5
        if annotation is int:
            return self.random.choice(INTEGERS)
        if annotation is float:
            return self.random.choice((0.0, -1.5, 1e308, 5e-324, 12.5, 3))
        if annotation is type(None):
            return None
        return self.value(depth)

    def bytes_(self, size: int) -> bytes:
        return bytes(self.random.getrandbits(8) for _ in range(size))


def dump(value: Any) -> bytes:
    """``value`` as JSON text; lone surrogates as escapes (valid JSON they are)."""
    return json.dumps(value, ensure_ascii=True).encode()


def report(line: str) -> None:
    """A suite's count of inputs and what came back (shown by ``make fuzz``, which runs -s)."""
    sys.stderr.write(f"\n[fuzz] {line}\n")

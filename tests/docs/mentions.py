"""What a docs page mentions (commands, options, routes, tool names, settings) and which are wrong.

Each checker takes a page's text and what exists, and returns one problem line per mention that
names nothing real, so a test can list them all and another can feed it a made-up name.
Commands and options are read from code (inline spans and fenced blocks), where the docs write
them; prose is left alone.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Set
from dataclasses import dataclass
from pathlib import Path

import click

from quire.core.errors import InvalidArgument
from quire.settings.config_file import read_config

_FENCE = re.compile(r"^```([\w-]*)\n(.*?)^```", re.M | re.S)
_INLINE = re.compile(r"`([^`\n]+)`")
# `quire` where a command starts: at the start of a span or line, after a shell separator, a
# quote, `-- ` (claude mcp add … -- quire mcp) or a folder (.venv/bin/quire).
_COMMAND = re.compile(
    r"(?:^|(?<=\$ )|(?<=&& )|(?<=\|\| )|(?<=\| )|(?<=; )|(?<=-- )|(?<=\()|(?<=[\"'/]))"
    r"quire((?: [a-z][a-z0-9-]*)*)(?![\w.-])"
)
_SEPARATOR = re.compile(r"\|\||&&|[|;)]|\s#")
_OPTION = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*)")
_ROUTE = re.compile(r"(?<![\w/.])/(?:api|ws)/[A-Za-z0-9_{}./-]*[A-Za-z0-9_}]")
_IDENTIFIER = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+")
_ENV = re.compile(r"\bQUIRE_[A-Z0-9_]*[A-Z0-9]\b")
_TABLE_KEY = re.compile(r"^\[([a-z_]+)\] ([a-z_]+)(?: = .*)?$")
_DOTTED_KEY = re.compile(r"^([a-z_]+)\.([a-z_]+)(?: = .*)?$")


@dataclass(frozen=True)
class Code:
    """One piece of code on a page: an inline span or a line of a fenced block."""

    line: int
    text: str
    language: str | None
    """The fence's language (``""`` when none is given); None for an inline span."""


def code_of(page: str) -> list[Code]:
    """Every inline code span and every line of every fenced block of ``page``."""
    found: list[Code] = []
    fenced: list[tuple[int, int]] = []
    for block in _FENCE.finditer(page):
        fenced.append(block.span())
        first = page.count("\n", 0, block.start(2)) + 1
        for offset, text in enumerate(block.group(2).splitlines()):
            found.append(Code(first + offset, text.strip(), block.group(1)))
    for span in _INLINE.finditer(page):
        if not any(start <= span.start() < end for start, end in fenced):
            found.append(Code(page.count("\n", 0, span.start()) + 1, span.group(1), None))
    return found


def fenced_blocks(page: str, language: str) -> Iterator[tuple[int, str]]:
    """(line, text) of every fenced block of ``page`` written in ``language``."""
    for block in _FENCE.finditer(page):
        if block.group(1) == language:
            yield page.count("\n", 0, block.start(2)) + 1, block.group(2)


def _context(command: click.Command, name: str, parent: click.Context | None) -> click.Context:
    """A context as click makes it at run time, the command's own settings applied: click keeps
    the help option a command first shows, so one made without ``-h`` would stay without it
    (and the generated reference, made later in the same process, would miss it)."""
    return click.Context(command, parent=parent, info_name=name, **command.context_settings)


def _options_of(command: click.Command, context: click.Context) -> set[str]:
    """The long options of ``command`` and of every command below it, help included."""
    names = {
        opt for param in command.get_params(context) for opt in param.opts + param.secondary_opts
    }
    if isinstance(command, click.Group):
        for name in command.list_commands(context):
            sub = command.get_command(context, name)
            if sub is not None:
                names |= _options_of(sub, _context(sub, name, context))
    return {name for name in names if name.startswith("--")}


def _resolve(
    root: click.Group, words: list[str]
) -> tuple[click.Command, click.Context, str | None]:
    """The command ``words`` name (leaf commands take the rest as arguments), or the bad word."""
    command: click.Command = root
    context = _context(root, "quire", None)
    for word in words:
        if not isinstance(command, click.Group):
            break
        sub = command.get_command(context, word)
        if sub is None:
            return command, context, word
        context = _context(sub, word, context)
        command = sub
    return command, context, None


def command_problems(page: str, root: click.Group) -> list[str]:
    """Every `quire …` command or `--option` in the page's code that the CLI does not have."""
    problems: list[str] = []
    every_option = _options_of(root, _context(root, "quire", None))
    for code in code_of(page):
        text = code.text.removeprefix("$ ")
        matched = False
        for mention in _COMMAND.finditer(text):
            matched = True
            words = mention.group(1).split()
            command, context, bad = _resolve(root, words)
            if bad is not None:
                path = " ".join(["quire", *words[: words.index(bad) + 1]])
                problems.append(f"line {code.line}: `{path}`: no such command")
                continue
            rest = _SEPARATOR.split(text[mention.end() :], maxsplit=1)[0]
            known = _options_of(command, context)
            for option in _OPTION.findall(rest):
                if option not in known:
                    problems.append(
                        f"line {code.line}: `{context.command_path} {option}`: no such option"
                    )
        if not matched and code.language is None and text.lstrip("[").startswith("--"):
            for option in _OPTION.findall(text):
                if option not in every_option:
                    problems.append(f"line {code.line}: `{option}`: no command has this option")
    return problems


def route_problems(page: str, routes: Set[str]) -> list[str]:
    """Every `/api/…` or `/ws/…` path on the page that is not a route of the app."""
    problems = []
    for number, line in enumerate(page.splitlines(), 1):
        for path in _ROUTE.findall(line):
            if path.split("?")[0] not in routes:
                problems.append(f"line {number}: `{path}`: no such route")
    return problems


def tool_problems(page: str, tools: Set[str], other_names: Set[str]) -> list[str]:
    """Every backticked name that looks like an MCP tool (it starts with a tool's verb) yet is
    neither a tool nor another known name (an argument, an enum value, a prompt, a setting)."""
    verbs = {name.split("_")[0] for name in tools}
    problems = []
    for code in code_of(page):
        name = code.text.strip()
        if code.language is not None or not _IDENTIFIER.fullmatch(name):
            continue
        if name.split("_")[0] in verbs and name not in tools and name not in other_names:
            problems.append(f"line {code.line}: `{name}`: no such MCP tool")
    return problems


def schema_names(schema: object) -> Iterator[str]:
    """Every property name and string value (enum, const, default) anywhere in a JSON Schema."""
    if isinstance(schema, Mapping):
        for key, value in schema.items():
            if key == "properties" and isinstance(value, Mapping):
                yield from (str(name) for name in value)
            yield from schema_names(value)
    elif isinstance(schema, list | tuple):
        for item in schema:
            yield from schema_names(item)
    elif isinstance(schema, str):
        yield schema


def setting_problems(page: str, file_keys: Set[str], env_names: Set[str], tmp: Path) -> list[str]:
    """Every quire.toml key, TOML block or QUIRE_ variable on the page the settings lack.

    ``env_names`` holds the variables Quire reads (the settings' and those the CLI reads).
    """
    problems = []
    tables = {key.split(".")[0] for key in file_keys if "." in key}
    for number, line in enumerate(page.splitlines(), 1):
        for name in _ENV.findall(line):
            if name not in env_names:
                problems.append(f"line {number}: `{name}`: Quire reads no such variable")
    for code in code_of(page):
        if code.language is not None:
            continue
        for pattern in (_TABLE_KEY, _DOTTED_KEY):
            key = pattern.match(code.text)
            if key is not None and key.group(1) in tables:
                dotted = f"{key.group(1)}.{key.group(2)}"
                if dotted not in file_keys:
                    problems.append(f"line {code.line}: `{dotted}`: no such quire.toml key")
    for number, block in fenced_blocks(page, "toml"):
        path = tmp / f"block-{number}.toml"
        path.write_text(block, encoding="utf-8")
        try:
            read_config(path)
        except InvalidArgument as err:
            problems.append(f"line {number}: the quire.toml block is refused: {err.message}")
    return problems


def unlisted_pages(readme: str, pages: Iterable[str]) -> list[str]:
    """The pages the README's Documentation list does not link."""
    section = re.search(r"^## Documentation\n(.*?)(?=^## |\Z)", readme, re.M | re.S)
    listed = section.group(1) if section else ""
    return [page for page in pages if f"](docs/{page})" not in listed]

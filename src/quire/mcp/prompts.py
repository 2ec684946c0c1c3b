"""The MCP prompts: summarize, review_plan and improve_writing, each embedding the live document.

A prompt takes no arguments (any given is refused); it reads the open document through the
server, starting it when none runs. Errors are JSON-RPC errors, as for ``quire://current``.
"""

from __future__ import annotations

from dataclasses import dataclass

import mcp_types as types
from mcp.shared.exceptions import MCPError

from quire.core.errors import QuireError
from quire.mcp.arguments import closest, quoted_list
from quire.mcp.context import ToolEnv
from quire.mcp.resources import RESOURCE_NOT_FOUND, SERVER_ERROR


@dataclass(frozen=True)
class PromptSpec:
    """One prompt: its name, title and the instruction put before the document."""

    name: str
    title: str
    instruction: str


PROMPTS: tuple[PromptSpec, ...] = (
    PromptSpec(
        "summarize",
        "Summarize the open document",
        "Summarize the document below as a short bulleted list of its key points.",
    ),
    PromptSpec(
        "review_plan",
        "Review the open document as a plan",
        "Review the document below as an implementation plan: point out its risks, missing "
        "steps and anything ambiguous, most important first.",
    ),
    PromptSpec(
        "improve_writing",
        "Improve the open document's writing",
        "Tighten the prose of the document below and fix its grammar, without changing its "
        "meaning or its structure. Answer with the revised Markdown.",
    ),
)

BY_NAME = {prompt.name: prompt for prompt in PROMPTS}

_ABOUT = (
    " It embeds the document open in Quire (open one with the open_file tool first) and takes "
    "no arguments. With no document open the request fails with -32002; when the server "
    "cannot be reached or refuses this client's token, with -32000 and the fix."
)


def listed_prompts() -> list[types.Prompt]:
    """Every prompt as ``prompts/list`` shows it."""
    return [
        types.Prompt(name=prompt.name, title=prompt.title, description=prompt.instruction + _ABOUT)
        for prompt in PROMPTS
    ]


async def get_prompt(
    env: ToolEnv, name: str, arguments: dict[str, str] | None
) -> types.GetPromptResult:
    """The prompt ``name`` with the open document's live text after its instruction."""
    prompt = BY_NAME.get(name)
    if prompt is None:
        guess = closest(name, list(BY_NAME))
        hint = f" Did you mean `{guess}`?" if guess else ""
        raise MCPError(
            code=types.INVALID_PARAMS,
            message=f"Unknown prompt {name[:100]!r}.{hint} Quire's prompts are "
            f"{quoted_list(list(BY_NAME))}.",
        )
    if arguments:
        raise MCPError(
            code=types.INVALID_PARAMS,
            message=f"The prompt {name} takes no arguments, got {quoted_list(list(arguments))}. "
            "It works on the open document: open the one you mean with the open_file tool, "
            "then get the prompt again.",
        )
    try:
        api = await env.link.api()
        current = await api.current()
    except QuireError as exc:
        raise MCPError(code=SERVER_ERROR, message=str(exc)) from None
    if current.path is None:
        raise MCPError(
            code=RESOURCE_NOT_FOUND,
            message="No document is open in Quire. Open one first (open_file), then get the "
            "prompt again.",
        )
    text = f"{prompt.instruction}\n\nDocument: {current.path}\n\n{current.content}"
    return types.GetPromptResult(
        description=prompt.title,
        messages=[types.PromptMessage(role="user", content=types.TextContent(text=text))],
    )

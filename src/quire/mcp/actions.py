"""The list_ai_actions tool: Quire's catalog of editor AI actions, with their prompt templates.

Pure data an agent can use as it is (the web UI offers the same actions); no server, no disk.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from quire.mcp import schemas as s
from quire.mcp.context import ToolEnv, ToolSpec

Scope = Literal["selection", "document"]

DOCUMENT_TEXT_LIMIT = 8000
"""The most characters of a document a document-scope action sends as ``{text}``."""

_EDITOR = (
    "You are a careful writing assistant inside a Markdown editor. Keep the author's voice, "
    "keep Markdown syntax valid, and answer with the result only, without preamble."
)
_READER = (
    "You help a person understand a Markdown document. Be accurate and brief, quote the text "
    "where it helps, and say so when the text does not answer something."
)


@dataclass(frozen=True)
class Action:
    """One AI action: what the editor shows and the prompt it sends."""

    id: str
    label: str
    short_label: str
    icon: str
    scope: Scope
    system_prompt: str
    user_prompt_template: str
    argument: str | None = None

    def data(self, *, include_prompts: bool) -> dict[str, Any]:
        """The action as JSON; the templates only when ``include_prompts``."""
        item: dict[str, Any] = {
            "id": self.id,
            "label": self.label,
            "shortLabel": self.short_label,
            "icon": self.icon,
            "scope": self.scope,
        }
        if self.argument is not None:
            item["argument"] = self.argument
        if include_prompts:
            item["systemPrompt"] = self.system_prompt
            item["userPromptTemplate"] = self.user_prompt_template
        return item


ACTIONS: tuple[Action, ...] = (
    Action(
        "explain",
        "Explain selection",
        "Explain",
        "lightbulb",
        "selection",
        _READER,
        "Explain this passage in plain words: what it says and why it matters.\n\n{text}",
    ),
    Action(
        "summarize",
        "Summarize selection",
        "Summarize",
        "list",
        "selection",
        _READER,
        "Summarize this passage in two or three sentences.\n\n{text}",
    ),
    Action(
        "rewrite",
        "Rewrite for clarity",
        "Rewrite",
        "pen",
        "selection",
        _EDITOR,
        "Rewrite this passage so it reads clearly, keeping its meaning.\n\n{text}",
    ),
    Action(
        "simplify",
        "Simplify wording",
        "Simplify",
        "feather",
        "selection",
        _EDITOR,
        "Rewrite this passage in simpler words and shorter sentences.\n\n{text}",
    ),
    Action(
        "shorten",
        "Make shorter",
        "Shorten",
        "scissors",
        "selection",
        _EDITOR,
        "Cut this passage to about half its length without losing its point.\n\n{text}",
    ),
    Action(
        "expand",
        "Expand",
        "Expand",
        "plus",
        "selection",
        _EDITOR,
        "Develop this passage with the detail a reader needs, in the same style.\n\n{text}",
    ),
    Action(
        "fix-grammar",
        "Fix spelling and grammar",
        "Fix",
        "check",
        "selection",
        _EDITOR,
        "Correct the spelling, grammar and punctuation of this passage; change nothing "
        "else.\n\n{text}",
    ),
    Action(
        "to-list",
        "Turn into a list",
        "List",
        "list-bullet",
        "selection",
        _EDITOR,
        "Turn this passage into a Markdown bulleted list of its points.\n\n{text}",
    ),
    Action(
        "continue",
        "Continue writing",
        "Continue",
        "arrow-right",
        "selection",
        _EDITOR,
        "Continue this text with the next paragraph, in the same voice.\n\n{text}",
    ),
    Action(
        "translate",
        "Translate",
        "Translate",
        "globe",
        "selection",
        _EDITOR,
        "Translate this passage into {arg}, keeping its Markdown formatting.\n\n{text}",
        argument="The language to translate into, such as French or Japanese.",
    ),
    Action(
        "doc-summarize",
        "Summarize document",
        "Summary",
        "list",
        "document",
        _READER,
        "Summarize this document as a short bulleted list of its key points.\n\n{text}",
    ),
    Action(
        "doc-outline",
        "Outline document",
        "Outline",
        "tree",
        "document",
        _READER,
        "Give the outline of this document as nested Markdown bullets, one per section, "
        "each with a one-line gist.\n\n{text}",
    ),
    Action(
        "doc-review-plan",
        "Review as a plan",
        "Review",
        "shield",
        "document",
        _READER,
        "Review this document as an implementation plan: list its risks, missing steps and "
        "anything ambiguous, most important first.\n\n{text}",
    ),
    Action(
        "doc-questions",
        "Questions a reader would ask",
        "Questions",
        "help",
        "document",
        _READER,
        "List the questions a first-time reader of this document would ask that it does "
        "not answer.\n\n{text}",
    ),
    Action(
        "explain-diff",
        "Explain changes",
        "Changes",
        "diff",
        "document",
        _READER,
        "Compare the version on disk with the edited version and explain what changed and "
        "why it matters.\n\nOn disk:\n{arg}\n\nEdited:\n{text}",
        argument="The version of the document on disk, to compare the edited text with.",
    ),
)


async def list_ai_actions_tool(env: ToolEnv, args: dict[str, Any]) -> dict[str, Any]:
    """Every action, with its prompt templates unless ``include_prompts`` is false."""
    include = bool(args.get("include_prompts", True))
    actions = [action.data(include_prompts=include) for action in ACTIONS]
    return {"actions": actions, "count": len(actions), "documentTextLimit": DOCUMENT_TEXT_LIMIT}


LIST_AI_ACTIONS = ToolSpec(
    name="list_ai_actions",
    title="List AI actions",
    description=(
        "Quire's editor AI actions (explain, summarize, rewrite, translate, …): id, label, "
        "shortLabel, icon, scope and, unless include_prompts is false, systemPrompt and "
        "userPromptTemplate. Templates read the text as {text} (the selection, or a document's "
        "first 8,000 characters); an argument field adds {arg}. Needs no server."
    ),
    input_schema=s.obj(
        {"include_prompts": s.boolean("Include the prompt templates.", True)},
    ),
    output_schema=s.out(
        {
            "actions": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "id": s.STRING,
                        "label": s.STRING,
                        "shortLabel": s.STRING,
                        "icon": s.STRING,
                        "scope": {"type": "string", "enum": ["selection", "document"]},
                        "argument": s.STRING,
                        "systemPrompt": s.STRING,
                        "userPromptTemplate": s.STRING,
                    },
                    "required": ["id", "label", "shortLabel", "icon", "scope"],
                },
            },
            "count": s.INTEGER,
            "documentTextLimit": s.INTEGER,
        },
        ["actions", "count"],
    ),
    handler=list_ai_actions_tool,
    read_only=True,
    idempotent=True,
)

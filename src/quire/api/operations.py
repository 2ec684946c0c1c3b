"""Every operation of the HTTP API: method, path, summary, tag, body, query and answer model.

The one table the OpenAPI document, the route checks and the client's expectations come from;
a test checks that it and the app's ``/api/`` routes name the same operations.
"""

from __future__ import annotations

from dataclasses import dataclass

from quire.api import (
    agents,
    chats,
    documents,
    export_requests,
    exports,
    files,
    reviews,
    search,
    windows,
)
from quire.api.base import Answer, Ok, StrictBody


@dataclass(frozen=True)
class Query:
    """A query parameter: its name, JSON type and meaning."""

    name: str
    kind: str
    description: str
    required: bool = False


@dataclass(frozen=True)
class Operation:
    """One documented method on one path."""

    method: str
    path: str
    summary: str
    tag: str
    body: type[StrictBody] | None = None
    query: tuple[Query, ...] = ()
    public: bool = False
    answer: type[Answer] | None = None
    """The model of a 200 answer; None for an answer that is not JSON (``media`` says what)."""
    media: str = "application/json"
    other_answers: tuple[type[Answer], ...] = ()
    """Further shapes a 200 answer may have, chosen by the request (``/api/render``: one text
    or a list of them)."""

    @property
    def answers(self) -> tuple[type[Answer], ...]:
        """Every model a 200 answer may have, ``answer`` first."""
        return () if self.answer is None else (self.answer, *self.other_answers)


OPERATIONS: tuple[Operation, ...] = (
    Operation("GET", "/health", "Whether the server is up (no token needed)", "server",
              public=True, answer=Ok),
    Operation("GET", "/api/openapi.json", "This description of the API", "server"),
    Operation("POST", "/api/documents/open", "Open a file in the window", "documents",
              documents.OpenBody, answer=documents.OpenedDocument),
    Operation("GET", "/api/documents/current", "The open document's live text", "documents",
              answer=documents.CurrentDocument),
    Operation("POST", "/api/documents/edit", "Replace one exact occurrence", "documents",
              documents.EditBody, answer=documents.Replaced),
    Operation("POST", "/api/documents/stream-edit", "Preview a find/replace", "documents",
              documents.StreamEditBody, answer=documents.StreamPreview),
    Operation("POST", "/api/documents/stream-edit-apply", "Apply a previewed find/replace",
              "documents", documents.ApplyBody, answer=documents.AppliedPreview),
    Operation("POST", "/api/documents/set-content", "Replace the whole text", "documents",
              documents.ContentBody, answer=documents.ContentSet),
    Operation("POST", "/api/documents/save", "Save the open document", "documents",
              documents.SaveBody, answer=documents.Saved),
    Operation("GET", "/api/documents/render", "The Read view's HTML of an open document",
              "documents", query=(Query("docId", "string", "The open tab's docId.", True),
                                  Query("part", "string", "head: a long document's start.")),
              answer=documents.RenderedDocument),
    Operation("GET", "/api/documents/state", "Unsaved edits and conflict of an open document",
              "documents", query=(Query("docId", "string", "The open tab's docId.", True),),
              answer=documents.DocumentState),
    Operation("POST", "/api/documents/toggle-task", "Tick or clear a task checkbox",
              "documents", documents.ToggleTaskBody, answer=documents.TaskToggled),
    Operation("POST", "/api/documents/resolve-conflict", "Keep your text or the file's",
              "documents", documents.ResolveConflictBody, answer=documents.ConflictResolved),
    Operation("POST", "/api/render", "Any Markdown text as sanitised HTML", "documents",
              documents.RenderBody, answer=documents.Rendered,
              other_answers=(documents.RenderedTexts,)),
    Operation("GET", "/api/window", "The window state", "window", answer=windows.Window),
    Operation("POST", "/api/window/present", "Present a document", "window", windows.PresentBody,
              answer=windows.Presented),
    Operation("POST", "/api/window/leave-present", "Leave present mode", "window",
              windows.NoBody, answer=windows.Window),
    Operation("POST", "/api/window/view", "Set a tab's view", "window", windows.ViewBody,
              answer=windows.Window),
    Operation("POST", "/api/window/activate", "Make a tab active", "window", windows.TabBody,
              answer=windows.Window),
    Operation("POST", "/api/window/close", "Close a tab", "window", windows.TabBody,
              answer=windows.Window),
    Operation("GET", "/api/recent", "Recently opened documents", "window",
              query=(Query("limit", "integer", "1 to 200, default 10."),),
              answer=windows.Recents),
    Operation("GET", "/api/files", "The workspaces' Markdown files, a page at a time", "window",
              query=(Query("cursor", "string", "The nextCursor of the previous page."),
                     Query("limit", "integer", "1 to 1,000, default 100.")),
              answer=windows.FilePage),
    Operation("POST", "/api/files/note", "Create a note", "files", files.NoteCreateBody,
              answer=files.NoteCreated),
    Operation("POST", "/api/files/folder", "Create a folder", "files", files.FolderCreateBody,
              answer=files.NoteCreated),
    Operation("POST", "/api/files/links", "The notes whose links a move would rewrite",
              "files", files.MoveBody, answer=files.LinkUpdates),
    Operation("POST", "/api/files/move", "Rename or move a file or folder", "files",
              files.MoveBody, answer=files.Moved),
    Operation("POST", "/api/files/copy", "Copy a file or folder", "files", files.CopyBody,
              answer=files.Copied),
    Operation("POST", "/api/files/delete", "Move a file or folder to the trash", "files",
              files.PathBody, answer=files.Deleted),
    Operation("POST", "/api/files/append", "Append text to a note", "files", files.AppendBody,
              answer=files.Appended),
    Operation("POST", "/api/files/upload", "Upload a file (the body is its bytes)", "files",
              query=(Query("path", "string", "Where the new file goes (absolute)."),
                     Query("note", "string", "The note it is for: assets/ beside it."),
                     Query("name", "string", "The file's name, with note.")),
              answer=files.Uploaded),
    Operation("GET", "/api/files/download", "A file, or a folder as a zip", "files",
              query=(Query("path", "string", "The file or folder (absolute).", True),),
              answer=None, media="application/octet-stream"),
    Operation("GET", "/api/trash", "The workspaces' trash", "files", answer=files.TrashList),
    Operation("POST", "/api/trash/restore", "Restore a trash entry", "files",
              files.TrashRestoreBody, answer=files.TrashRestored),
    Operation("POST", "/api/trash/empty", "Empty the trash", "files", files.TrashEmptyBody,
              answer=files.TrashEmptied),
    Operation("GET", "/api/workspaces", "The folders this server serves", "window",
              answer=windows.WorkspaceList),
    Operation("POST", "/api/reviews", "Request a review", "reviews", reviews.RequestBody,
              answer=reviews.ReviewOutcome),
    Operation("GET", "/api/reviews/active", "The review in the panel", "reviews",
              answer=reviews.ActiveReview),
    Operation("GET", "/api/reviews/{review_id}", "A review's record", "reviews",
              answer=reviews.CheckedReview),
    Operation("GET", "/api/reviews/{review_id}/wait", "Wait for a verdict", "reviews",
              query=(Query("wait_ms", "integer", "1,000 to 600,000, default 50,000."),),
              answer=reviews.ReviewOutcome),
    Operation("POST", "/api/reviews/{review_id}/wait", "Resume waiting for a verdict",
              "reviews", reviews.WaitBody, answer=reviews.ReviewOutcome),
    Operation("POST", "/api/reviews/{review_id}/decision", "Decide a review", "reviews",
              reviews.DecisionBody, answer=reviews.ReviewRecord),
    Operation("GET", "/api/annotations", "A file's review verdict, comments and tasks",
              "reviews", query=(Query("path", "string", "The file's absolute path.", True),),
              answer=reviews.FileAnnotations),
    Operation("GET", "/api/search", "Search the workspaces through the index", "search",
              query=(Query("q", "string", "1 to 1,000 characters; tag:NAME filters by tag.",
                           True),
                     Query("mode", "string", "grep (substring, default) or words (ranked)."),
                     Query("limit", "integer", "1 to 200, default 50."),
                     Query("cursor", "string", "The nextCursor of the previous page."),
                     Query("workspace", "string", "Search only this served folder.")),
              answer=search.SearchPage),
    Operation("POST", "/api/search/reindex", "Rebuild the search index", "search",
              answer=search.Reindexed),
    Operation("GET", "/api/backlinks", "The notes linking to a document", "search",
              query=(Query("path", "string", "The document's absolute path.", True),),
              answer=search.Backlinks),
    Operation("GET", "/api/titles", "Quick open: documents by title or path", "search",
              query=(Query("q", "string", "Characters of the title or path (fuzzy)."),
                     Query("limit", "integer", "1 to 200, default 50.")),
              answer=search.Titles),
    Operation("GET", "/api/agents", "The coding agents and hooks Quire connects", "agents",
              answer=agents.AgentsOverview),
    Operation("POST", "/api/agents/{agent_id}/connect", "Register Quire with an agent",
              "agents", agents.ConnectBody, answer=agents.AgentOutcome),
    Operation("POST", "/api/agents/hook", "Install or remove Quire's agent hooks", "agents",
              agents.HookBody, answer=agents.AgentOutcome),
    Operation("GET", "/api/chats", "The chats, most recently active first", "chats",
              query=(Query("workspace", "string", "Only the chats of this served folder."),
                     Query("as", "string", "The reader whose unread messages to count.")),
              answer=chats.ChatList),
    Operation("POST", "/api/chats", "Create a chat, or make a note one", "chats",
              chats.ChatCreateBody, answer=chats.ChatCreated),
    Operation("GET", "/api/chats/read", "A chat's messages, presence and roles", "chats",
              query=(Query("path", "string", "The chat's absolute path.", True),
                     Query("as", "string", "Mark everything read for this name."),
                     Query("after", "integer", "Only messages numbered above this."),
                     Query("session", "string", "The agent session reading, for keepalive.")),
              answer=chats.ChatView),
    Operation("POST", "/api/chats/post", "Post a message or a slash command", "chats",
              chats.ChatPostBody, answer=chats.Posted),
    Operation("POST", "/api/chats/wait", "Wait for new messages", "chats", chats.ChatWaitBody,
              answer=chats.Waited),
    Operation("POST", "/api/chats/leave", "Leave a chat", "chats", chats.ChatLeaveBody,
              answer=chats.Left),
    Operation("GET", "/api/chats/session", "An agent session's last chat command", "chats",
              query=(Query("id", "string", "The agent's session id.", True),),
              answer=chats.SessionRecord),
    Operation("POST", "/api/chats/session/stop", "Record a stop attempt of a session",
              "chats", chats.ChatStopBody, answer=chats.StopCount),
    Operation("POST", "/api/chats/pin", "Pin or unpin a chat", "chats", chats.ChatPinBody,
              answer=chats.Pinned),
    Operation("POST", "/api/chats/delete", "Delete a chat", "chats", chats.ChatPathBody,
              answer=chats.ChatDeleted),
    Operation("GET", "/api/chats/gifs", "The chat pictures of a workspace", "chats",
              query=(Query("workspace", "string", "The served folder.", True),),
              answer=chats.GifList),
    Operation("GET", "/api/chats/gif", "One chat picture, served inert", "chats",
              query=(Query("workspace", "string", "The served folder.", True),
                     Query("name", "string", "The picture's name.", True)),
              answer=None, media="image/svg+xml"),
    Operation("POST", "/api/chats/avatar", "Set a name's avatar", "chats",
              chats.ChatAvatarBody, answer=chats.AvatarSet),
    Operation("POST", "/api/export", "Export a Markdown file as PDF, HTML, DOCX or EPUB",
              "export", export_requests.ExportBody, answer=exports.ExportResult),
    Operation("GET", "/api/export/download", "An export as a file for the browser to save",
              "export",
              query=(Query("path", "string", "The Markdown file's absolute path.", True),
                     Query("format", "string", "pdf, html, docx or epub; default pdf."),
                     Query("theme", "string", "light, dark or print; default light."),
                     Query("paper", "string", "a4, letter, legal or a5; default a4.")),
              answer=None, media="application/octet-stream"),
    Operation("POST", "/api/export/dialog", "Open the export dialog in the window", "export",
              export_requests.ExportDialogBody, answer=export_requests.ExportDialogOpened),
    Operation("GET", "/api/export/engines", "The export engines of the server's machine",
              "export", answer=exports.Engines),
)  # fmt: skip
"""Every operation of the HTTP API, in the order the document lists them."""

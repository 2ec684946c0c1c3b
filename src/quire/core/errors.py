"""The one exception tree of Quire; every message is user interface.

Messages are read verbatim by people and by agents, so each says what happened and what to
do next. Transports (CLI, HTTP, MCP) map the classes below to exit codes, statuses and
``isError`` results; nothing here knows about them. Every class is built from its message
alone (extra details are keyword arguments with defaults), so a client can rebuild the error a
server answered from its name, and ``with_message`` copies one with a new message.

    QuireError
    ├── InvalidArgument      a caller's argument breaks a rule (empty, out of range, wrong shape)
    ├── PathRefused          a path breaks the path rules (not Markdown, dotfile, outside, FIFO…)
    │   └── NameTaken          the destination's name is taken (nothing is ever overwritten)
    ├── FileMissing          the path names nothing on disk
    ├── FileTooLarge         a file or a request is over its size limit
    ├── NotUtf8              a file's bytes are not UTF-8 text
    ├── EditRefused          a find/replace could not be applied (not found, not unique, …)
    ├── DocumentInvalid      a file's content is not what the operation needs (a broken canvas)
    ├── StorageFailed        a read or write failed at the operating system (EACCES, EIO…)
    │   ├── StorageFull        no space left (disk full, quota) for the file or the database;
    │   │                      the message says what was applied and what was not
    │   └── DatabaseUnavailable  the database does not answer (down, unreachable, refusing
    │                          connections); nothing was written
    ├── NotOpen              no document (or no tab of that document) is open in the window
    ├── ReviewNotFound       a review id names no review the caller can see
    ├── ReviewRefused        a review cannot take that action now (it was already decided)
    ├── ApprovalNotFound     an approval id names no approval request the caller can see
    ├── ApprovalRefused      an approval cannot take that action (decided, another input, full)
    ├── BrowserLoginNeeded   only the person's browser login may do this, never an API token
    ├── AccessDenied         (multi mode) the account may read this but not change it
    ├── AccountNotFound      (multi mode) no account has that username
    ├── SignInRefused        (multi mode) wrong username or password, or a disabled account
    ├── SignInLocked         (multi mode) too many failed sign-ins; ``retry_after_s`` says when
    ├── AgentNotDetected     an agent's program is not on this machine, so it cannot be connected
    ├── EngineMissing        no export engine for the format is installed (chromium, pandoc)
    ├── ExportFailed         an export engine ran and failed (it crashed, or timed out)
    ├── ServerAlreadyRunning another server holds the state folder
    ├── ServerUnreachable    (client) no Quire server answers, and none could be started
    ├── TokenRefused         (client) the server refused the token in server.json (HTTP 401)
    └── ServerFailed         (client) the server failed without explaining, or answered oddly
        ├── ServerInterrupted  a bare HTTP 5xx: a server that was stopping; a retry may work
        └── NoSuchEndpoint     the server does not know the route (an older or newer server)

Two private refinements live beside the code that raises them, because only that code tells
them apart; clients see them as their parent (the HTTP error body names the parent):

    RequestTooLarge (quire.web.limits)          a FileTooLarge: the request body limit
    NotAChat        (quire.services.chat.tails) a DocumentInvalid: a note without the chat tag
    GitFailed       (quire.vault.git)           a StorageFailed: a git command of history failed
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Self

if TYPE_CHECKING:
    from quire.core.server_info import ServerInfo


class QuireError(Exception):
    """Base of every error Quire raises on purpose. ``str(err)`` is the message to show."""

    details: ClassVar[tuple[str, ...]] = ()
    """The extra attributes the class carries beside its message: keyword arguments of its
    constructor, each with a default, copied by ``with_message``."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message

    def with_message(self, message: str) -> Self:
        """A copy of this error, of the same class and with the same details, saying ``message``.

        For a layer that adds what it knows to an error it passes on: the class (and so the
        exit code, HTTP status or retry decision) stays what the cause made it.
        """
        copy = type(self).__new__(type(self), message)
        copy.__dict__.update(self.__dict__)
        copy.args = (message,)
        copy.message = message
        return copy

    def detail_values(self) -> dict[str, Any]:
        """The details (see ``details``) by name, as keyword arguments of the constructor."""
        return {name: getattr(self, name) for name in self.details}


class InvalidArgument(QuireError):
    """An argument breaks a rule; ``argument`` names it when there is one."""

    details = ("argument",)

    def __init__(self, message: str, *, argument: str | None = None) -> None:
        super().__init__(message)
        self.argument = argument


class PathRefused(QuireError):
    """A path breaks the path rules; nothing was read or written."""


class NameTaken(PathRefused):
    """A create, rename, move, copy or restore found its destination taken; nothing changed."""


class FileMissing(QuireError):
    """The path names no file."""


class FileTooLarge(QuireError):
    """A file or request is larger than its limit; it was not read whole."""


class NotUtf8(QuireError):
    """A file's bytes are not UTF-8 text."""


class EditRefused(QuireError):
    """A find/replace was refused; the document is unchanged.

    ``match_count`` is how many times ``find`` occurs, when the refusal came from searching.
    """

    details = ("match_count",)

    def __init__(self, message: str, *, match_count: int | None = None) -> None:
        super().__init__(message)
        self.match_count = match_count


class DocumentInvalid(QuireError):
    """A document's content has the wrong shape for the operation; it was left unchanged."""


class StorageFailed(QuireError):
    """The operating system refused a read or a write; nothing was half-written."""


class StorageFull(StorageFailed):
    """A write found no space (a full disk or quota, of the workspace or of the state folder).

    Its message says exactly what was applied: a change is applied only once it is durable, so
    "not applied" means a retry cannot apply it twice.
    """


class DatabaseUnavailable(StorageFailed):
    """The database does not answer (its server is down or refuses connections): the request
    failed before anything was written; a retry once it answers may work."""


class NotOpen(QuireError):
    """The operation needs an open document (or tab) and there is none; nothing changed."""


class ReviewNotFound(QuireError):
    """A review id names no review this user can see (never made, or no longer kept)."""


class ReviewRefused(QuireError):
    """A review cannot take this action in its current state (it was already decided)."""


class ApprovalNotFound(QuireError):
    """An approval id names no approval request this user can see (never made, or pruned)."""


class ApprovalRefused(QuireError):
    """An approval request cannot take this action: it was decided or ended already, the
    decision names another tool input, or the queue is full; nothing changed."""


class BrowserLoginNeeded(QuireError):
    """The action needs the person's browser login (session cookie): an API token, even the
    owner's, is refused, since a token in an agent's hands must never approve its own request."""


class AccessDenied(QuireError):
    """The signed-in account may read this but not change it (or may not act on it at all,
    where saying so reveals nothing); nothing was changed. A path the account may not read
    is reported as FileMissing instead, so a refusal never tells whether it exists."""


class AccountNotFound(QuireError):
    """No account has the username given; nothing was changed."""


class SignInRefused(QuireError):
    """A sign-in failed: the message is the same for an unknown username, a wrong password and
    a disabled account, so it tells nothing about which accounts exist."""


class SignInLocked(QuireError):
    """Too many failed sign-ins for that username or from that address; nothing was checked.
    ``retry_after_s`` is how long until a sign-in may be tried again."""

    details = ("retry_after_s",)

    def __init__(self, message: str, *, retry_after_s: int | None = None) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


class AgentNotDetected(QuireError):
    """The agent's program (or settings folder) is not on this machine; nothing was changed."""


class EngineMissing(QuireError):
    """No program that makes the asked format is installed; the message names the package."""


class ExportFailed(QuireError):
    """An export engine was started and failed; nothing was written at the output path."""


class ServerAlreadyRunning(QuireError):
    """Another server holds the state folder; ``info`` is what its server.json says, if any."""

    details = ("info",)

    def __init__(self, message: str, *, info: ServerInfo | None = None) -> None:
        super().__init__(message)
        self.info = info


class ServerUnreachable(QuireError):
    """No Quire server answers: none is running, or it could not be started or reached."""


class TokenRefused(QuireError):
    """The server answered HTTP 401: the token in server.json is stale or not this server's."""


class ServerFailed(QuireError):
    """The server answered with an error it did not explain, or an answer of the wrong shape."""


class ServerInterrupted(ServerFailed):
    """The server answered a bare HTTP 5xx, without Quire's error body: what a request cut off
    by a server that is stopping (or a proxy in front of one) gets. Retrying may succeed."""


class NoSuchEndpoint(ServerFailed):
    """The server does not know the route (an older or newer server)."""

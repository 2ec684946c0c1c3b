"""What ``<state>/server.json`` says about a running server: its URL, its token and its pid.

Pure: turns the record into text and back and judges its shape; reading, writing and
checking the process are the server file service's job.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from quire.core.errors import DocumentInvalid

_FIX = (
    "If no Quire server is running, delete the file and start `quire serve` again; "
    "otherwise restart that server so it rewrites the file."
)


@dataclass(frozen=True)
class ServerInfo:
    """How to reach a running server: its base URL, its API token and its process id."""

    url: str
    token: str
    pid: int
    ca_cert: str | None = None
    """The certificate an ``https://`` server presents (its PEM file), which local clients
    trust for it alone (pinned, whatever host name it was made for); None for plain HTTP."""


def dumps(info: ServerInfo) -> str:
    """The server file's text for ``info``: one JSON object with url, token and pid (and
    ca_cert for an HTTPS server)."""
    record: dict[str, object] = {"url": info.url, "token": info.token, "pid": info.pid}
    if info.ca_cert is not None:
        record["ca_cert"] = info.ca_cert
    return json.dumps(record, indent=2) + "\n"


def loads(text: str) -> ServerInfo:
    """The ServerInfo in a server file's ``text``; DocumentInvalid when it is malformed."""
    try:
        record = json.loads(text)
    except ValueError:
        raise DocumentInvalid(f"The server file is not valid JSON. {_FIX}") from None
    if not isinstance(record, dict):
        raise DocumentInvalid(f"The server file does not hold a JSON object. {_FIX}")
    url = record.get("url")
    token = record.get("token")
    pid = record.get("pid")
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        raise DocumentInvalid(f"The server file has no http(s) `url`. {_FIX}")
    if not isinstance(token, str) or not token:
        raise DocumentInvalid(f"The server file has no `token`. {_FIX}")
    if isinstance(pid, bool) or not isinstance(pid, int) or pid <= 0:
        raise DocumentInvalid(f"The server file has no process id (`pid`). {_FIX}")
    ca_cert = record.get("ca_cert")
    if ca_cert is not None and not isinstance(ca_cert, str):
        raise DocumentInvalid(f"The server file's `ca_cert` is not a file path. {_FIX}")
    return ServerInfo(url=url, token=token, pid=pid, ca_cert=ca_cert)

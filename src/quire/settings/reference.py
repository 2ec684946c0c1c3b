"""Generate ``docs/settings.md`` from the settings model and its catalog, so it cannot drift.

Run ``python -m quire.settings.reference > docs/settings.md`` after changing a setting; a test
fails while the file and the model differ.
"""

from __future__ import annotations

import sys

from pydantic.fields import FieldInfo

from quire.settings.catalog import CONFIG_FILE_NAME, SETTINGS, Setting
from quire.settings.model import Settings

HEADER = f"""# Settings reference

Generated from the settings model by `python -m quire.settings.reference > docs/settings.md`;
a test fails when this file and the model disagree. Edit the model, not this file.

`quire serve` takes each setting from the first place that gives it: its command-line flag, then
its environment variable, then `{CONFIG_FILE_NAME}` in the state folder, then the default. A bad
value is refused at start-up with a message naming where it came from. `quire mcp` and the other
clients read the same `{CONFIG_FILE_NAME}` the same way (today for `chat.enabled` and
`export.browser`).

"""

EXAMPLE = f"""
A `{CONFIG_FILE_NAME}` that sets every key it may hold (an unknown key is refused, naming the
closest known one):

```toml
workspaces = ["~/notes", "/srv/team-docs"]
mode = "single"

[server]
host = "127.0.0.1"
port = 4747
db = "postgresql://quire@db.example/quire"
allow = ["~/Documents/plans"]
tls_cert = "/etc/quire/cert.pem"
tls_key = "/etc/quire/key.pem"
trusted_proxies = ["127.0.0.1"]
public_url = "https://notes.example.com"
redis = "redis://cache.example:6379/0"
replica_id = "web-1"
log_requests = false

[chat]
enabled = true

[approvals]
enabled = false

[export]
browser = "/usr/bin/chromium"

[preview]
remote_images = ["~/notes"]

[history]
enabled = true
window = 3
```

`history.enabled` says which workspaces keep their history in git (see `docs/history.md`):
left out, those already inside a git repository; `true` every workspace (Quire runs `git init`
where there is no repository); a list of folders those; `false` none. `history.window` is how
many seconds of one author's saves of one note make one commit.

`preview.remote_images` is per workspace: a note shows its remote images (http, https and `//`
addresses) as written only when it lies inside a folder listed there. Everywhere else, and in
every chat message, each remote image is a placeholder that names its host; one click loads that
image alone. Exports fetch remote images only when the export asks for them. See the preview's
page, `docs/markdown.md`, for how the page policy and the click fit together.

`mode` is `single` (one person, the default) or `multi` (a team server with accounts, sign-in
and grants; see `docs/teams.md`). A server in single mode listens on this machine only
(127.0.0.1, `::1` or `localhost`): any other address is refused at start-up, because single mode
gives whoever holds its one token every workspace. A team server may listen on another address
only with HTTPS: `server.tls_cert` and `server.tls_key` (it then terminates HTTPS itself and its
URL is `https://`), or a reverse proxy in front that terminates it, named in
`server.trusted_proxies` (only those addresses' `X-Forwarded-For` and `X-Forwarded-Proto` are
believed). `server.public_url` is the address people reach it at through the proxy: its Host and
Origin are accepted, and the login URL names it. See `docs/teams.md` for an nginx example.

`server.redis` makes this server one of several replicas behind a load balancer: they share the
PostgreSQL database of `server.db` (required with it), the workspace folders (shared storage)
and this Redis, through which each tells the others what it changed, so a wait on one replica
wakes the moment another records the answer. Each replica has a state folder of its own and a
`server.replica_id` (shown by `/health`). See `docs/deploy.md`.

`approvals.enabled` turns agent approvals on (off by default): without it the approval routes
answer 404 and the `quire approval` hooks send nothing. See `docs/approvals.md`.
"""


def settings_reference() -> str:
    """The Markdown reference of every setting, in catalog order."""
    rows = [
        "| setting | `quire.toml` key | `quire serve` flag | environment variable | type "
        "| default | meaning |",
        "|---|---|---|---|---|---|---|",
    ]
    fields = Settings.model_fields
    for setting in SETTINGS:
        field = fields[setting.name]
        cells = (
            f"`{setting.name}`",
            _code(setting.file_key),
            _code(setting.flag),
            _code(setting.env),
            setting.kind,
            _default(setting, field),
            field.description or "",
        )
        rows.append("| " + " | ".join(cells) + " |")
    return HEADER + "\n".join(rows) + "\n" + EXAMPLE


def _code(text: str | None) -> str:
    return "none" if text is None else f"`{text}`"


def _default(setting: Setting, field: FieldInfo) -> str:
    if setting.default_text is not None:
        return setting.default_text
    value = field.default
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    return f"`{value}`"


if __name__ == "__main__":
    sys.stdout.write(settings_reference())

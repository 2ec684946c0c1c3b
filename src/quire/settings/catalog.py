"""The catalog of settings: for each field of ``Settings``, where a person may set it.

One table names every setting's quire.toml key, command-line flag and environment variable; the
loader reads its sources from it and ``docs/settings.md`` is generated from it together with the
model's own descriptions and defaults. It holds no rules (the model and the loader do).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from quire.core.state import STATE_ENV

CONFIG_FILE_NAME = "quire.toml"


@dataclass(frozen=True)
class Setting:
    """One setting: its ``Settings`` field and every place a value for it may come from."""

    name: str
    """The field of ``Settings`` it fills."""
    kind: str
    """How a value is written, in words (``true or false``, ``a port number``)."""
    file_key: str | None = None
    """The dotted quire.toml key (``server.port`` is ``port`` in the ``[server]`` table)."""
    flag: str | None = None
    """The ``quire serve`` option, or ``DIR`` for its arguments."""
    env: str | None = None
    """The environment variable."""
    default_text: str | None = None
    """The default in words when the model cannot give it (it depends on the machine)."""

    @property
    def flag_words(self) -> str | None:
        """How a message names the flag: ``--port``, or ``the DIR arguments``."""
        if self.flag is None:
            return None
        return self.flag if self.flag.startswith("-") else f"the {self.flag} arguments"


SETTINGS: tuple[Setting, ...] = (
    Setting(
        "workspaces",
        "a list of folders (absolute or starting with `~/` in quire.toml)",
        file_key="workspaces",
        flag="DIR",
        default_text="the working directory",
    ),
    Setting(
        "allowed_folders",
        "a list of folders (absolute or starting with `~/` in quire.toml)",
        file_key="server.allow",
        flag="--allow",
        default_text="none: only the workspaces",
    ),
    Setting(
        "state_dir",
        "a folder",
        flag="--state-dir",
        env=STATE_ENV,
        default_text="`~/.quire`",
    ),
    Setting(
        "host",
        "an IP address or a host name",
        file_key="server.host",
        flag="--host",
        env="QUIRE_HOST",
    ),
    Setting(
        "port",
        "a whole number from 0 to 65535",
        file_key="server.port",
        flag="--port",
        env="QUIRE_PORT",
    ),
    Setting(
        "db_url",
        "a `sqlite:///` or `postgresql://` URL",
        file_key="server.db",
        flag="--db",
        env="QUIRE_DB",
        default_text="SQLite in the state folder (`quire.db`)",
    ),
    Setting(
        "mode",
        "`single` or `multi` (`--multi` makes it `multi`)",
        file_key="mode",
        flag="--multi",
        env="QUIRE_MODE",
    ),
    Setting(
        "tls_cert",
        "the path of a PEM certificate file (with its chain)",
        file_key="server.tls_cert",
        flag="--tls-cert",
        env="QUIRE_TLS_CERT",
        default_text="none: plain HTTP",
    ),
    Setting(
        "tls_key",
        "the path of the certificate's PEM private key file",
        file_key="server.tls_key",
        flag="--tls-key",
        env="QUIRE_TLS_KEY",
        default_text="none: plain HTTP",
    ),
    Setting(
        "trusted_proxies",
        "a list of IP addresses or networks (`10.0.0.0/8`); the variable takes them "
        "comma-separated",
        file_key="server.trusted_proxies",
        flag="--trusted-proxy",
        env="QUIRE_TRUSTED_PROXIES",
        default_text="none: X-Forwarded-* headers are ignored",
    ),
    Setting(
        "public_url",
        "an `https://` or `http://` URL with a host (and port), no path",
        file_key="server.public_url",
        flag="--public-url",
        env="QUIRE_PUBLIC_URL",
        default_text="none: the address the server listens on",
    ),
    Setting(
        "redis_url",
        "a `redis://`, `rediss://` or `unix://` URL",
        file_key="server.redis",
        flag="--redis",
        env="QUIRE_REDIS",
        default_text="none: one replica",
    ),
    Setting(
        "replica_id",
        "1 to 63 letters, digits, dots, dashes or underscores",
        file_key="server.replica_id",
        flag="--replica-id",
        env="QUIRE_REPLICA_ID",
        default_text="the host name and the process id (`host-1234`)",
    ),
    Setting("open_browser", "true or false (`--no-browser` makes it false)", flag="--no-browser"),
    Setting(
        "log_requests",
        "true or false (`--log-requests` makes it true)",
        file_key="server.log_requests",
        flag="--log-requests",
    ),
    Setting("chat_enabled", "true or false", file_key="chat.enabled"),
    Setting("approvals_enabled", "true or false", file_key="approvals.enabled"),
    Setting(
        "export_browser",
        "the path of a Chrome, Chromium or Edge program",
        file_key="export.browser",
        env="QUIRE_BROWSER",
        default_text="the first of `chromium`, `chromium-browser`, `google-chrome`, "
        "`microsoft-edge`… found on PATH",
    ),
    Setting(
        "remote_images",
        "true, false, or a list of folders (absolute or starting with `~/`)",
        file_key="preview.remote_images",
        default_text="none: every remote image waits for a click",
    ),
    Setting(
        "history",
        "true, false, or a list of folders (absolute or starting with `~/`)",
        file_key="history.enabled",
        default_text="the workspaces already inside a git repository",
    ),
    Setting("history_window_s", "a number of seconds from 0 to 3600", file_key="history.window"),
)
"""Every setting, in the order the reference lists them."""

BY_NAME: Mapping[str, Setting] = {setting.name: setting for setting in SETTINGS}

FLAG_NAMES: Mapping[str, str] = {
    setting.name: setting.flag_words for setting in SETTINGS if setting.flag_words is not None
}
"""The ``flags`` keys load_settings reads, and how a person writes each on the command line."""

ENV_NAMES: Mapping[str, str] = {
    setting.name: setting.env
    for setting in SETTINGS
    if setting.env is not None and setting.name != "state_dir"
}
"""The environment variables that set a value (QUIRE_HOME, read first, sets the state folder)."""

FILE_KEYS: Mapping[str, str] = {
    setting.name: setting.file_key for setting in SETTINGS if setting.file_key is not None
}
"""The quire.toml keys, dotted (``server.port`` is ``port`` in the ``[server]`` table)."""

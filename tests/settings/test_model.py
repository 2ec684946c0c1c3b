from collections.abc import Mapping
from pathlib import Path

import pytest
from pydantic import ValidationError

from quire.core.errors import InvalidArgument
from quire.settings.model import DEFAULT_PORT, Settings, host_problem, load_settings


@pytest.fixture
def home(tmp_path: Path) -> Path:
    folder = tmp_path / "home"
    (folder / ".quire").mkdir(parents=True)
    return folder


@pytest.fixture
def cwd(tmp_path: Path) -> Path:
    folder = tmp_path / "work"
    folder.mkdir()
    return folder


def _load(
    home: Path,
    cwd: Path,
    *,
    flags: Mapping[str, object | None] | None = None,
    environ: Mapping[str, str] | None = None,
    toml: str | bytes | None = None,
) -> Settings:
    if toml is not None:
        config = home / ".quire" / "quire.toml"
        if isinstance(toml, bytes):
            config.write_bytes(toml)
        else:
            config.write_text(toml, encoding="utf-8")
    return load_settings(flags=flags or {}, environ=environ or {}, home=home, cwd=cwd)


def test_the_defaults_serve_the_working_directory_on_the_loopback(home: Path, cwd: Path) -> None:
    settings = _load(home, cwd)
    assert settings.workspaces == (cwd.resolve(),)
    assert settings.host == "127.0.0.1"
    assert settings.port == DEFAULT_PORT
    assert settings.port_is_default
    assert settings.state_dir == home / ".quire"
    assert settings.db_url is None
    assert settings.open_browser
    assert settings.chat_enabled


FILE = '[server]\nhost = "localhost"\nport = 5000\ndb = "sqlite:////tmp/file.db"\n'
ENV = {"QUIRE_HOST": "::1", "QUIRE_PORT": "6000", "QUIRE_DB": "postgresql://env/db"}
FLAGS: dict[str, object | None] = {
    "host": "127.0.0.2",
    "port": 7000,
    "db_url": "postgresql+asyncpg://flag/db",
}


@pytest.mark.parametrize(
    ("use_file", "use_env", "use_flags", "expected"),
    [
        (False, False, False, ("127.0.0.1", 4747, None)),
        (True, False, False, ("localhost", 5000, "sqlite:////tmp/file.db")),
        (True, True, False, ("::1", 6000, "postgresql://env/db")),
        (False, True, False, ("::1", 6000, "postgresql://env/db")),
        (True, True, True, ("127.0.0.2", 7000, "postgresql+asyncpg://flag/db")),
        (True, False, True, ("127.0.0.2", 7000, "postgresql+asyncpg://flag/db")),
    ],
)
def test_flags_win_over_the_environment_over_the_file_over_defaults(
    home: Path,
    cwd: Path,
    use_file: bool,
    use_env: bool,
    use_flags: bool,
    expected: tuple[str, int, str | None],
) -> None:
    settings = _load(
        home,
        cwd,
        flags=FLAGS if use_flags else None,
        environ=ENV if use_env else None,
        toml=FILE if use_file else None,
    )
    assert (settings.host, settings.port, settings.db_url) == expected
    assert settings.port_is_default == (not (use_file or use_env or use_flags))


def test_a_flag_set_to_none_is_not_given(home: Path, cwd: Path) -> None:
    settings = _load(
        home, cwd, flags={"host": None, "port": None, "workspaces": ()}, environ={"QUIRE_PORT": "9"}
    )
    assert settings.port == 9
    assert settings.workspaces == (cwd.resolve(),)


def test_blank_environment_variables_are_not_given(home: Path, cwd: Path) -> None:
    settings = _load(home, cwd, environ={"QUIRE_PORT": "  ", "QUIRE_HOST": "", "QUIRE_DB": " "})
    assert (settings.host, settings.port, settings.db_url) == ("127.0.0.1", 4747, None)


def test_workspaces_come_from_the_arguments_before_the_file(
    home: Path, cwd: Path, tmp_path: Path
) -> None:
    for name in ("a", "b", "c"):
        (tmp_path / name).mkdir()
    toml = f'workspaces = ["{tmp_path / "c"}"]\n'
    from_file = _load(home, cwd, toml=toml)
    assert from_file.workspaces == (tmp_path / "c",)
    from_flags = _load(home, cwd, flags={"workspaces": ("../a", str(tmp_path / "b"), "../a")})
    assert from_flags.workspaces == (tmp_path / "a", tmp_path / "b")


def test_workspaces_in_the_file_may_start_with_the_home_folder(home: Path, cwd: Path) -> None:
    (home / "notes").mkdir()
    settings = _load(home, cwd, toml='workspaces = ["~/notes"]\n')
    assert settings.workspaces == (home / "notes",)


def test_a_workspace_is_resolved_through_symlinks(home: Path, cwd: Path, tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    settings = _load(home, cwd, flags={"workspaces": [str(tmp_path / "link")]})
    assert settings.workspaces == (tmp_path / "real",)


@pytest.mark.parametrize(
    ("flags", "environ", "expected"),
    [
        ({}, {}, "home/.quire"),
        ({}, {"QUIRE_HOME": "/srv/q"}, "/srv/q"),
        ({"state_dir": "state"}, {"QUIRE_HOME": "/srv/q"}, "work/state"),
        ({"state_dir": "~/elsewhere"}, {}, "home/elsewhere"),
    ],
)
def test_the_state_folder_comes_from_the_flag_then_quire_home(
    home: Path, cwd: Path, flags: dict[str, object], environ: dict[str, str], expected: str
) -> None:
    settings = _load(home, cwd, flags=flags, environ=environ)
    root = home.parent
    assert settings.state_dir == (Path(expected) if expected.startswith("/") else root / expected)


def test_the_settings_file_is_read_from_the_chosen_state_folder(
    home: Path, cwd: Path, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    state.mkdir()
    (state / "quire.toml").write_text("[server]\nport = 1234\n", encoding="utf-8")
    settings = _load(home, cwd, flags={"state_dir": str(state)})
    assert settings.port == 1234


def test_chat_and_the_browser_can_be_turned_off(home: Path, cwd: Path) -> None:
    settings = _load(home, cwd, flags={"open_browser": False}, toml="[chat]\nenabled = false\n")
    assert not settings.open_browser
    assert not settings.chat_enabled


@pytest.mark.parametrize(
    ("toml", "enabled"),
    [
        (None, False),
        ("", False),
        ("[approvals]\nenabled = false\n", False),
        ("[approvals]\nenabled = true\n", True),
    ],
)
def test_agent_approvals_are_off_unless_quire_toml_turns_them_on(
    home: Path, cwd: Path, toml: str | None, enabled: bool
) -> None:
    assert _load(home, cwd, toml=toml).approvals_enabled is enabled


@pytest.mark.parametrize(
    ("flags", "toml", "logged"),
    [
        ({}, None, False),
        ({}, "[server]\nlog_requests = true\n", True),
        ({"log_requests": True}, None, True),
        ({"log_requests": True}, "[server]\nlog_requests = false\n", True),
    ],
)
def test_requests_are_logged_only_when_asked(
    home: Path, cwd: Path, flags: dict[str, object], toml: str | None, logged: bool
) -> None:
    assert _load(home, cwd, flags=flags, toml=toml).log_requests is logged


def test_an_ipv6_host_may_be_written_in_brackets(home: Path, cwd: Path) -> None:
    assert _load(home, cwd, flags={"host": "[::1]"}).host == "::1"


def test_port_zero_asks_for_a_free_port(home: Path, cwd: Path) -> None:
    settings = _load(home, cwd, flags={"port": 0})
    assert settings.port == 0
    assert not settings.port_is_default


@pytest.mark.parametrize(
    ("flags", "environ", "toml", "needles"),
    [
        ({"port": 70000}, {}, None, ["--port", "0 to 65535"]),
        ({"port": -1}, {}, None, ["--port"]),
        ({"port": "abc"}, {}, None, ["--port", "'abc'"]),
        ({"port": True}, {}, None, ["--port"]),
        ({}, {"QUIRE_PORT": "abc"}, None, ["QUIRE_PORT", "unset it"]),
        ({}, {"QUIRE_PORT": "99999"}, None, ["QUIRE_PORT"]),
        ({}, {"QUIRE_PORT": "٣"}, None, ["QUIRE_PORT"]),
        ({}, {"QUIRE_PORT": "4.5"}, None, ["QUIRE_PORT"]),
        ({}, {}, '[server]\nport = "4747"\n', ["`server.port`", "quire.toml"]),
        ({}, {}, "[server]\nport = true\n", ["`server.port`"]),
        ({}, {}, "[server]\nport = 1.5\n", ["`server.port`"]),
        ({"host": ""}, {}, None, ["--host"]),
        ({"host": "evil host"}, {}, None, ["--host"]),
        ({"host": "a\0b"}, {}, None, ["--host"]),
        ({}, {"QUIRE_HOST": "http://x"}, None, ["QUIRE_HOST"]),
        ({}, {}, "[server]\nhost = 5\n", ["`server.host`"]),
        ({"db_url": "mysql://x/y"}, {}, None, ["--db", "postgresql+asyncpg://"]),
        ({}, {"QUIRE_DB": "not a url"}, None, ["QUIRE_DB"]),
        ({}, {}, "[server]\ndb = 5\n", ["`server.db`"]),
        ({}, {}, '[server]\ndb = "sqlite://"\n', ["`server.db`"]),
        ({"workspaces": ["missing"]}, {}, None, ["DIR", "'missing'"]),
        ({"workspaces": ["/"]}, {}, None, ["DIR", "root"]),
        ({"workspaces": ["bad\0name"]}, {}, None, ["DIR"]),
        ({}, {}, 'workspaces = ["relative"]\n', ["`workspaces`", "relative"]),
        ({}, {}, "workspaces = [1]\n", ["`workspaces`"]),
        ({}, {}, "workspaces = []\n", ["`workspaces`"]),
        ({}, {}, '[chat]\nenabled = "yes"\n', ["`chat.enabled`", "true or false"]),
        ({"open_browser": "no"}, {}, None, ["--no-browser"]),
        ({}, {}, '[server]\nlog_requests = "yes"\n', ["`server.log_requests`", "true or false"]),
    ],
)
def test_a_bad_value_names_where_it_came_from(
    home: Path,
    cwd: Path,
    flags: dict[str, object],
    environ: dict[str, str],
    toml: str | None,
    needles: list[str],
) -> None:
    with pytest.raises(InvalidArgument) as caught:
        _load(home, cwd, flags=flags, environ=environ, toml=toml)
    for needle in needles:
        assert needle in str(caught.value)
    assert "fix" in str(caught.value).lower()


def test_a_workspace_that_is_a_file_is_refused(home: Path, cwd: Path) -> None:
    (cwd / "note.md").write_text("x", encoding="utf-8")
    with pytest.raises(InvalidArgument, match="not a folder"):
        _load(home, cwd, flags={"workspaces": ["note.md"]})


def test_a_state_folder_that_is_a_file_is_refused(home: Path, cwd: Path) -> None:
    (cwd / "state").write_text("x", encoding="utf-8")
    with pytest.raises(InvalidArgument, match="--state-dir"):
        _load(home, cwd, flags={"state_dir": "state"})


@pytest.mark.parametrize("value", ["state-file", "bad\0name"])
def test_a_quire_home_that_is_not_a_folder_is_refused(
    home: Path, cwd: Path, tmp_path: Path, value: str
) -> None:
    (tmp_path / "state-file").write_text("x", encoding="utf-8")
    with pytest.raises(InvalidArgument, match="QUIRE_HOME"):
        _load(home, cwd, environ={"QUIRE_HOME": str(tmp_path / value)})


def test_a_database_password_is_not_repeated_in_the_message(home: Path, cwd: Path) -> None:
    with pytest.raises(InvalidArgument) as caught:
        _load(home, cwd, flags={"db_url": "mysql://ann:s3cret@host/db"})
    assert "s3cret" not in str(caught.value)


@pytest.mark.parametrize(
    ("toml", "needles"),
    [
        ("[server]\nprot = 1\n", ["`server.prot`", "Did you mean `server.port`?"]),
        ('workspace = ["/x"]\n', ["`workspace`", "Did you mean `workspaces`?"]),
        ("[chats]\nenabled = true\n", ["`chats.enabled`", "Did you mean `chat.enabled`?"]),
        ("zzzzzz = 1\n", ["`zzzzzz`", "Remove it", "`server.port`"]),
        ("server = 5\n", ["`server`", "[server]"]),
    ],
)
def test_an_unknown_setting_is_refused_naming_the_closest_one(
    home: Path, cwd: Path, toml: str, needles: list[str]
) -> None:
    with pytest.raises(InvalidArgument) as caught:
        _load(home, cwd, toml=toml)
    for needle in needles:
        assert needle in str(caught.value)


@pytest.mark.parametrize(
    "content", [b"[server\nport = 1", b"port = = 1", b"\xff\xfe[server]", b"a = 1\na = 2"]
)
def test_a_settings_file_that_is_not_toml_is_refused(home: Path, cwd: Path, content: bytes) -> None:
    with pytest.raises(InvalidArgument, match="not valid TOML"):
        _load(home, cwd, toml=content)


def test_an_empty_settings_file_means_the_defaults(home: Path, cwd: Path) -> None:
    assert _load(home, cwd, toml="").port == DEFAULT_PORT


def test_a_settings_file_that_is_a_folder_is_refused(home: Path, cwd: Path) -> None:
    (home / ".quire" / "quire.toml").mkdir()
    with pytest.raises(InvalidArgument, match="settings file"):
        _load(home, cwd)


def test_a_symlinked_settings_file_is_followed(home: Path, cwd: Path, tmp_path: Path) -> None:
    real = tmp_path / "dotfiles.toml"
    real.write_text("[server]\nport = 4000\n", encoding="utf-8")
    (home / ".quire" / "quire.toml").symlink_to(real)
    assert _load(home, cwd).port == 4000


@pytest.mark.parametrize(
    "changes",
    [
        {"workspaces": ()},
        {"workspaces": (Path("relative"),)},
        {"state_dir": Path("relative")},
        {"host": "two words"},
        {"port": 65536},
        {"surprise": 1},
    ],
)
def test_settings_built_directly_are_checked_too(
    tmp_path: Path, changes: dict[str, object]
) -> None:
    values: dict[str, object] = {"workspaces": (tmp_path,), "state_dir": tmp_path, **changes}
    with pytest.raises(ValidationError):
        Settings.model_validate(values)


def test_settings_cannot_change_once_made(tmp_path: Path) -> None:
    settings = Settings(workspaces=(tmp_path,), state_dir=tmp_path)
    with pytest.raises(ValidationError):
        settings.port = 1


@pytest.mark.parametrize(
    ("host", "ok"),
    [
        ("127.0.0.1", True),
        ("::1", True),
        ("localhost", True),
        ("my-box.local", True),
        ("", False),
        (" localhost", False),
        ("-bad", False),
        ("a_b", False),
        ("x" * 300, False),
        ("héllo", False),
    ],
)
def test_a_host_is_an_ip_address_or_a_host_name(host: str, ok: bool) -> None:
    assert (host_problem(host) is None) == ok


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.20", "quire.example.org"])
def test_single_mode_refuses_to_listen_beyond_this_machine(
    home: Path, cwd: Path, host: str
) -> None:
    with pytest.raises(InvalidArgument, match="--multi") as caught:
        _load(home, cwd, flags={"host": host})
    assert "reachable from other machines" in str(caught.value)


@pytest.mark.parametrize("host", ["127.0.0.1", "127.8.0.1", "::1", "localhost"])
def test_single_mode_listens_on_loopback(home: Path, cwd: Path, host: str) -> None:
    assert _load(home, cwd, flags={"host": host}).mode == "single"


@pytest.mark.parametrize(
    ("flags", "environ", "toml"),
    [
        ({"mode": "multi"}, None, None),
        (None, {"QUIRE_MODE": "multi"}, None),
        (None, None, 'mode = "multi"\n'),
    ],
)
def test_multi_mode_comes_from_a_flag_the_environment_or_the_file(
    home: Path,
    cwd: Path,
    flags: dict[str, object | None] | None,
    environ: dict[str, str] | None,
    toml: str | None,
) -> None:
    settings = _load(home, cwd, flags=flags, environ=environ, toml=toml)
    assert settings.multi


def _pem_files(cwd: Path) -> tuple[str, str]:
    (cwd / "cert.pem").write_text("-----BEGIN CERTIFICATE-----\n", encoding="utf-8")
    (cwd / "key.pem").write_text("-----BEGIN PRIVATE KEY-----\n", encoding="utf-8")
    return str(cwd / "cert.pem"), str(cwd / "key.pem")


def test_multi_mode_without_https_may_not_listen_beyond_this_machine(home: Path, cwd: Path) -> None:
    with pytest.raises(InvalidArgument, match="without HTTPS") as caught:
        _load(home, cwd, flags={"host": "0.0.0.0", "mode": "multi"})
    assert "--tls-cert FILE --tls-key FILE" in str(caught.value)
    assert "--trusted-proxy" in str(caught.value)


def test_multi_mode_with_tls_may_listen_beyond_this_machine(home: Path, cwd: Path) -> None:
    cert, key = _pem_files(cwd)
    settings = _load(
        home, cwd, flags={"host": "0.0.0.0", "mode": "multi", "tls_cert": cert, "tls_key": key}
    )
    assert (settings.host, settings.multi, settings.tls, settings.scheme) == (
        "0.0.0.0", True, True, "https"
    )  # fmt: skip


def test_multi_mode_behind_a_trusted_proxy_may_listen_beyond_this_machine(
    home: Path, cwd: Path
) -> None:
    toml = (
        'mode = "multi"\n[server]\nhost = "0.0.0.0"\n'
        'trusted_proxies = ["10.0.0.7", "192.168.0.0/16"]\n'
        'public_url = "https://Notes.Example.com/"\n'
    )
    settings = _load(home, cwd, toml=toml)
    assert settings.trusted_proxies == ("10.0.0.7", "192.168.0.0/16")
    assert settings.public_url == "https://notes.example.com"
    assert not settings.tls


@pytest.mark.parametrize("extra", [{}, {"tls": True}, {"proxy": True}])
def test_single_mode_never_listens_beyond_this_machine(
    home: Path, cwd: Path, extra: dict[str, bool]
) -> None:
    cert, key = _pem_files(cwd)
    flags: dict[str, object] = {"host": "0.0.0.0"}
    if extra.get("tls"):
        flags |= {"tls_cert": cert, "tls_key": key}
    if extra.get("proxy"):
        flags["trusted_proxies"] = ("127.0.0.1",)
    with pytest.raises(InvalidArgument, match="single mode gives"):
        _load(home, cwd, flags=flags)


def test_tls_needs_both_the_certificate_and_the_key(home: Path, cwd: Path) -> None:
    cert, _key = _pem_files(cwd)
    with pytest.raises(InvalidArgument, match="sets tls_cert but nothing sets tls_key"):
        _load(home, cwd, flags={"tls_cert": cert})


def test_tls_files_must_be_readable(home: Path, cwd: Path) -> None:
    with pytest.raises(InvalidArgument, match=r"QUIRE_TLS_CERT .*is not a readable file"):
        _load(home, cwd, environ={"QUIRE_TLS_CERT": str(cwd / "missing.pem")})


@pytest.mark.parametrize(
    ("key", "value", "says"),
    [
        ("QUIRE_TRUSTED_PROXIES", "10.0.0.1, example.com", "is not an IP address or network"),
        ("QUIRE_TRUSTED_PROXIES", "*", "is not an IP address or network"),
        ("QUIRE_PUBLIC_URL", "https://notes.example.com/quire", "scheme and a host only"),
        ("QUIRE_PUBLIC_URL", "ftp://notes.example.com", "scheme and a host only"),
        ("QUIRE_PUBLIC_URL", "https://user@notes.example.com", "scheme and a host only"),
    ],
)
def test_bad_proxy_settings_are_refused_naming_their_source(
    home: Path, cwd: Path, key: str, value: str, says: str
) -> None:
    with pytest.raises(InvalidArgument, match=says) as caught:
        _load(home, cwd, environ={key: value})
    assert key in str(caught.value)


@pytest.mark.parametrize("raw", ['"team"', "true", '"Multi"', "1"])
def test_a_mode_that_is_neither_single_nor_multi_is_refused(
    home: Path, cwd: Path, raw: str
) -> None:
    with pytest.raises(InvalidArgument, match="single or multi"):
        _load(home, cwd, toml=f"mode = {raw}\n")


PG = "postgresql://quire@db.example/quire"


def test_replicas_take_redis_and_a_name_from_flags_environment_or_file(
    home: Path, cwd: Path
) -> None:
    settings = _load(
        home, cwd, flags={"db_url": PG, "redis_url": "redis://cache:6379/0", "replica_id": "web-1"}
    )
    assert (settings.redis_url, settings.replica_id) == ("redis://cache:6379/0", "web-1")
    environ = {"QUIRE_DB": PG, "QUIRE_REDIS": "rediss://cache:6380", "QUIRE_REPLICA_ID": "b"}
    settings = _load(home, cwd, environ=environ)
    assert (settings.redis_url, settings.replica_id) == ("rediss://cache:6380", "b")
    toml = f'[server]\ndb = "{PG}"\nredis = "unix:///run/redis.sock"\nreplica_id = "c.2"\n'
    settings = _load(home, cwd, toml=toml)
    assert (settings.redis_url, settings.replica_id) == ("unix:///run/redis.sock", "c.2")


def test_one_server_has_no_redis_and_no_replica_name(home: Path, cwd: Path) -> None:
    settings = _load(home, cwd)
    assert (settings.redis_url, settings.replica_id) == (None, None)


def test_redis_without_postgresql_is_refused_naming_what_to_do(home: Path, cwd: Path) -> None:
    with pytest.raises(InvalidArgument, match=r"the database is SQLite.*--db postgresql"):
        _load(home, cwd, flags={"redis_url": "redis://cache:6379/0"})
    with pytest.raises(InvalidArgument, match="the database is SQLite"):
        _load(home, cwd, flags={"redis_url": "redis://cache", "db_url": "sqlite:///x.db"})


@pytest.mark.parametrize(
    "url", ["http://cache:6379", "redis://", "cache:6379", "", "redis://a\0b", "memcached://x"]
)
def test_a_redis_url_that_is_not_one_is_refused(home: Path, cwd: Path, url: str) -> None:
    with pytest.raises(InvalidArgument, match="is not a Redis URL"):
        _load(home, cwd, flags={"db_url": PG, "redis_url": url})


@pytest.mark.parametrize("name", ["", "-web", "web 1", "web/1", "w" * 64, "wéb", "a\nb"])
def test_a_replica_name_that_is_not_one_is_refused(home: Path, cwd: Path, name: str) -> None:
    with pytest.raises(InvalidArgument, match="is not a replica name"):
        _load(home, cwd, flags={"replica_id": name})

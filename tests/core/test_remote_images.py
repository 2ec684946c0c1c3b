"""The remote image rules: what leaves this machine as a browser reads it, and the one address
a click may load with the policy source that allows it alone."""

from __future__ import annotations

import pytest

from quire.core.errors import InvalidArgument
from quire.core.remote_images import (
    MAX_REMOTE_URL,
    RemoteImage,
    is_remote,
    remote_host,
    written_address,
)


@pytest.mark.parametrize(
    "src",
    [
        "http://a.example/x.png",
        "HTTP://A.EXAMPLE/x.png",
        "https://a.example/x.png",
        "  https://a.example/x.png",
        "\x01\x02https://a.example/x.png",
        "ht\ttp://a.example/x.png",
        "h\nttps://a.example/x.png",
        "//a.example/x.png",
        "\\\\a.example/x.png",
        "/\\a.example/x.png",
        "\\/a.example/x.png",
        "/\t/a.example/x.png",
        "ftp://a.example/x.png",
        "file:///etc/passwd",
        "gopher://a.example/",
    ],
)
def test_addresses_that_leave_this_machine_are_remote(src: str) -> None:
    assert is_remote(src)


@pytest.mark.parametrize(
    "src",
    [
        "a.png",
        "./a.png",
        "/a.png",
        "../img/a.png",
        "data:image/png;base64,AAAA",
        "DATA:image/png;base64,AAAA",
        "blob:http://127.0.0.1/uuid",
        "",
        "#top",
        "a.png?x=//b.example",
    ],
)
def test_local_paths_and_data_images_are_not_remote(src: str) -> None:
    assert not is_remote(src)


def test_a_network_path_is_written_with_plain_slashes_and_names_its_host() -> None:
    assert written_address(" \\\\A.example/x.png") == "//A.example/x.png"
    assert remote_host("\\\\A.example/x.png") == "a.example"
    assert remote_host("HTTPS://Img.Example:8443/x") == "img.example"
    assert remote_host("https://[bad") == ""


def test_the_policy_source_names_scheme_host_port_and_path_but_not_the_query() -> None:
    image = RemoteImage.parse("https://Img.Example:8443/a/b.png?size=2&x=1#frag")
    assert image.url == "https://img.example:8443/a/b.png?size=2&x=1"
    assert image.source == "https://img.example:8443/a/b.png"
    assert image.host == "img.example"


def test_characters_a_policy_would_split_on_are_escaped_in_the_path() -> None:
    image = RemoteImage.parse("https://a.example/x;y,z.png")
    assert image.source == "https://a.example/x%3By%2Cz.png"
    assert ";" not in image.url


def test_an_international_host_is_written_as_its_ascii_form() -> None:
    assert RemoteImage.parse("https://bücher.example/x.png").host == "xn--bcher-kva.example"


def test_a_bare_host_loads_its_root_path() -> None:
    assert RemoteImage.parse("http://a.example").source == "http://a.example/"


@pytest.mark.parametrize(
    "raw",
    [
        "javascript:alert(1)",
        "data:image/png;base64,AAAA",
        "//a.example/x.png",
        "a.png",
        "https://",
        "https://user@a.example/x.png",
        "https://user:pw@a.example/x.png",
        "https://[::1]/x.png",
        "https://a.example:99999/x.png",
        "https://a.example/x.png y",
        " https://a.example/x.png",
        "https://a.example/x'.png",
        'https://a.example/x".png',
        "https://a.example/\x00.png",
        "https://a_b!.example/x.png",
        "https://" + "a" * MAX_REMOTE_URL + ".example/",
    ],
)
def test_anything_but_a_plain_http_address_is_refused_with_the_reason(raw: str) -> None:
    with pytest.raises(InvalidArgument) as caught:
        RemoteImage.parse(raw)
    assert caught.value.argument == "url"
    assert "does not load it" in caught.value.message

"""What an account's username, password, role and token name may be.

Pure rules, no I/O: services call them before anything is stored or hashed. A username is
stored in its canonical form (``canonical_username``), so ``Alice`` and ``alice`` are one
account; a password is compared in its NFKC form, so the same characters typed on another
keyboard still match.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Final, Literal, get_args

from quire.core.errors import InvalidArgument

Role = Literal["superadmin", "admin", "collaborator"]
ROLES: Final[tuple[Role, ...]] = get_args(Role)

USERNAME_MAX = 32
PASSWORD_MIN = 12
PASSWORD_MAX = 1024
TOKEN_NAME_MAX = 64
_USERNAME = re.compile(r"[a-z0-9][a-z0-9._-]*\Z")
RESERVED_USERNAMES: Final = frozenset({"owner", "root", "system", "anonymous", "admin"})
"""Names a person could mistake for the single-mode owner, the server itself or a role."""


def canonical_username(raw: str) -> str:
    """``raw`` as the username it names: lower case ASCII letters, digits, ``.``, ``_`` and
    ``-``, starting with a letter or digit, at most 32 characters, and not a reserved name.

    Raises InvalidArgument (argument ``username``) saying which rule it breaks. Non-ASCII
    letters are refused rather than folded, so two accounts can never look alike.
    """
    name = raw.strip().lower()
    if not name:
        raise _bad_username("is empty")
    if len(name) > USERNAME_MAX:
        raise _bad_username(f"is {len(name)} characters long, over the limit of {USERNAME_MAX}")
    if not name.isascii() or _USERNAME.match(name) is None:
        raise _bad_username(
            f"{raw!r} has a character a username may not: use a-z, 0-9, '.', '_' and '-', "
            "starting with a letter or digit"
        )
    if name in RESERVED_USERNAMES:
        raise _bad_username(f"{name!r} is reserved")
    return name


def canonical_group_name(raw: str) -> str:
    """An access group's name, by the characters and length rules of a username (reserved
    names are allowed); InvalidArgument (argument ``group``) otherwise."""
    name = raw.strip().lower()
    if not name or len(name) > USERNAME_MAX or not name.isascii() or not _USERNAME.match(name):
        raise InvalidArgument(
            f"The group name {raw!r} is not one: use 1 to {USERNAME_MAX} of a-z, 0-9, '.', '_' "
            "and '-', starting with a letter or digit.",
            argument="group",
        )
    return name


def _bad_username(why: str) -> InvalidArgument:
    return InvalidArgument(f"The username {why}. Pick another username.", argument="username")


def normalized_password(password: str) -> str:
    """The password as it is hashed and compared: its NFKC form. Never checks the policy (a
    sign-in with an old, weaker password must still be compared)."""
    return unicodedata.normalize("NFKC", password)


def check_new_password(password: str, *, username: str) -> str:
    """The normalized form of a new ``password`` for ``username``, or InvalidArgument naming
    the rule it breaks: 12 to 1024 characters, no control characters, not the username, not
    one character repeated. Length is the rule that matters; no mix of kinds is demanded.
    """
    text = normalized_password(password)
    if len(text) < PASSWORD_MIN:
        raise _bad_password(f"has {len(text)} characters; it needs at least {PASSWORD_MIN}")
    if len(text) > PASSWORD_MAX:
        raise _bad_password(f"is over the limit of {PASSWORD_MAX} characters")
    if any(unicodedata.category(char) == "Cc" for char in text):
        raise _bad_password("holds a control character (a tab, newline or the like)")
    if username.lower() in text.lower():
        raise _bad_password("contains the username")
    if len(set(text)) == 1:
        raise _bad_password("is one character repeated")
    return text


def _bad_password(why: str) -> InvalidArgument:
    return InvalidArgument(
        f"The password {why}. Choose another one (a phrase of a few words is easy to type "
        "and hard to guess).",
        argument="password",
    )


def check_role(raw: str) -> Role:
    """``raw`` as a Role, or InvalidArgument listing the roles."""
    for role in ROLES:
        if raw == role:
            return role
    raise InvalidArgument(
        f"There is no role {raw!r}: use one of {', '.join(ROLES)}.", argument="role"
    )


def check_token_name(raw: str) -> str:
    """A token's name: 1 to 64 printable characters, trimmed; InvalidArgument otherwise."""
    name = raw.strip()
    if not name or len(name) > TOKEN_NAME_MAX or not name.isprintable():
        raise InvalidArgument(
            f"A token's name is 1 to {TOKEN_NAME_MAX} printable characters; {raw!r} is not. "
            "Name it after what will use it, e.g. --name ci-bot.",
            argument="name",
        )
    return name

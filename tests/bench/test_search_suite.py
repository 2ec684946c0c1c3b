"""The search suite's pure parts: which vault sizes it measures, the query kinds it asks, and
how its table judges a row against the issue's targets."""

import pytest

from bench import search
from bench.vaultgen import Planted

PLANTED = Planted(
    common="coum",
    rare=("rareone", "raretwo"),
    rare_notes=20,
    phrase="gand kais",
    phrase_notes=100,
    substring="ockt",
    no_hit="zqxwv",
)


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({}, [10_000]),
        ({"QUIRE_BENCH_LARGE": "1"}, [10_000, 100_000]),
        ({"QUIRE_BENCH_LARGE": "0"}, [10_000]),
        ({"QUIRE_BENCH_SEARCH_NOTES": "2000, 10000"}, [2000, 10_000]),
        ({"QUIRE_BENCH_SEARCH_NOTES": "500", "QUIRE_BENCH_LARGE": "1"}, [500]),
    ],
)
def test_the_sizes_come_from_the_environment(environ: dict[str, str], expected: list[int]) -> None:
    assert search.sizes(environ) == expected


def test_every_kind_of_the_issue_is_asked_and_substrings_only_as_text() -> None:
    kinds = {kind.name: kind for kind in search.kinds(PLANTED)}
    assert list(kinds) == [
        "common word",
        "rare word",
        "two-word phrase",
        "4-letter substring",
        "no hit",
    ]
    assert kinds["rare word"].texts == PLANTED.rare
    assert kinds["4-letter substring"].modes == ("grep",)
    assert kinds["common word"].target_ms == 50
    assert all(kind.target_ms == 10 for name, kind in kinds.items() if name != "common word")


def _row(mcp: list[float], rg: list[float], target: float = 10) -> search.Row:
    kind = search.Kind("k", ("x",), ("grep",), target)
    return search.Row(kind, "grep", mcp=mcp, rg=rg)


@pytest.mark.parametrize(
    ("row", "verdict"),
    [
        (_row([5.0], [400.0]), "met"),
        (_row([5.0], [100.0]), "MISSED"),
        (_row([12.0], [1000.0]), "MISSED"),
        (_row([40.0], [2000.0], target=50), "met"),
        (_row([5.0], []), "met"),
        (_row([], [100.0]), "-"),
    ],
)
def test_a_row_meets_its_target_only_when_fast_and_forty_times_ripgrep(
    row: search.Row, verdict: str
) -> None:
    assert search._verdict(row) == verdict

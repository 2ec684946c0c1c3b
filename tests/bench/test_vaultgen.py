"""The benchmark's vault generator: deterministic, notes within their size bounds, links that
resolve, planted words in exactly the notes it says."""

import hashlib
import posixpath
import re
from pathlib import Path
from urllib.parse import unquote

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bench import vaultgen

NOTES = 400


def _digest(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        digest.update(str(path.relative_to(root)).encode())
        if path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> vaultgen.Vault:
    return vaultgen.generate(tmp_path_factory.mktemp("vault"), NOTES, seed=3)


def test_the_same_seed_writes_the_same_bytes(tmp_path: Path, vault: vaultgen.Vault) -> None:
    again = vaultgen.generate(tmp_path / "again", NOTES, seed=3)
    assert again.paths == vault.paths
    assert again.bytes == vault.bytes
    assert _digest(again.root) == _digest(vault.root)


def test_another_seed_writes_another_vault(tmp_path: Path, vault: vaultgen.Vault) -> None:
    other = vaultgen.generate(tmp_path / "other", NOTES, seed=4)
    assert _digest(other.root) != _digest(vault.root)


def test_every_note_is_utf8_between_one_and_eight_kilobytes(vault: vaultgen.Vault) -> None:
    files = sorted(vault.root.rglob("*.md"))
    assert len(files) == NOTES == len(set(vault.paths))
    sizes = [len(path.read_bytes()) for path in files]
    assert min(sizes) >= vaultgen.MIN_BYTES
    assert max(sizes) <= vaultgen.MAX_BYTES
    assert sum(sizes) == vault.bytes
    for path in files:
        path.read_bytes().decode("utf-8")


def test_notes_carry_front_matter_links_tasks_code_and_tables(vault: vaultgen.Vault) -> None:
    texts = [(vault.root / path).read_text(encoding="utf-8") for path in vault.paths]
    assert all(re.match(r"---\ntitle: .+\ntags: \[\w+(, \w+)*\]\n", text) for text in texts)
    joined = "\n".join(texts)
    for mark in ("[[", "](", "- [ ] ", "- [x] ", "```", "|---|", "\n## ", "\n> "):
        assert mark in joined, mark


def test_wikilinks_and_markdown_links_point_at_notes_of_the_vault(vault: vaultgen.Vault) -> None:
    titles = {Path(path).stem for path in vault.paths}
    files = set(vault.paths)
    wikilinks = markdown_links = 0
    for path in vault.paths:
        text = (vault.root / path).read_text(encoding="utf-8")
        for target in re.findall(r"\[\[([^\]|#]+)(?:\|[^\]]*)?\]\]", text):
            assert target in titles
            wikilinks += 1
        for target in re.findall(r"\]\(([^)]+\.md)\)", text):
            resolved = posixpath.normpath(posixpath.join(posixpath.dirname(path), target))
            assert unquote(resolved) in files, (path, target)
            markdown_links += 1
    assert wikilinks > NOTES
    assert markdown_links > NOTES // 4


def test_folders_nest_but_never_deeper_than_the_limit(tmp_path: Path) -> None:
    vault = vaultgen.generate(tmp_path, 2000, seed=1)
    depths = [path.count("/") for path in vault.paths]
    assert max(depths) == vaultgen.MAX_DEPTH
    assert min(depths) == 0


def test_planted_words_are_in_exactly_the_notes_it_says(vault: vaultgen.Vault) -> None:
    planted = vault.planted
    texts = [(vault.root / path).read_text(encoding="utf-8").lower() for path in vault.paths]
    for word in planted.rare:
        assert sum(re.search(rf"\b{word}\b", text) is not None for text in texts) == 20
    assert sum(planted.phrase in text for text in texts) >= planted.phrase_notes
    assert sum(planted.common in text for text in texts) > NOTES // 4
    assert sum(planted.substring in text for text in texts) > NOTES // 10
    assert not any(planted.no_hit in text for text in texts)
    assert len(planted.substring) == 4
    assert not any(word.startswith(planted.substring) for word in planted.rare)


def test_a_vault_smaller_than_the_rare_count_plants_every_note(tmp_path: Path) -> None:
    vault = vaultgen.generate(tmp_path, 5)
    assert vault.planted.rare_notes == 5
    for path in vault.paths:
        assert vault.planted.rare[0] in (tmp_path / path).read_text(encoding="utf-8")


def test_a_vault_needs_a_note(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="at least one note"):
        vaultgen.generate(tmp_path, 0)


def test_the_command_line_writes_a_vault_and_says_what_it_planted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert vaultgen.main([str(tmp_path / "cli"), "--notes", "30", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Wrote 30 notes (") and "rare words (in 20 notes each)" in out
    assert len(list((tmp_path / "cli").rglob("*.md"))) == 30


def test_the_command_line_refuses_no_notes(tmp_path: Path) -> None:
    with pytest.raises(SystemExit):
        vaultgen.main([str(tmp_path), "--notes", "0"])


@pytest.mark.parametrize(
    ("text", "expected_bytes"),
    [
        ("a" * 9000, vaultgen.MAX_BYTES),
        ("é" * 5000, vaultgen.MAX_BYTES),
        ("line\n" * 2000, 8190),
        ("x" * 8191 + "é\n", 8191),
    ],
)
def test_fitting_cuts_at_a_line_end_or_a_whole_character(text: str, expected_bytes: int) -> None:
    fitted = vaultgen._fit(text)
    assert len(fitted.encode("utf-8")) == expected_bytes
    assert text.startswith(fitted)


_parts = st.lists(st.sampled_from(["a", "b", "c d"]), max_size=4)


@given(here=_parts, there=_parts, name=st.sampled_from(["n.md", "m n.md"]))
def test_relative_paths_lead_from_the_folder_to_the_note(
    here: list[str], there: list[str], name: str
) -> None:
    from pathlib import PurePosixPath

    target = PurePosixPath(*there, name)
    relative = vaultgen._relative(PurePosixPath(*here), target)
    assert posixpath.normpath(posixpath.join(*here, relative)) == str(target)

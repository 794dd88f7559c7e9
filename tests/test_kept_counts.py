"""Turns that stay fast: the ranker's counts of the log (N and field lengths) are kept beside
it in rank-stats.json, so a query counts only what was appended since; the answers stay those
of a full count, whatever happened to the log."""

from __future__ import annotations

import os

import orjson
import pytest

from tests.conftest import occupy, write_log
from tests.test_recall import BACKOFF, _entries

QUESTION = "webhook retries backoff"


def _note(i: int, words: str = "") -> dict:
    return {"id": f"Kc{i:06d}_xxx", "timestamp": f"2026-02-{1 + i % 28:02d}T10:00:00Z",
            "type": "fact", "content": f"Note {i} on the garden beds and the webhook queue {words}",
            "subject": f"topic-{i % 9}", "session": f"k{i // 5}"}


@pytest.fixture
def kept(log_dir):
    return log_dir / "rank-stats.json"


def _answers(cli) -> tuple[str, str]:
    """What search and recall print for the same question (scores included)."""
    search = cli("search", "--json", QUESTION)
    recall = cli("recall", "--json", "--", BACKOFF)
    assert search.exit_code == 0 and recall.exit_code == 0, (search.stderr, recall.stderr)
    return search.stdout, recall.stdout


def _fresh(cli, kept) -> tuple[str, str]:
    """The answers of a full count (no kept counts), the kept counts put back after."""
    saved = kept.read_bytes() if kept.exists() else None
    kept.unlink(missing_ok=True)
    answers = _answers(cli)
    kept.unlink(missing_ok=True)
    if saved is not None:
        kept.write_bytes(saved)
    return answers


def test_a_query_keeps_the_counts_and_holds_no_word_of_the_log(log_dir, cli, kept):
    write_log(log_dir, _entries())
    first = _answers(cli)
    data = orjson.loads(kept.read_bytes())
    assert data["size"] == (log_dir / "log.jsonl").stat().st_size
    assert data["lines"] == len(_entries())
    # counts only: no text of an entry (purge must be able to leave nothing behind)
    assert all(isinstance(value, int) for value in data.values())
    assert _answers(cli) == first == _fresh(cli, kept)


def test_lines_appended_later_are_counted_on_top_of_the_kept_ones(log_dir, cli, kept,
                                                                  monkeypatch):
    from zettelclaw.rank import kept as kept_module

    monkeypatch.setattr(kept_module, "STORE_AFTER", 1024)
    write_log(log_dir, _entries())
    before = _answers(cli)
    size = orjson.loads(kept.read_bytes())["size"]
    write_log(log_dir, [_note(i, "retries backoff" if i % 7 == 0 else "") for i in range(40)])
    after = _answers(cli)
    assert after != before  # the new notes are found...
    assert after == _fresh(cli, kept)  # ...scored as a full count scores them
    grown = orjson.loads(kept.read_bytes())
    assert grown["size"] > size and grown["lines"] == len(_entries()) + 40
    # a line still being written (no newline yet) is counted, never kept
    write_log(log_dir, [], raw_tail=b'{"id":"Kc_partial","type":"fact","content":"webh')
    assert _answers(cli) == _fresh(cli, kept)
    assert orjson.loads(kept.read_bytes())["size"] <= (log_dir / "log.jsonl").stat().st_size - 10


def test_a_log_changed_in_place_is_counted_again(log_dir, cli, kept):
    write_log(log_dir, _entries() + [_note(i) for i in range(30)])
    _answers(cli)
    log = log_dir / "log.jsonl"
    inode, size = log.stat().st_ino, log.stat().st_size
    # same file, same length, other words before the end the counts were kept for: one word
    # of three letters where there were three words (the lengths change, the size does not)
    data = log.read_bytes().replace(b"garden beds and", b"gardenxbedsxand")
    with open(log, "r+b") as fh:
        fh.write(data)
    assert (log.stat().st_ino, log.stat().st_size) == (inode, size)
    assert _answers(cli) == _fresh(cli, kept)


@pytest.mark.parametrize("junk", [b"", b"not json", b'{"version":1,"inode":"x"}',
                                  b'{"version":1,"inode":1,"size":-5}'])
def test_an_unreadable_kept_file_is_counted_again(log_dir, cli, kept, junk):
    write_log(log_dir, _entries())
    expected = _fresh(cli, kept)
    kept.write_bytes(junk)
    assert _answers(cli) == expected


@pytest.mark.parametrize("kind", ["fifo", "symlink", "directory"])
def test_something_else_in_its_place_is_neither_read_nor_replaced(log_dir, cli, kept, kind,
                                                                 tmp_path):
    write_log(log_dir, _entries())
    expected = _fresh(cli, kept)
    elsewhere = tmp_path / "elsewhere.json"
    still_there = occupy(kept, kind, elsewhere)
    assert _answers(cli) == expected  # (a FIFO is not waited on)
    assert not elsewhere.exists()
    assert still_there()


def test_counts_of_another_log_are_not_trusted(log_dir, cli, kept):
    write_log(log_dir, _entries())
    _answers(cli)
    (log_dir / "log.jsonl").rename(log_dir / "old.jsonl")  # a new file in its place
    write_log(log_dir, [_note(i, "retries") for i in range(12)] + _entries())
    assert _answers(cli) == _fresh(cli, kept)


def test_purge_and_a_subject_rename_drop_the_kept_counts(log_dir, cli, kept):
    write_log(log_dir, _entries())
    _answers(cli)
    assert kept.exists()
    assert cli("subjects", "rename", "--yes", "garden", "allotment").exit_code == 0
    assert not kept.exists()
    _answers(cli)
    assert kept.exists()
    result = cli("purge", "--yes", "Gh2oF_0aaaa2")
    assert result.exit_code == 0, result.stderr
    assert not kept.exists()
    # a purge run again (after one killed past its rewrite) rewrites nothing: it drops them too
    _answers(cli)
    assert kept.exists()
    result = cli("purge", "--yes", "Gh2oF_0aaaa2")
    assert result.exit_code == 0, result.stderr
    assert not kept.exists()


def test_a_read_only_log_dir_still_answers(log_dir, cli, kept):
    write_log(log_dir, _entries())
    expected = _fresh(cli, kept)
    os.chmod(log_dir, 0o500)
    try:
        if os.access(log_dir, os.W_OK):
            pytest.skip("running as a user who writes anywhere")
        assert _answers(cli) == expected
        assert not kept.exists()
    finally:
        os.chmod(log_dir, 0o700)


def test_recall_on_a_year_of_log_loads_no_json_library(log_dir, zc):
    # a year of use is a log of a few MB: recall and its handoff read the kept counts and parse
    # only candidate lines, print JSON with the standard library's C encoder, and sort the
    # 29th-31st of a month without datetime
    from tests.hotpath import imports_of

    write_log(log_dir, _entries() + [
        {**_note(i), "timestamp": f"2026-{(1, 3, 5, 7, 8, 10, 12)[i % 7]:02d}-"
                                  f"{1 + i % 31:02d}T10:00:00Z"} for i in range(4000)])
    assert (log_dir / "log.jsonl").stat().st_size > 600_000
    zc("recall", "--handoff", "--", BACKOFF)  # the first turn counts the log and keeps it
    for argv in (["recall", "--handoff", "--text", "--", BACKOFF],
                 ["recall", "--handoff", "--", BACKOFF], ["recall", "--json", "--", BACKOFF]):
        assert imports_of(argv, "2s, 10s, 30s", ("orjson", "json", "re", "datetime", "pathlib",
                                                "subprocess", "dataclasses")) == [], argv


def test_search_of_words_on_a_small_log_starts_no_process_and_loads_no_json_library(log_dir):
    # memory_search's form: on a log read in Python, no rg process, no Query (dataclasses,
    # datetime, re), no pathlib for the memory files, no orjson for a page of results
    from tests.hotpath import imports_of
    from zettelclaw import hot, rank

    assert hot.SMALL_LOG == rank.SMALL_LOG  # hot decides before importing rank
    write_log(log_dir, _entries())
    (log_dir.parent / "workspace" / "memory").mkdir(parents=True, exist_ok=True)
    (log_dir.parent / "workspace" / "memory" / "notes.md").write_text(
        "# Webhooks\n\nThe retry backoff was tuned twice.\n")
    assert imports_of(["search", "--", "webhook retries backoff"],
                      ("2s, 10s, 30s", "memory/notes.md"),
                      ("orjson", "json", "re", "datetime", "pathlib", "subprocess", "threading",
                       "dataclasses", "zettelclaw.query")) == []

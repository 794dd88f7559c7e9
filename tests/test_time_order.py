"""Every time-based reader goes by the entries' dates, not their place in the file.

An entry is dated when its conversation happened. A late extraction (a sweep after a crash, a
first install, a retry) appends older-dated entries at the end of the log, so the file is not in
time order: "the most recent" is the latest-dated, "newer" means later-dated, whatever the file
order says. Replacement stays positional: a line is replaced by a later line.
"""

from __future__ import annotations

import pytest

from tests.conftest import write_log
from tests.test_briefing import BEGIN, END, entry, sections

NIGHT = "2026-11-24T03:00:00Z"

# appended at the end of November, in this order
NOVEMBER = [
    entry("decision", "Porcelain tiles for the kitchen floor", "2026-11-20T10:00:00Z",
          "kitchen", session="nov1", id="NovTiles0001"),
    entry("task", "Call the plumber about the sink", "2026-11-21T10:00:00Z", "kitchen",
          session="nov2", id="NovPlumb0001"),
    entry("fact", "The garden shed roof leaks", "2026-11-22T10:00:00Z", "garden",
          session="nov3", id="NovGardn0001"),
]
# then a late sweep extracted older conversations: older dates, later lines
SWEPT = [
    entry("decision", "Move the blog to Hugo", "2026-01-15T10:00:00Z", "blog",
          session="jan1", id="JanBlogs0001"),
    entry("task", "Renew the blog's domain", "2026-01-15T10:05:00Z", "blog",
          session="jan1", id="JanDomai0001"),
    entry("fact", "Kitchen budget is 8000 euros", "2026-11-15T10:00:00Z", "kitchen",
          session="nov0", id="LateKitch001"),
    entry("fact", "Garden shed built in 2019", "2026-09-01T10:00:00Z", "garden",
          session="sep1", id="SepGardn0001"),
]


@pytest.fixture
def swept_log(log_dir):
    return write_log(log_dir, NOVEMBER + SWEPT)


def ids(entries):
    return [e["id"] for e in entries]


def briefing(cli, *args) -> dict[str, list[str]]:
    result = cli("brief", "--now", NIGHT, "--print", *args)
    assert result.exit_code == 0, result.stderr
    block = result.stdout.split(BEGIN)[-1].split(END)[0]
    return sections(block)


# ---------------------------------------------------------------------------------------------
# log and search


def test_log_n_shows_the_latest_dated_entries_oldest_first(swept_log, cli):
    assert ids(cli.lines("log", "-n", "3", "--json")) == [
        "NovTiles0001", "NovPlumb0001", "NovGardn0001"]
    assert ids(cli.lines("log", "-n", "5", "--json")) == [
        "SepGardn0001", "LateKitch001", "NovTiles0001", "NovPlumb0001", "NovGardn0001"]


def test_log_ties_keep_file_order_and_replaced_entries_are_marked(log_dir, cli):
    same = "2026-11-20T10:00:00Z"
    write_log(log_dir, [
        entry("fact", "first of the pair", same, id="TieFirst0001"),
        entry("fact", "second of the pair", same, id="TieSecnd0001"),
        entry("fact", "an older correction", "2026-11-01T00:00:00Z", id="TieCorr00001",
              replaces="TieFirst0001"),
    ])
    shown = cli.lines("log", "-n", "2", "--json")
    assert ids(shown) == ["TieFirst0001", "TieSecnd0001"]
    assert shown[0]["replacedBy"] == "TieCorr00001"  # positional, whatever the dates
    assert ids(cli.lines("log", "-n", "1", "--json")) == ["TieSecnd0001"]


def test_search_limit_keeps_the_latest_dated(swept_log, cli):
    # the two latest-dated kitchen entries, though a January one is the last kitchen line
    got = cli.lines("search", "--subject", "kitchen", "--limit", "2", "--json")
    assert ids(got) == ["NovTiles0001", "NovPlumb0001"]
    # the hot path (a subprocess without Typer) agrees
    from tests.conftest import run_zettelclaw

    proc = run_zettelclaw("search", "--subject", "kitchen", "--limit", "2", "--json")
    assert proc.returncode == 0, proc.stderr
    assert [line.split(b'"id":"')[1][:12].decode() for line in proc.stdout.splitlines()] == [
        "NovTiles0001", "NovPlumb0001"]


def test_since_and_until_go_by_the_conversation_date(swept_log, cli):
    assert ids(cli.lines("search", "--since", "2026-11-01", "--json")) == ids(NOVEMBER) + [
        "LateKitch001"]
    assert ids(cli.lines("search", "--until", "2026-01-31", "--json")) == [
        "JanBlogs0001", "JanDomai0001"]


def test_equal_scores_rank_the_later_dated_first(log_dir, cli):
    write_log(log_dir, [
        entry("fact", "The boiler service is due", "2026-11-20T10:00:00Z", id="BoilerNov001",
              session="a"),
        entry("fact", "The boiler service is due", "2026-02-01T10:00:00Z", id="BoilerFeb001",
              session="b"),
    ])
    assert ids(cli.lines("search", "boiler", "service", "--json")) == [
        "BoilerNov001", "BoilerFeb001"]


# ---------------------------------------------------------------------------------------------
# the briefing


def test_a_january_conversation_swept_in_november_is_not_a_recent_decision(swept_log, cli):
    got = briefing(cli, "--no-llm")
    assert got["Recent Decisions"] == ["2026-11-20: Porcelain tiles for the kitchen floor"]
    assert not any("Hugo" in line for lines in got.values() for line in lines
                   if lines is not got["Pending"])


def test_active_shows_each_subject_s_latest_dated_entry(swept_log, cli):
    got = briefing(cli, "--no-llm")
    # the kitchen fact swept late is the last kitchen line in the file, not the latest entry;
    # and blog (only January) is not active
    assert got["Active"] == ["kitchen — Call the plumber about the sink (open)"]


def test_pending_is_newest_first_by_date(swept_log, cli):
    # (the blog task is ten months old: quiet by default, listed when quiet comes later)
    assert briefing(cli, "--no-llm", "--quiet-after", "365")["Pending"] == [
        "Call the plumber about the sink (kitchen)", "Renew the blog's domain (blog)"]


def test_stale_measures_the_silence_by_dates(swept_log, cli):
    # garden came back on 2026-11-22; its previous entry (appended after it) is from September
    assert briefing(cli, "--no-llm")["Stale"] == [
        "garden — last entry 2026-09-01, referenced in recent session"]


def test_the_contradiction_flag_names_the_later_dated_entry_as_the_newer(
        log_dir, cli, fake_anthropic):
    write_log(log_dir, [
        entry("fact", "Queue-based retries with 3 max", "2026-11-20T14:35:00Z",
              "auth-migration", session="nov", id="nEwRetries01"),
        # swept late: an older conversation, appended after the newer one
        entry("decision", "Synchronous retries with 5 max", "2026-02-10T09:00:00Z",
              "auth-migration", session="feb", id="oLdRetries01"),
    ])
    fake_anthropic.reply("1: yes")
    got = briefing(cli)
    (request,) = fake_anthropic.message_requests
    sent = request.user_text
    assert sent.index("older (decision, 2026-02-10)") < sent.index("newer (fact, 2026-11-20)")
    assert got["Contradictions"] == [
        'auth-migration: "Synchronous retries with 5 max" (2026-02-10, oLdRetries01) may '
        'conflict with "Queue-based retries with 3 max" (2026-11-20, nEwRetries01)']


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_log_n_agrees_with_sorting_the_whole_log_by_date(log_dir, cli, seed):
    """Over a log larger than the blocks it is read in: dates mostly in order, some late
    sweeps of older conversations, the latest dates early in the file, ties, hand-written
    timestamps in other forms, a blank line and a torn last line."""
    import random

    rng = random.Random(seed)
    entries = []
    for n in range(3000):
        day = 1 + n * 300 // 3000 if rng.random() > 0.1 else rng.randint(1, 300)
        month, mday, hour = 1 + (day - 1) // 28, 1 + (day - 1) % 28, rng.randint(0, 2)
        stamp = f"2026-{month:02d}-{mday:02d}T{hour:02d}:00:00Z"
        entries.append(entry("fact", f"entry {n} " + "w" * rng.randint(10, 200), stamp,
                             id=f"E{seed}x{n:09d}"))
    entries[rng.randint(0, 200)]["timestamp"] = "2026-12-31T23:00:00+00:00"  # the latest, early
    entries[rng.randint(300, 900)]["timestamp"] = "2026-12-31T23:00:00.5Z"  # the same second
    entries[rng.randint(1000, 1500)]["timestamp"] = "2026-12-31T22:59:59Z"
    path = write_log(log_dir, entries[:1600])
    with open(path, "ab") as fh:
        fh.write(b"\n")
    write_log(log_dir, entries[1600:], raw_tail=b'{"id":"torn","timestamp":"2027-01-01T00:00:00Z"')

    from zettelclaw.clock import sort_key

    ranked = sorted(range(len(entries)), key=lambda i: (sort_key(entries[i]["timestamp"]), i))
    for count in (1, 5, 40):
        expected = [entries[i]["id"] for i in ranked[-count:]]
        assert ids(cli.lines("log", "-n", str(count), "--json")) == expected

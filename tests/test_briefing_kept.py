"""The briefing's kept rows (``brief-rows.json``) and digest (``brief-digest.json``): a brief
after a night's new lines reads those lines, not the log (nor a row per line of it), and says
exactly what it would say without them."""

from __future__ import annotations

import os
import shutil

import orjson
import pytest

from tests.conftest import write_log
from tests.test_briefing import NIGHT, block_of, entry, sections

ROWS = "brief-rows.json"
DIGEST = "brief-digest.json"
SUBJECTS = ("auth-migration", "office-network", "garden", "tax-return", "zettelclaw")


def a_year(days: int = 365, per_day: int = 4) -> list[dict]:
    """A year of entries ending the day before NIGHT: facts, decisions, tasks (some done),
    questions and handoffs over a few subjects, with corrections along the way."""
    from datetime import datetime, timedelta

    end = datetime(2026, 2, 23, 9, 0)
    lines = []
    for day in range(days):
        when = end - timedelta(days=days - 1 - day)
        for n in range(per_day):
            kind = ("fact", "decision", "task", "question", "handoff")[(day + n) % 5]
            subject = SUBJECTS[(day * per_day + n) % len(SUBJECTS)]
            stamp = (when + timedelta(minutes=10 * n)).strftime("%Y-%m-%dT%H:%M:%SZ")
            fields = {"status": "done"} if kind == "task" and day % 3 else {}
            lines.append(entry(kind, f"Day {day} {kind} {n} about {subject}", stamp, subject,
                               session=f"s{day}", id=f"y{day:04d}n{n}xxxxx"[:12], **fields))
        if day % 7 == 6:  # a correction of last week's first entry
            target = lines[-4 * per_day]
            lines.append(entry(target["type"], f"Corrected: {target['content']}",
                               lines[-1]["timestamp"], session=f"s{day}",
                               id=f"c{day:04d}xxxxxxx"[:12], replaces=target["id"]))
    return lines


def brief(cli, *args: str, night: str = NIGHT) -> str:
    result = cli("brief", "--now", night, "--no-vault", *args)
    assert result.exit_code == 0, result.stderr
    return result.stdout


def printed(cli, *args: str, night: str = NIGHT) -> str:
    result = cli("brief", "--now", night, "--print", *args)
    assert result.exit_code == 0, result.stderr
    return result.stdout


def without_rows(cli, log_dir, *args: str, night: str = NIGHT) -> str:
    """The block as a brief with no kept rows and no digest prints it (both are put back
    after, as they were)."""
    from zettelclaw.briefing import digest
    from zettelclaw.briefing import rows as kept

    saved = {}
    for name in (ROWS, DIGEST):
        path = log_dir / name
        saved[name] = path.read_bytes() if path.exists() else None
        path.unlink(missing_ok=True)
    real = kept._load, digest._load, digest.keep
    kept._load = lambda *_: None  # not kept again during this run either
    digest._load = lambda *_: (None, b"")
    digest.keep = lambda *_, **__: None
    try:
        return printed(cli, *args, night=night)
    finally:
        kept._load, digest._load, digest.keep = real
        for name, data in saved.items():
            if data is not None:
                (log_dir / name).write_bytes(data)


@pytest.fixture
def reads(monkeypatch):
    """The log lines a brief parses: ``scanned`` to pick and rank, ``shown`` for their text."""
    from zettelclaw.briefing import rows

    seen = {"scanned": [], "shown": []}
    scan, show = rows._scanned_line, rows._shown_line

    def scanned(line):
        seen["scanned"].append(line)
        return scan(line)

    def shown(line):
        seen["shown"].append(line)
        return show(line)

    monkeypatch.setattr(rows, "_scanned_line", scanned)
    monkeypatch.setattr(rows, "_shown_line", shown)
    return seen


def test_after_a_year_one_new_decision_is_briefed_from_the_new_line_alone(cli, log_dir,
                                                                            memory, reads):
    write_log(log_dir, a_year())
    brief(cli, "--no-llm", night="2026-02-23T20:00:00Z")  # last night's brief keeps the rows
    reads["scanned"].clear()
    reads["shown"].clear()
    write_log(log_dir, [entry("decision", "Move the garden beds to the south fence",
                              "2026-02-23T21:00:00Z", "garden", id="newDecision1")])

    brief(cli, "--no-llm")

    assert "2026-02-23: Move the garden beds to the south fence" in \
        sections(block_of(memory))["Recent Decisions"]
    assert [orjson.loads(line)["id"] for line in reads["scanned"]] == ["newDecision1"]
    # besides it, only the texts shown are read back: not one line per entry of the year
    shown_items = sum(len(items) for items in sections(block_of(memory)).values())
    assert len(reads["shown"]) <= shown_items < 80


def test_the_brief_is_the_same_with_the_rows_deleted(cli, log_dir, memory):
    """Replacement chains, a correction without a subject, forgets and an undo, a purge
    tombstone, review bookkeeping, another agent, private words left out, an odd timestamp,
    an invalid line and a line still being written: night after night, with the rows kept
    and without them, the same block."""
    first = [
        entry("decision", "Use Postgres for the ledger", "2026-02-01", "ledger", id="chainA000001"),
        entry("decision", "Use SQLite for the ledger", "2026-02-10", "ledger", id="chainB000001",
              replaces="chainA000001"),
        entry("task", "Migrate the ledger tables", "2026-02-11", "ledger", id="taskLedger01"),
        entry("question", "Which backup tool for the ledger?", "2026-02-12", "ledger",
              id="questLedger1"),
        entry("task", "Renew the passport", "2026-01-02", "travel", id="taskPassprt1"),
        entry("fact", "The office VPN port is 4443", "2026-02-20T08:00:00+02:00", "office",
              id="oddTimeFact1"),
        entry("task", "Plan the offsite", "2026-02-19", "offsite", id="workTask0001",
              agent="work"),
        entry("question", "Who books the venue?", "2026-02-19", "offsite", id="workQuest001",
              agent="work"),
        entry("fact", "PIN is kept in the vault [private]", "2026-02-18", "bank",
              id="privFact0001"),
    ]
    write_log(log_dir, first, raw_tail=b"{not json}\n")
    nights = [
        ("2026-02-21T03:00:00Z", [
            entry("decision", "Use DuckDB for the ledger", "2026-02-20", id="chainC000001",
                  replaces="chainB000001"),  # no subject: the ledger's, inherited
            {"id": "forget000001", "timestamp": "2026-02-20T10:00:00Z", "type": "forget",
             "replaces": "taskPassprt1"},
            entry("task", "Closed by review", "2026-02-20", "ledger", session="review",
                  id="reviewClose1", status="done", replaces="taskLedger01"),
        ]),
        ("2026-02-22T03:00:00Z", [
            {"id": "unforget0001", "timestamp": "2026-02-21T10:00:00Z", "type": "unforget",
             "replaces": "forget000001"},
            {"id": "questLedger1", "timestamp": "2026-02-12T12:00:00Z", "type": "question",
             "session": "s1", "purged": "2026-02-21T11:00:00Z"},  # a tombstone's line
            entry("question", "Does the venue have parking?", "2026-02-21", "offsite",
                  id="workQuest002", agent="work"),
        ]),
        ("2026-02-24T03:00:00Z", [
            entry("fact", "Backups go to the NAS nightly", "2026-02-23", "ledger",
                  id="lastFact0001"),
        ]),
    ]
    for night, lines in nights:
        write_log(log_dir, lines)
        for agent in ("main", "work"):
            kept = printed(cli, "--no-llm", "--agent", agent, night=night)
            assert (log_dir / ROWS).exists()
            assert kept == without_rows(cli, log_dir, "--no-llm", "--agent", agent, night=night)
    # a line still being written is read, not kept
    with open(log_dir / "log.jsonl", "ab") as fh:
        fh.write(orjson.dumps(entry("task", "Half written", "2026-02-23", "ledger",
                                    id="partial00001")))
    kept = printed(cli, "--no-llm", "--agent", "main")
    assert "Half written" in kept
    assert kept == without_rows(cli, log_dir, "--no-llm", "--agent", "main")
    assert b"Half written" not in (log_dir / ROWS).read_bytes()


def test_the_rows_hold_no_text(cli, log_dir):
    write_log(log_dir, a_year(days=20))
    brief(cli, "--no-llm")
    kept = (log_dir / ROWS).read_text()
    assert "Day 3" not in kept and "about" not in kept
    assert '"garden"' in kept  # subjects, ids and types are what ranks


def test_a_purged_entry_never_appears_in_the_brief_after_the_rows_were_kept(cli, log_dir,
                                                                             memory):
    write_log(log_dir, a_year(days=30) + [
        entry("task", "Call the locksmith about the back door", "2026-02-23", "garden",
              id="secretTask01")])
    brief(cli, "--no-llm")
    assert "Call the locksmith" in block_of(memory)
    stale = (log_dir / ROWS).read_bytes()

    result = cli("purge", "secretTask01", "--yes")
    assert result.exit_code == 0, result.stderr

    assert "Call the locksmith" not in block_of(memory)
    assert not (log_dir / ROWS).exists()  # dropped with the log's other caches
    brief(cli, "--no-llm")
    (row,) = [r for r in orjson.loads((log_dir / ROWS).read_bytes())["rows"]
              if r["id"] == "secretTask01"]
    assert "purged" in row and "subject" not in row  # the tombstone, not the task
    (log_dir / ROWS).write_bytes(stale)  # the rows from before the purge, put back
    brief(cli, "--no-llm")
    assert "Call the locksmith" not in block_of(memory)
    assert "Call the locksmith" not in without_rows(cli, log_dir, "--no-llm")


def test_a_forgotten_task_leaves_pending(cli, log_dir, memory):
    write_log(log_dir, a_year(days=30) + [
        entry("task", "Return the library books", "2026-02-23", "garden", id="booksTask001")])
    brief(cli, "--no-llm")
    assert (log_dir / ROWS).exists()
    assert "Return the library books (garden)" in sections(block_of(memory))["Pending"]

    result = cli("forget", "booksTask001", "--yes")
    assert result.exit_code == 0, result.stderr
    brief(cli, "--no-llm")

    assert "Return the library books" not in block_of(memory)
    result = cli("forget", "--undo", "booksTask001", "--yes")
    assert result.exit_code == 0, result.stderr
    brief(cli, "--no-llm")
    assert "Return the library books (garden)" in sections(block_of(memory))["Pending"]


def test_another_agents_kept_rows_never_show(cli, log_dir):
    write_log(log_dir, a_year(days=30) + [
        entry("task", "Book the team offsite", "2026-02-23", "offsite", id="workTask0001",
              agent="work"),
        entry("question", "Is the garage door fixed?", "2026-02-23", "garden", id="mainQ0000001")])
    work = printed(cli, "--no-llm", "--agent", "work")
    assert "Book the team offsite" in work and "garage door" not in work
    assert b"workTask0001" in (log_dir / ROWS).read_bytes()

    main = printed(cli, "--no-llm", "--agent", "main")

    assert "garage door" in main and "Book the team offsite" not in main
    assert "offsite" not in main


@pytest.mark.parametrize("change", ["truncated", "replaced", "rewritten in place",
                                    "edited in place", "rows spoiled"])
def test_a_log_that_changed_under_the_rows_is_read_whole_again(cli, log_dir, change):
    path = write_log(log_dir, a_year(days=30))
    printed(cli, "--no-llm")
    assert (log_dir / ROWS).exists()
    data = path.read_bytes()
    last_task = data.rindex(b'"status":"done"')  # Day 29's task, the last line but one
    reopened = data[:last_task] + b'"status":"open"' + data[last_task + 15:]
    if change == "truncated":  # the last week gone, one new line after it
        path.write_bytes(b"".join(data.splitlines(keepends=True)[:-30]))
        write_log(log_dir, [entry("task", "After the cut", "2026-02-23", "garden")])
    elif change == "replaced":  # another file of the same size in its place
        other = log_dir / "other.jsonl"
        other.write_bytes(reopened)
        os.replace(other, path)
    elif change == "rewritten in place":  # same inode, same size, other last bytes
        with open(path, "r+b") as fh:
            fh.write(reopened)
    elif change == "edited in place":  # an early open task's id; the last bytes as they were
        at = data.index(b'"id":"y0027n0xxxxx"')
        with open(path, "r+b") as fh:
            fh.seek(at)
            fh.write(b'"id":"y0027nZxxxxx"')
    else:
        (log_dir / ROWS).write_bytes(b'{"version":1,"rows":[')

    kept = printed(cli, "--no-llm")

    assert kept == without_rows(cli, log_dir, "--no-llm")
    if change in ("replaced", "rewritten in place"):
        assert any(item.startswith("Day 29 task") for item in sections(kept)["Pending"])
    if change == "truncated":
        assert "After the cut (garden)" in sections(kept)["Pending"]
    if change == "edited in place":
        assert "Day 27 task 0 about tax-return (tax-return)" in sections(kept)["Pending"]
        assert b"y0027nZxxxxx" in (log_dir / ROWS).read_bytes()  # the rows read again


def test_the_rows_are_only_kept_beside_the_homes_own_log(cli, log_dir, tmp_path):
    """A log named by path elsewhere is read whole; nothing is written beside it."""
    from zettelclaw.briefing import rows

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    path = write_log(elsewhere, a_year(days=10))
    found = rows.read(path)
    assert len(found.entries) == len(a_year(days=10))
    assert sorted(os.listdir(elsewhere)) == ["log.jsonl"]
    shutil.rmtree(elsewhere)


@pytest.fixture
def memory(zc_env):
    return zc_env["workspace"] / "MEMORY.md"


@pytest.fixture
def whole_reads(monkeypatch):
    """How often a brief reads every row of the log (the kept rows, or the lines themselves),
    and how many entries it counts one by one."""
    from zettelclaw.briefing import rows, sections

    seen = {"whole": 0, "counted": 0}
    read = rows.read

    def whole(*args, **kwargs):
        seen["whole"] += 1
        return read(*args, **kwargs)

    monkeypatch.setattr(rows, "read", whole)
    for name in ("_add_old", "_add_recent"):  # an entry older than every window, or not
        real = getattr(sections._Tally, name)

        def counted(self, *args, real=real):
            seen["counted"] += 1
            return real(self, *args)

        monkeypatch.setattr(sections._Tally, name, counted)
    return seen


def test_after_a_year_one_new_decision_counts_the_last_weeks_and_the_new_line(
        cli, log_dir, memory, whole_reads):
    year = a_year()
    write_log(log_dir, year)
    brief(cli, "--no-llm", night="2026-02-23T20:00:00Z")  # last night's brief: the digest
    assert whole_reads["whole"] == 1
    whole_reads["counted"] = 0
    write_log(log_dir, [entry("decision", "Move the garden beds to the south fence",
                              "2026-02-23T21:00:00Z", "garden", id="newDecision1")])

    brief(cli, "--no-llm")

    assert "2026-02-23: Move the garden beds to the south fence" in \
        sections(block_of(memory))["Recent Decisions"]
    assert whole_reads["whole"] == 1  # neither the kept rows nor the log read whole again
    # what the windows (14 days and a week's margin) hold, and the new line: not the year
    assert whole_reads["counted"] <= 4 * 21 + 3 + 1 < len(year) // 10
    assert printed(cli, "--no-llm") == without_rows(cli, log_dir, "--no-llm")


def test_a_correction_tonight_of_a_task_from_months_ago_closes_it_as_a_whole_read_does(
        cli, log_dir, whole_reads):
    year = a_year()
    write_log(log_dir, year)
    old_task = next(e for e in year[:400] if e["type"] == "task" and e["status"] == "open")
    wide = ("--no-llm", "--max-lines", "1000", "--quiet-after", "400")
    before = printed(cli, *wide, night="2026-02-23T20:00:00Z")
    assert f"{old_task['content']} ({old_task['subject']})" in sections(before)["Pending"]
    reads_before = whole_reads["whole"]
    write_log(log_dir, [entry("task", "Done, months late", "2026-02-23T22:00:00Z",
                              id="lateClose001", status="done", replaces=old_task["id"])])

    after = printed(cli, *wide)

    assert whole_reads["whole"] == reads_before  # from the digest and the new line
    assert old_task["content"] not in after
    assert after == without_rows(cli, log_dir, *wide)


@pytest.mark.parametrize("change", ["forget", "forget and undo", "purge"])
def test_a_forget_undo_or_purge_after_the_digest_briefs_as_a_whole_read_does(cli, log_dir,
                                                                            change):
    year = a_year(days=120)
    write_log(log_dir, year)
    old_task = next(e for e in year[:100] if e["type"] == "task" and e["status"] == "open")
    wide = ("--no-llm", "--max-lines", "1000", "--quiet-after", "200")
    assert old_task["content"] in printed(cli, *wide, night="2026-02-23T20:00:00Z")
    assert (log_dir / DIGEST).exists()

    if change == "purge":
        result = cli("purge", old_task["id"], "--yes")
        assert not (log_dir / DIGEST).exists()  # dropped with the log's other caches
    else:
        result = cli("forget", old_task["id"], "--yes")
    assert result.exit_code == 0, result.stderr
    if change == "forget and undo":
        printed(cli, *wide)
        result = cli("forget", "--undo", old_task["id"], "--yes")
        assert result.exit_code == 0, result.stderr

    briefed = printed(cli, *wide)

    assert (old_task["content"] in briefed) == (change == "forget and undo")
    assert briefed == without_rows(cli, log_dir, *wide)


def test_the_digest_holds_no_text(cli, log_dir):
    write_log(log_dir, a_year(days=60) + [
        entry("fact", "PIN is kept in the vault [private]", "2026-02-23", "bank",
              id="privFact0001")])
    brief(cli)  # with the contradiction check's facts
    kept = (log_dir / DIGEST).read_text()
    assert "Day 3" not in kept and "about" not in kept and "PIN" not in kept
    assert "privFact0001" in kept and '"garden"' in kept  # ids and subjects are what ranks


def test_each_agents_digest_is_kept_and_used(cli, log_dir, whole_reads):
    write_log(log_dir, a_year(days=60) + [
        entry("task", "Book the team offsite", "2026-02-22", "offsite", id="workTask0001",
              agent="work")])
    for agent in ("main", "work"):
        printed(cli, "--no-llm", "--agent", agent, night="2026-02-23T20:00:00Z")
    write_log(log_dir, [
        entry("task", "Book the bus", "2026-02-23T21:00:00Z", "offsite", agent="work"),
        entry("task", "Water the beds", "2026-02-23T21:00:00Z", "garden")])
    reads_before = whole_reads["whole"]

    work, main = (printed(cli, "--no-llm", "--agent", agent) for agent in ("work", "main"))

    assert whole_reads["whole"] == reads_before
    assert "Book the bus" in work and "Water the beds" not in work
    assert "Water the beds" in main and "Book the" not in main
    assert work == without_rows(cli, log_dir, "--no-llm", "--agent", "work")
    assert main == without_rows(cli, log_dir, "--no-llm", "--agent", "main")


@pytest.mark.parametrize("case", ["a correction of a line of tonight", "a second correction",
                                  "an id written twice", "a correction of a subjectless entry",
                                  "a correction of no known entry", "a line after the night"])
def test_odd_lines_after_the_digest_brief_as_a_whole_read_does(cli, log_dir, case):
    year = a_year(days=60)
    bare = entry("task", "Sharpen the shears", "2026-01-10", id="noSubject001")
    write_log(log_dir, year + [bare])
    wide = ("--no-llm", "--max-lines", "1000", "--quiet-after", "200")
    printed(cli, *wide, night="2026-02-23T20:00:00Z")
    old_task = next(e for e in year if e["type"] == "task" and e["status"] == "open")
    late = "2026-02-23T21:00:00Z"
    lines = {
        "a correction of a line of tonight": [
            entry("task", "Oil the hinges", late, "garden", id="tonight00001"),
            entry("task", "Oil the hinges and the lock", late, id="tonight00002",
                  replaces="tonight00001")],
        "a second correction": [
            entry("task", "First fix", late, id="fix000000001", replaces=old_task["id"]),
            entry("task", "Second fix", late, id="fix000000002", replaces=old_task["id"])],
        "an id written twice": [entry("task", "Same id again", late, "garden",
                                      id=old_task["id"])],
        "a correction of a subjectless entry": [
            entry("task", "Sharpen the shears today", late, id="bareFixed001",
                  replaces="noSubject001")],
        "a correction of no known entry": [entry("task", "Fix of nothing", late, "garden",
                                                 id="nothing00001", replaces="noSuchEntry1")],
        "a line after the night": [entry("task", "Tomorrow's task", "2026-02-25", "garden",
                                         id="tomorrow0001")],
    }[case]
    write_log(log_dir, lines)

    briefed = printed(cli, *wide)

    assert briefed == without_rows(cli, log_dir, *wide)
    assert printed(cli, *wide) == briefed  # and again, from what this brief kept


def test_a_digest_folds_a_weeks_lines_and_briefs_as_before(cli, log_dir, whole_reads):
    """Once enough lines pile up beyond it, the brief digests them too (no whole read): the
    next brief starts from there, and says what a whole read says."""
    write_log(log_dir, a_year(days=90))
    wide = ("--no-llm", "--max-lines", "1000", "--quiet-after", "200")
    printed(cli, *wide, night="2026-02-23T20:00:00Z")
    digested = orjson.loads((log_dir / DIGEST).read_bytes().split(b"\n")[0])["views"]
    (size_before,) = (view["size"] for view in digested.values())
    week = [entry(("task", "fact", "question")[n % 3], f"Late line {n} about the garden beds",
                  f"2026-02-23T21:{n % 60:02d}:00Z", "garden", id=f"late{n:08d}")
            for n in range(150)]
    week[7] = entry("task", "Late line 7, done", "2026-02-23T21:07:00Z", id="late00000007",
                    status="done", replaces=week[0]["id"])
    write_log(log_dir, week)
    reads_before = whole_reads["whole"]

    folded = printed(cli, *wide)

    assert whole_reads["whole"] == reads_before
    digested = orjson.loads((log_dir / DIGEST).read_bytes().split(b"\n")[0])["views"]
    (size_after,) = (view["size"] for view in digested.values())
    assert size_after == (log_dir / "log.jsonl").stat().st_size > size_before + (16 << 10)
    assert folded == without_rows(cli, log_dir, *wide)
    write_log(log_dir, [entry("task", "One more", "2026-02-23T22:30:00Z", "garden")])
    reads_before = whole_reads["whole"]
    again = printed(cli, *wide)
    assert whole_reads["whole"] == reads_before
    assert again == without_rows(cli, log_dir, *wide)


def test_standing_preferences_brief_from_the_digest_as_a_whole_read_does(cli, log_dir,
                                                                        whole_reads):
    """Preferences (no subject) and facts said again stand; a restatement tonight takes its
    old wording's place, and a week later stands itself: from the digest and the lines
    appended since, the same block as a whole read."""
    prefs = [entry("fact", f"Preference {n} of the person", f"2025-12-{10 + n}", id=f"pref{n:08d}",
                   session=f"p{n}") for n in range(4)]
    write_log(log_dir, a_year(days=90) + prefs)
    printed(cli, "--no-llm", night="2026-02-23T20:00:00Z")
    assert (log_dir / DIGEST).exists()
    reads_before = whole_reads["whole"]
    write_log(log_dir, [
        entry("fact", "Preference 1 of the person, said again in more words",
              "2026-02-23T21:00:00Z", id="prefAgain001", session="p9", replaces="pref00000001"),
        entry("fact", "A habit said tonight", "2026-02-23T21:05:00Z", id="habitTonight",
              session="p9")])

    tonight = printed(cli, "--no-llm")
    week_later = printed(cli, "--no-llm", night="2026-03-03T03:00:00Z")

    assert whole_reads["whole"] == reads_before  # both from the digest and the new lines
    standing = sections(tonight)["Standing"]
    assert "Preference 0 of the person" in standing
    assert "Preference 1 of the person" not in standing  # said again tonight: replaced
    assert sections(week_later)["Standing"][0] == \
        "Preference 1 of the person, said again in more words"
    assert "A habit said tonight" in sections(week_later)["Standing"]
    assert tonight == without_rows(cli, log_dir, "--no-llm")
    assert week_later == without_rows(cli, log_dir, "--no-llm", night="2026-03-03T03:00:00Z")

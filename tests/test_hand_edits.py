"""The log is text, edited by hand (the design invites it: "grep-friendly, git-friendly"):
whatever a person does to it with sed, an editor or cp, every command answers from what the
log now says."""

from __future__ import annotations

import subprocess

import pytest

from tests.conftest import write_log
from tests.test_briefing import block_of, sections
from tests.test_briefing_kept import a_year, printed


@pytest.fixture
def memory(zc_env):
    return zc_env["workspace"] / "MEMORY.md"


def search(zc, word: str) -> list[str]:
    """What ``zettelclaw search --json WORD`` finds (the per-turn path, as a person runs it)."""
    import orjson

    result = zc("search", "--json", word)
    assert result.returncode == 0, result.stderr
    return [orjson.loads(line)["content"] for line in result.stdout.splitlines()]


def test_a_task_marked_done_with_sed_and_cp_leaves_pending_and_its_new_word_is_found(
        cli, zc, log_dir, memory):
    """``sed ... > x && cp x log.jsonl`` keeps the log's inode and, here, its size: the
    caches kept beside it describe bytes that changed far from its end."""
    log = write_log(log_dir, a_year())
    assert "Day 345 task 2 about garden (garden)" in sections(printed(cli, "--no-llm"))["Pending"]
    assert search(zc, "turnip") == []  # the counts and the words are kept
    for cache in ("brief-rows.json", "brief-digest.json", "rank-stats.json", "rank-index.bin"):
        assert (log_dir / cache).exists(), cache
    before = log.stat()

    edited = log_dir / "x"
    with open(edited, "wb") as out:
        subprocess.run(["sed", "-e", '/Day 345 task 2/s/"status":"open"/"status":"done"/',
                        "-e", "s/Day 300 task 2 about garden/Day 300 task 2 about turnip/",
                        str(log)], stdout=out, check=True)
    subprocess.run(["cp", str(edited), str(log)], check=True)
    assert (log.stat().st_ino, log.stat().st_size) == (before.st_ino, before.st_size)

    pending = sections(printed(cli, "--no-llm"))["Pending"]
    assert not any(item.startswith("Day 345 task 2") for item in pending)
    assert "Day 300 task 2 about turnip (garden)" in pending
    assert search(zc, "turnip") == ["Day 300 task 2 about turnip"]
    result = cli("brief", "--no-llm", "--no-vault")
    assert result.exit_code == 0, result.stderr
    assert "Day 345 task 2" not in block_of(memory)


def test_a_line_pasted_twice_is_one_entry_in_search_export_the_briefing_and_stats(
        cli, zc, log_dir):
    """A person copies a decision's line (a merge that kept both sides, a paste): the same id
    twice is one decision."""
    import orjson

    from tests.test_briefing import EXAMPLE_LINES, NIGHT

    log = write_log(log_dir, EXAMPLE_LINES)
    decision = next(line for line in log.read_bytes().splitlines()
                    if b"exponential backoff for webhooks" in line)
    with open(log, "ab") as fh:
        fh.write(decision + b"\n")

    assert search(zc, "exponential") == \
        ["Queue-based retries with exponential backoff for webhooks"]
    listed = cli.lines("search", "--json", "--type", "decision")
    assert [e["content"] for e in listed].count(
        "Queue-based retries with exponential backoff for webhooks") == 1
    assert [e["id"] for e in cli.lines("log")].count(decision_id(decision)) == 1
    exported = cli("export")
    assert exported.exit_code == 0, exported.stderr
    assert exported.stdout.count("exponential backoff for webhooks") == 1
    decisions = sections(printed(cli, "--no-llm", night=NIGHT))["Recent Decisions"]
    assert decisions == ["2026-02-20: Queue-based retries with exponential backoff for webhooks",
                         "2026-02-18: Bun over yarn — 3-4x faster, one-way door"]
    stats = orjson.loads(cli("stats", "--json").stdout)
    assert stats["entries"]["total"] == len(EXAMPLE_LINES)
    assert stats["entries"]["byType"]["decision"] == 3


def decision_id(line: bytes) -> str:
    import orjson

    return orjson.loads(line)["id"]


def _doctor_says(cli) -> dict | None:
    import json

    report = json.loads(cli("doctor", "--json").stdout)
    return next((c for c in report["checks"] if c["name"] == "corrections"), None)


def test_doctor_names_a_correction_whose_middle_line_was_deleted(cli, log_dir):
    """A chain booked <- rebooked <- done: deleting the middle line by hand brings the first
    version back as current (the task open again); doctor says which line lost its target."""
    from tests.test_briefing import entry

    write_log(log_dir, [
        entry("task", "Book the flights to Lisbon", "2026-02-10", "trip", id="bookFlights1"),
        entry("task", "Book the flights to Lisbon for the 12th", "2026-02-11", "trip",
              id="bookFlights2", replaces="bookFlights1"),
        entry("task", "Book the flights to Lisbon for the 12th", "2026-02-12", "trip",
              id="bookFlights3", replaces="bookFlights2", status="done"),
    ])
    assert _doctor_says(cli) is None
    subprocess.run(["sed", "-i", "/bookFlights2\",\"timestamp/d", str(log_dir / "log.jsonl")],
                   check=True)
    assert [e["id"] for e in cli.lines("search", "--json", "--status", "open")] == \
        ["bookFlights1"]  # what the edit did: the first booking is open again

    check = _doctor_says(cli)
    assert check["status"] == "warn"
    assert "bookFlights3 (task) replaces bookFlights2, which is not in the log" in check["detail"]
    assert "--replaces" in check["fix"]


def test_doctor_names_a_correction_moved_above_what_it_replaces(cli, log_dir):
    """Lines sorted by hand put a correction before the fact it corrects: it hides nothing,
    the old fact shows again, and doctor says so."""
    from tests.test_briefing import entry

    old = entry("fact", "The VPN listens on port 8443", "2026-02-10", "office-network",
                id="vpnPortOld01")
    new = entry("fact", "The VPN listens on port 443", "2026-02-11", "office-network",
                id="vpnPortNew01", replaces="vpnPortOld01")
    write_log(log_dir, [new, old])

    check = _doctor_says(cli)
    assert "vpnPortNew01 (fact) stands before vpnPortOld01, which it replaces" in check["detail"]
    doctor = cli("doctor", "--text")
    assert "warn  corrections: 1 line of the log hiding nothing since it was edited" in \
        doctor.stdout


CAFE_NFC = "caf\u00e9"  # é as one character
CAFE_NFD = "cafe\u0301"  # e and a combining accent: what some editors and file systems write


def test_one_subject_spelled_two_unicode_ways_is_one_subject(cli, log_dir):
    """Entries filed by hand under "café", typed on two machines: one subject in the
    briefing's Active, in stats, and for ``--subject café`` typed either way."""
    import orjson

    from tests.test_briefing import NIGHT, entry

    write_log(log_dir, [
        entry("fact", "The espresso machine needs descaling monthly", "2026-02-20", CAFE_NFC),
        entry("task", "Order oat milk for the weekend", "2026-02-21", CAFE_NFD),
        entry("decision", "Open at 7 on weekdays", "2026-02-22", CAFE_NFC),
    ])

    active = sections(printed(cli, "--no-llm", night=NIGHT))["Active"]
    assert active == [f"{CAFE_NFC} — Open at 7 on weekdays"]
    for typed in (CAFE_NFC, CAFE_NFD):
        found = cli("search", "--json", "--subject", typed)
        assert found.exit_code == 0, found.stderr
        assert len(found.stdout.splitlines()) == 3
    stats = orjson.loads(cli("stats", "--json").stdout)
    assert stats["entries"]["bySubject"] == {CAFE_NFC: 3}
    assert cli("search", "--subject", "Café").exit_code == 2  # still no capitals in a slug


def test_a_fact_moved_to_another_subject_by_a_correction_leaves_no_empty_active_line(
        cli, log_dir):
    from tests.test_briefing import NIGHT, entry

    write_log(log_dir, [
        entry("fact", "The staging database runs Postgres 15", "2026-02-20", "alpha",
              id="pgFactAlpha1"),
        entry("fact", "The staging database runs Postgres 15", "2026-02-21", "beta",
              id="pgFactBeta01", replaces="pgFactAlpha1"),
        entry("decision", "Ship beta on Friday", "2026-02-22", "beta"),
    ])

    assert sections(printed(cli, "--no-llm", night=NIGHT))["Active"] == \
        ["beta — Ship beta on Friday"]


def test_a_corrected_line_pasted_again_after_its_correction_stays_corrected(cli, zc, log_dir):
    from tests.test_briefing import entry

    old = entry("fact", "The VPN listens on port 8443", "2026-02-10", "office-network",
                id="vpnPortOld02")
    new = entry("fact", "The VPN listens on port 443", "2026-02-11", "office-network",
                id="vpnPortNew02", replaces="vpnPortOld02")
    write_log(log_dir, [old, new, old])

    listed = cli.lines("search", "--json", "--subject", "office-network")
    assert [e["content"] for e in listed] == ["The VPN listens on port 443"]
    assert search(zc, "8443") == []
    assert search(zc, "vpn port") == ["The VPN listens on port 443"]


def test_a_subject_edited_into_a_list_does_not_stop_extraction(cli, home, fake_anthropic,
                                                                log_dir):
    """Someone typed ``"subject": ["atlas", "orion"]``: the next conversation is extracted
    (the entry counts as filed under no subject) and the hand-edited line stays as it was."""
    from datetime import datetime, timezone

    from zettelclaw.entries import make_entry

    task = make_entry("task", "We need to update the login page.", "s0", status="open",
                      timestamp="2026-11-01T10:00:00Z")
    task["subject"] = ["atlas", "orion"]
    fact = make_entry("fact", "The login page holds 3 forms.", "s0",
                      timestamp="2026-11-01T10:00:00Z")
    fact["subject"] = ["atlas"]
    log = write_log(log_dir, [task, fact])
    edited = log.read_text().splitlines()
    sid = "4b1d7c2e-8f3a-4e6b-9d0c-1a2b3c4d5e6f"
    home.jsonl_session("main", sid, [("user", "Updating the login page is done."),
                                     ("assistant", "Noted.")],
                       key="agent:main:main", start=datetime(2026, 11, 20, 9, tzinfo=timezone.utc))
    fake_anthropic.entries({"type": "task", "content": "Updating the login page is done.",
                            "status": "done", "replaces": task["id"]},
                           {"type": "handoff", "content": "login page"})
    result = cli("extract", "--session-id", sid)
    assert result.exit_code == 0, result.stderr
    lines = log.read_text().splitlines()
    assert lines[:2] == edited
    assert '"replaces":"' + task["id"] in lines[2].replace(" ", "")

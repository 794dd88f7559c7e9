"""A clock that ran ahead, then was set right (issue 32, the clock): a sweep's horizon is never
later than now, no conversation is skipped in silence, and the dry run holds what the run
holds, each held conversation named with why."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

from tests.openclaw_home import OpenClawHome
from tests.test_sweep import handoff, iso, read_log
from tests.test_sweep_horizon import conversation, rotate, sid

NOW = datetime(2027, 1, 5, 4, 0, tzinfo=timezone.utc)  # the clock set right
AHEAD = NOW + timedelta(weeks=6)  # what it said the night it ran ahead


def state_of(log_dir) -> dict:
    return json.loads((log_dir / "state.json").read_text())


def checks(cli) -> dict[str, dict]:
    return {c["name"]: c for c in json.loads(cli("doctor", "--json").stdout)["checks"]}


def test_a_sweep_after_the_clock_was_corrected_extracts_today_s_conversation(
        cli, zc_env, log_dir, fake_anthropic, monkeypatch):
    home = OpenClawHome(zc_env["state"])
    monkeypatch.setenv("ZETTELCLAW_NOW", iso(AHEAD))  # one night six weeks ahead
    rotate(conversation(home, sid(1), AHEAD - timedelta(hours=3), "the skewed night"),
           AHEAD - timedelta(hours=1))
    fake_anthropic.when("skewed night", handoff("about the skewed night"))
    assert cli("sweep", "--text").exit_code == 0
    assert state_of(log_dir)["sweptUpTo"]["main"] > iso(NOW)

    monkeypatch.setenv("ZETTELCLAW_NOW", iso(NOW))  # the clock set right; a /new today
    rotate(conversation(home, sid(2), NOW - timedelta(hours=3), "the boiler"),
           NOW - timedelta(hours=1))
    fake_anthropic.when("boiler", handoff("about the boiler"))

    dry = cli("sweep", "--text", "--dry-run")
    assert "Sweep: 1 session would extract" in dry.stdout and sid(2) in dry.stdout
    assert "sweptUpTo (2027-02-16T03:00:00Z) is later than now" in dry.stderr
    stats = json.loads(cli("stats", "--json").stdout)
    assert stats["sweptAhead"] == {"main": "2027-02-16T03:00:00Z"}
    assert checks(cli)["sweep"]["status"] == "warn"

    swept = cli("sweep", "--text")
    assert swept.stdout.startswith("Sweep: 1 session extracted"), swept.stderr
    assert "this sweep sets it back" in swept.stderr
    assert [e["content"] for e in read_log(log_dir)] == ["about the skewed night",
                                                          "about the boiler"]
    assert state_of(log_dir)["sweptUpTo"]["main"] <= iso(NOW)
    assert "sweep" not in checks(cli)
    assert "sweptAhead" not in json.loads(cli("stats", "--json").stdout)
    again = cli("sweep", "--text")
    assert again.stdout.startswith("Sweep: 0 sessions extracted") and not again.stderr
    assert len(fake_anthropic.message_requests) == 2


def test_an_open_conversation_dated_in_the_future_is_extracted_by_the_dry_run_and_the_run(
        cli, zc_env, log_dir, fake_anthropic, monkeypatch):
    """Its messages were dated while the clock ran ahead: nothing said now adds to it. A
    conversation going on now is held by both, and named with why."""
    monkeypatch.setenv("ZETTELCLAW_NOW", iso(NOW))
    home = OpenClawHome(zc_env["state"])
    conversation(home, sid(3), NOW + timedelta(days=2), "the skewed garden",
                 key="agent:main:main")
    conversation(home, sid(4), NOW - timedelta(minutes=5), "the live porch",
                 key="agent:main:telegram:direct:42")
    fake_anthropic.when("skewed garden", handoff("about the skewed garden"))

    dry = cli("sweep", "--text", "--dry-run")
    run = cli("sweep", "--text")

    assert "Sweep: 1 session would extract" in dry.stdout and sid(3) in dry.stdout
    assert run.stdout.startswith("Sweep: 1 session extracted"), run.stderr
    assert [e["content"] for e in read_log(log_dir)] == ["about the skewed garden"]
    for said in (dry.stderr, run.stderr):
        assert f"held: {sid(4)}: an open conversation, its last message at 2027-01-05T03:57:40Z"\
               ", is left to settle until 2027-01-05T04:27:40Z (or its session's end)" in said
        assert sid(3) not in said
    assert "1 open conversation held to settle" in run.stdout
    # found complete once more, it is then left unread: later nights write nothing for it
    monkeypatch.setenv("ZETTELCLAW_NOW", iso(NOW + timedelta(minutes=1)))
    cli("sweep", "--text")
    after = (log_dir / "state.json").read_bytes()
    monkeypatch.setenv("ZETTELCLAW_NOW", iso(NOW + timedelta(minutes=2)))
    assert cli("sweep", "--text").stdout.startswith("Sweep: 0 sessions extracted")
    assert (log_dir / "state.json").read_bytes() == after


# -- entries dated after the moment they were written ------------------------------------------


def entry(kind: str, content: str, when: datetime, session: str, **fields) -> dict:
    from zettelclaw.entries import make_entry

    return make_entry(kind, content, session, timestamp=iso(when), **fields)


def test_a_handoff_written_while_the_clock_ran_ahead_gives_way_to_today_s(
        zc, log_dir, monkeypatch):
    from tests.conftest import write_log

    before = entry("handoff", "Picked the tiles for the kitchen", NOW - timedelta(days=2),
                   "s-before")
    skewed = entry("handoff", "Painted the porch", AHEAD - timedelta(hours=1), "s-skewed")
    write_log(log_dir, [before])
    monkeypatch.setenv("ZETTELCLAW_NOW", iso(AHEAD))  # that night: its handoff is the latest
    write_log(log_dir, [skewed])
    assert b"Painted the porch" in zc("handoff", "--text").stdout

    monkeypatch.setenv("ZETTELCLAW_NOW", iso(NOW))  # the clock set right, nothing said since
    assert b"Painted the porch" in zc("handoff", "--text").stdout  # still the last conversation's
    write_log(log_dir, [entry("handoff", "Booked the plumber for Friday",
                              NOW - timedelta(hours=1), "s-today")])
    for _ in range(2):  # (the second run reads the pointer the first one stored)
        said = zc("handoff", "--text").stdout
        assert b"Booked the plumber for Friday" in said and b"Painted the porch" not in said


def test_a_task_written_while_the_clock_ran_ahead_is_shown_to_a_later_conversation_to_close(
        cli, home, fake_anthropic, log_dir, monkeypatch):
    from tests.conftest import write_log
    from tests.test_extract_context import SID, _conversation, _shown

    monkeypatch.setenv("ZETTELCLAW_NOW", iso(NOW))
    task = entry("task", "Renew the TLS certificate of the home server", AHEAD, "s-skewed",
                 subject="home-server", status="open")
    write_log(log_dir, [task])
    _conversation(home, SID, "I renewed the TLS certificate of the home server today.",
                  when=NOW - timedelta(hours=2))
    fake_anthropic.entries(
        {"type": "task", "content": "Renew the TLS certificate of the home server",
         "status": "done", "replaces": "{{id-of:TLS certificate}}"},
        {"type": "handoff", "content": "Certificate renewed"})

    result = cli("extract", "--session-id", SID)

    assert result.exit_code == 0, result.stderr
    assert task["id"] in {e["id"] for e in _shown(fake_anthropic.message_requests[0])}
    assert cli.lines("search", "--type", "task", "--status", "open", "--json") == []


def test_a_decision_written_while_the_clock_ran_ahead_is_not_recent_for_six_weeks(
        cli, zc_env, log_dir, monkeypatch):
    from tests.conftest import write_log
    from tests.test_briefing import BEGIN, END, block_of, sections

    memory = zc_env["workspace"] / "MEMORY.md"
    memory.write_text(f"{BEGIN}\n{END}\n")
    write_log(log_dir, [
        entry("fact", "The boiler is serviced every autumn", NOW - timedelta(days=20), "s1",
              subject="boiler"),
        entry("decision", "Switch the boiler to the night tariff", AHEAD, "s-skewed",
              subject="boiler")])
    monkeypatch.setenv("ZETTELCLAW_NOW", iso(NOW + timedelta(days=10)))
    assert cli("brief", "--no-llm").exit_code == 0
    shown = sections(block_of(memory))
    assert not any("night tariff" in line for line in shown.get("Recent Decisions", []))


def test_review_sees_a_task_written_while_the_clock_ran_ahead_as_quiet_and_can_close_it(
        cli, log_dir, monkeypatch):
    from tests.conftest import write_log

    task = entry("task", "Renew the TLS certificate", AHEAD, "s-skewed", subject="server",
                 status="open")
    write_log(log_dir, [entry("fact", "The server runs Debian", NOW - timedelta(days=50),
                              "s1", subject="server"), task])
    monkeypatch.setenv("ZETTELCLAW_NOW", iso(NOW + timedelta(days=5)))
    (row,) = cli.lines("review", "--quiet", "--json")
    assert row["id"] == task["id"]
    closed = cli("review", "close", task["id"], "--yes")
    assert closed.exit_code == 0, closed.stderr
    assert cli.lines("review", "--json") == []

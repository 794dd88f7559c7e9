"""One clock: ``ZETTELCLAW_NOW`` sets "now" for every command (the year benchmark's seam).

A simulated night must see what a real night would: a conversation settles 30 minutes after
its last message by the simulated clock, the run's bookkeeping is dated by it, and ``--since
7d`` counts back from it.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest

from tests.conftest import write_log

START = datetime(2026, 3, 10, 10, 0, tzinfo=timezone.utc)
SESSION = "44444444-dddd-4ddd-8ddd-000000000001"


def test_a_conversation_settles_thirty_minutes_after_it_ends_on_the_simulated_clock(
        cli, home, fake_anthropic, log_dir, monkeypatch):
    home.jsonl_session("main", SESSION, [("user", "Book the dentist for Friday."),
                                         ("assistant", "Booked.")],
                       key="agent:main:main", start=START, step=timedelta(seconds=10))
    fake_anthropic.default.text = '{"type":"handoff","content":"Dentist booked."}'

    monkeypatch.setenv("ZETTELCLAW_NOW", "2026-03-10T10:10:00Z")
    assert cli("sweep", "--text").stdout.startswith("Sweep: 0 sessions extracted, 1 skipped")
    assert fake_anthropic.message_requests == []

    monkeypatch.setenv("ZETTELCLAW_NOW", "2026-03-10T23:30:00Z")
    assert cli("sweep", "--text").stdout.startswith("Sweep: 1 session extracted")
    record = json.loads((log_dir / "state.json").read_text())["extractedSessions"][SESSION]
    assert record["at"] == "2026-03-10T23:30:00Z"


def test_since_counts_back_from_the_simulated_now(cli, log_dir, monkeypatch):
    write_log(log_dir, [
        {"id": "OldFact00001", "timestamp": "2026-02-01T09:00:00Z", "type": "fact",
         "content": "The boiler was serviced", "session": "s1"},
        {"id": "NewFact00001", "timestamp": "2026-03-08T09:00:00Z", "type": "fact",
         "content": "The boiler pressure is fine", "session": "s2"},
    ])
    monkeypatch.setenv("ZETTELCLAW_NOW", "2026-03-10T12:00:00Z")
    assert [e["id"] for e in cli.lines("search", "--since", "7d", "--json")] == ["NewFact00001"]
    monkeypatch.setenv("ZETTELCLAW_NOW", "2026-04-01T12:00:00Z")
    assert cli.lines("search", "--since", "7d", "--json") == []


@pytest.mark.parametrize("value", ["tomorrow", "2026-13-01"])
def test_a_now_that_is_not_a_time_is_an_error_not_the_wall_clock(cli, log_dir, monkeypatch,
                                                                  value):
    write_log(log_dir, [{"id": "OldFact00001", "timestamp": "2026-02-01T09:00:00Z",
                         "type": "fact", "content": "The boiler was serviced", "session": "s1"}])
    monkeypatch.setenv("ZETTELCLAW_NOW", value)
    result = cli("search", "--since", "7d")
    assert result.exit_code == 2
    assert result.stderr.startswith("Error: ZETTELCLAW_NOW=")

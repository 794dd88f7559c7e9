"""History (issue 12 §1): conversations that ended before the install wait for
`zettelclaw import`; the automatic runs take only later ones."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import orjson
import pytest

from tests.fake_anthropic import Reply
from tests.test_init import openclaw, shipped  # noqa: F401  (fixtures: a stand-in openclaw)

NOW = datetime.now(timezone.utc).replace(microsecond=0)
INSTALLED = NOW - timedelta(days=1)
OLD_START = NOW - timedelta(days=40)
NEW_START = NOW - timedelta(hours=2)
ROTATED = "11111111-aaaa-4aaa-8aaa-000000000001"  # 2026.2: a past conversation (/new)
CURRENT = "11111111-aaaa-4aaa-8aaa-000000000002"  # 2026.2: one after the install
MAIN9 = "22222222-bbbb-4bbb-8bbb-000000000001"  # 2026.9: three old conversations, one new


def read_log(log_dir) -> list[dict]:
    path = log_dir / "log.jsonl"
    return [orjson.loads(x) for x in path.read_bytes().splitlines()] if path.exists() else []


def handoff(text: str) -> str:
    return json.dumps({"type": "handoff", "content": text})


def installed(log_dir, moment: datetime = INSTALLED, **extra) -> None:
    log_dir.mkdir(parents=True, exist_ok=True)
    (log_dir / "state.json").write_text(json.dumps(
        {"version": 1, "installedAt": moment.strftime("%Y-%m-%dT%H:%M:%SZ"), **extra}))


def state(log_dir) -> dict:
    return json.loads((log_dir / "state.json").read_text())


def old_conversations(n: int = 3) -> list:
    return [[("user", f"Old talk {i}: topic-{i}."), ("assistant", f"Noted {i}.")]
            for i in range(1, n + 1)]


@pytest.fixture
def sessions(home, fake_anthropic):
    home.jsonl_session("main", ROTATED, [("user", "Old chat about the gym schedule."),
                                         ("assistant", "Gym on Tuesdays.")],
                       start=OLD_START, rotated=True)
    home.jsonl_session("main", CURRENT, [("user", "New chat about the auth migration."),
                                         ("assistant", "Noted.")],
                       key="agent:main:main", start=NEW_START)
    # one 2026.9 sessionId across /new: three conversations before the install, one after
    home.db_session("work", MAIN9, old_conversations(), key="agent:work:main",
                    start=OLD_START + timedelta(days=1), step=timedelta(hours=1))
    home.db_session("work", MAIN9, [[("user", "Fresh talk: pick Postgres."),
                                     ("assistant", "Ok.")]],
                    key="agent:work:main", start=NEW_START, current=False)
    for phrase in ("gym", "auth migration", "topic-1", "topic-2", "topic-3", "Postgres"):
        fake_anthropic.when(phrase, handoff(f"about {phrase}"))
    return home


def contents(log_dir) -> list[str]:
    return sorted(e["content"] for e in read_log(log_dir))


def test_the_sweep_takes_only_conversations_after_the_install(cli, sessions, fake_anthropic,
                                                             log_dir):
    installed(log_dir)
    result = cli("sweep", "--text", "--gateway-start", NOW.isoformat())
    assert result.exit_code == 0, result.stderr
    assert contents(log_dir) == ["about Postgres", "about auth migration"]
    assert len(fake_anthropic.message_requests) == 2
    assert "1 session also holds conversations from before the install" in result.stdout
    assert state(log_dir)["failedSessions"] == {}
    # nothing left to do for the automatic runs: history is not "to do"
    again = cli("sweep", "--text", "--dry-run")
    assert again.stdout.startswith("Sweep: 0 sessions would extract"), again.stdout
    assert "would" in again.stdout and "conversation" not in again.stderr


def test_a_hook_extract_leaves_history_alone(cli, sessions, fake_anthropic, log_dir):
    installed(log_dir)
    result = cli("extract", "--session-id", ROTATED, "--reason", "session_end")
    assert result.exit_code == 0, result.stderr
    assert read_log(log_dir) == [] and fake_anthropic.message_requests == []
    assert f"zettelclaw import --session {ROTATED}" in result.stderr
    assert ROTATED not in state(log_dir)["failedSessions"]


def test_without_an_install_moment_every_conversation_is_taken(cli, sessions, log_dir):
    result = cli("sweep", "--text")  # a log used before init recorded the moment: today's behaviour
    assert result.exit_code == 0, result.stderr
    assert len(contents(log_dir)) == 6
    assert "history" not in result.stdout


def test_import_takes_exactly_the_history_each_once(cli, sessions, fake_anthropic, log_dir):
    installed(log_dir)
    assert cli("sweep", "--text").exit_code == 0  # the new conversations first: the cursor moves on
    fake_anthropic.requests.clear()
    lines = cli.lines("import", "--dry-run", "--json")
    by_session = {line.get("session"): line for line in lines}
    assert set(by_session) == {ROTATED, MAIN9, None}
    work = by_session[MAIN9]
    assert (work["agent"], work["conversations"], work["messages"]) == ("work", 3, 6)
    assert work["first"] < work["last"] < INSTALLED.strftime("%Y-%m-%dT%H:%M:%SZ")
    assert work["estimatedInputTokens"] > 0
    totals = lines[-1]
    assert totals["total"] and totals["conversations"] == 4 and totals["messages"] == 8
    assert totals["estimatedInputTokens"] == sum(x["estimatedInputTokens"] for x in lines[:-1])
    assert fake_anthropic.message_requests == []  # a dry run calls no model

    result = cli("import", "--text", "--yes")
    assert result.exit_code == 0, result.stderr
    assert "Import: 4 conversations from 2 sessions, 0 failed" in result.stdout
    assert "importing" not in result.stderr  # no progress bar when not on a terminal
    assert len(fake_anthropic.message_requests) == 4
    assert contents(log_dir) == ["about Postgres", "about auth migration", "about gym",
                                 "about topic-1", "about topic-2", "about topic-3"]
    # each entry carries its own conversation's time, not the import's
    stamps = {e["content"]: e["timestamp"] for e in read_log(log_dir)}
    def at(stamp: str) -> datetime:
        return datetime.fromisoformat(stamp.replace("Z", "+00:00"))

    first = OLD_START + timedelta(days=1)  # the 2026.9 session's first event, an hour a step
    topics = [at(stamps[f"about topic-{i}"]) for i in (1, 2, 3)]
    assert first < topics[0] < topics[1] < topics[2] < first + timedelta(hours=20)
    assert OLD_START < at(stamps["about gym"]) < OLD_START + timedelta(minutes=10)
    assert stamps["about topic-3"] == work["last"]  # its last message's time

    fake_anthropic.requests.clear()
    again = cli("import", "--text", "--yes")
    assert again.exit_code == 0 and "No history to import." in again.stderr
    assert cli("sweep", "--text").exit_code == 0
    assert fake_anthropic.message_requests == []
    assert len(read_log(log_dir)) == 6


def test_import_before_the_new_conversation_is_swept(cli, sessions, fake_anthropic, log_dir):
    """The other order: history imported first, the later conversation still goes to the
    automatic run, once."""
    installed(log_dir)
    assert cli("import", "--text", "--yes", "--session", MAIN9).exit_code == 0
    assert contents(log_dir) == ["about topic-1", "about topic-2", "about topic-3"]
    assert cli("sweep", "--text").exit_code == 0
    assert cli("sweep", "--text").exit_code == 0
    assert contents(log_dir) == ["about Postgres", "about auth migration", "about topic-1",
                                 "about topic-2", "about topic-3"]
    assert cli("import", "--dry-run", "--json").stdout.count('"session"') == 1  # the gym


def test_import_since_and_agent(cli, sessions, fake_anthropic, log_dir):
    installed(log_dir)
    lines = cli.lines("import", "--dry-run", "--json", "--agent", "work")
    assert [x.get("session") for x in lines] == [MAIN9, None]
    since = (OLD_START + timedelta(days=1, hours=6)).isoformat()
    lines = cli.lines("import", "--dry-run", "--json", "--agent", "work", "--since", since)
    assert lines[0]["conversations"] == 2  # topic-1 ended before it


def test_a_large_import_asks_first(cli, sessions, fake_anthropic, log_dir, monkeypatch):
    import zettelclaw.commands.history as command
    import zettelclaw.history as history

    installed(log_dir)
    monkeypatch.setattr(history, "LARGE_CONVERSATIONS", 2)
    refused = cli("import", "--text")  # not a terminal, no --yes: refused, nothing spent
    assert refused.exit_code == 2
    assert "--yes" in refused.stderr and refused.stderr.startswith("Error: a large import")
    assert fake_anthropic.message_requests == [] and read_log(log_dir) == []

    monkeypatch.setattr(command, "_on_terminal", lambda: True)
    declined = cli("import", "--text", input="n\n")
    assert declined.exit_code == 1 and "Import 2 sessions, 4 conversations" in \
        declined.stderr
    assert fake_anthropic.message_requests == []
    accepted = cli("import", "--text", input="y\n")
    assert accepted.exit_code == 0, accepted.stderr
    assert len(fake_anthropic.message_requests) == 4


def test_a_small_import_does_not_ask(cli, sessions, fake_anthropic, log_dir):
    installed(log_dir)
    result = cli("import", "--text", "--session", ROTATED)
    assert result.exit_code == 0, result.stderr
    assert contents(log_dir) == ["about gym"]


def test_a_failed_import_waits_for_the_import_not_the_sweep(cli, sessions, fake_anthropic,
                                                           log_dir):
    installed(log_dir)
    fake_anthropic.matchers.insert(0, ("gym", Reply(error=400, message="bad request")))
    result = cli("import", "--text", "--session", ROTATED)
    assert result.exit_code == 1 and "zettelclaw import` tries again" in result.stderr
    fake_anthropic.requests.clear()
    assert cli("sweep", "--text").exit_code == 0
    assert not any("gym" in r.user_text for r in fake_anthropic.message_requests)
    fake_anthropic.matchers.pop(0)
    assert cli("import", "--text", "--session", ROTATED).exit_code == 0
    assert "about gym" in contents(log_dir)
    assert state(log_dir)["failedSessions"] == {}


def test_a_killed_import_goes_on_without_duplicates(home, fake_anthropic, log_dir, zc):
    installed(log_dir)
    talks = [[("user", f"Talk number-{i}."), ("assistant", "Ok.")] for i in range(1, 7)]
    home.db_session("main", MAIN9, talks, key="agent:main:main", start=OLD_START,
                    current=False)
    for i in range(1, 7):
        fake_anthropic.when(f"number-{i}", Reply(text=handoff(f"about {i}"), latency=0.4))
    exe = Path(sys.executable).parent / "zettelclaw"
    proc = subprocess.Popen([str(exe), "import", "--yes"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env=dict(os.environ))
    try:
        deadline = time.monotonic() + 60
        while len(read_log(log_dir)) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait()
    assert proc.returncode == -signal.SIGKILL
    done = len(read_log(log_dir))
    assert 2 <= done < 6  # killed part-way
    rerun = zc("import", "--text", "--yes")
    assert rerun.returncode == 0, rerun.stderr
    assert sorted(e["content"] for e in read_log(log_dir)) == [f"about {i}"
                                                               for i in range(1, 7)]
    assert b"No history to import." in zc("import", "--text", "--yes").stderr


def test_init_records_the_install_once_and_reports_history(cli, openclaw, sessions,  # noqa: F811
                                                          log_dir):
    dry = cli("init", "--dry-run")
    assert dry.exit_code == 0, dry.stderr
    assert "History: 3 sessions, 6 conversations, 12 messages" in dry.stdout
    assert "`zettelclaw import`" in dry.stdout
    assert not (log_dir / "state.json").exists()  # a dry run records nothing

    first = cli("init")
    assert first.exit_code == 0, first.stderr
    assert "History: 3 sessions, 6 conversations" in first.stdout
    moment = state(log_dir)["installedAt"]
    assert oct((log_dir / "state.json").stat().st_mode & 0o777) == "0o600"
    time.sleep(1.1)
    assert cli("init").exit_code == 0
    assert state(log_dir)["installedAt"] == moment  # a second init does not move it


def test_init_on_a_log_in_use_keeps_taking_everything(cli, openclaw, log_dir):  # noqa: F811
    log_dir.mkdir(parents=True)
    (log_dir / "state.json").write_text(json.dumps(
        {"version": 1, "extractedSessions": {"x": {"at": NOW.isoformat()}}}))
    result = cli("init")
    assert result.exit_code == 0, result.stderr
    assert "installedAt" not in state(log_dir) and "History" not in result.stdout


def test_stats_and_doctor_mention_history_as_information(cli, openclaw, sessions,  # noqa: F811
                                                         log_dir):
    installed(log_dir)
    assert cli("sweep", "--text").exit_code == 0
    stats = cli("stats", "--json")
    assert orjson.loads(stats.stdout)["history"]["installedAt"] is not None
    doctor = orjson.loads(cli("doctor", "--json").stdout)
    history = [c for c in doctor["checks"] if c["name"] == "history"]
    assert history and history[0]["status"] == "ok"
    assert history[0]["detail"].startswith("2 sessions, 4 conversations")
    assert cli("import", "--text", "--yes").exit_code == 0
    doctor = orjson.loads(cli("doctor", "--json").stdout)
    assert not [c for c in doctor["checks"] if c["name"] == "history"]

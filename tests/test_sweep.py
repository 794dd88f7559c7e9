"""Sweep: every main session of every agent, both OpenClaw layouts, extracted once."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import orjson
import pytest

from tests.fake_anthropic import Reply
from tests.openclaw_home import OpenClawHome

START = datetime(2026, 11, 1, 9, 0, tzinfo=timezone.utc)
OLD = "11111111-aaaa-4aaa-8aaa-000000000001"  # 2026.2, rotated by /new
CURRENT = "11111111-aaaa-4aaa-8aaa-000000000002"  # 2026.2, the key's current session
CRON = "11111111-aaaa-4aaa-8aaa-000000000003"
DB = "22222222-bbbb-4bbb-8bbb-000000000001"  # 2026.9, two conversations
SUB = "22222222-bbbb-4bbb-8bbb-000000000002"


def read_log(log_dir) -> list[dict]:
    path = log_dir / "log.jsonl"
    return [orjson.loads(x) for x in path.read_bytes().splitlines()] if path.exists() else []


def handoff(text: str) -> str:
    return json.dumps({"type": "handoff", "content": text})


@pytest.fixture
def openclaw(zc_env, fake_anthropic) -> OpenClawHome:
    home = OpenClawHome(zc_env["state"])
    home.jsonl_session("main", OLD, [("user", "Old chat about the gym schedule."),
                                     ("assistant", "Gym on Tuesdays.")],
                       start=START, rotated=True)
    home.jsonl_session("main", CURRENT, [("user", "Current chat about the auth migration."),
                                         ("assistant", "Noted.")],
                       key="agent:main:main", start=START + timedelta(days=1))
    home.jsonl_session("main", CRON, [("user", "[cron:report] nightly report")],
                       key="cron:report", start=START)
    home.db_session("work", DB, [[("user", "First: pick Postgres."), ("assistant", "Ok.")],
                                 [("user", "Second: Max joins Monday."), ("assistant", "Ok.")]],
                    key="agent:work:main", start=START + timedelta(days=2), current=False)
    home.db_session("work", SUB, [[("user", "subagent task"), ("assistant", "done")]],
                    key="agent:work:subagent:1234", start=START, current=False)
    for phrase in ("gym", "auth migration", "Postgres", "Max joins"):
        fake_anthropic.when(phrase, handoff(f"about {phrase}"))
    return home


def test_sweep_extracts_every_main_session_in_both_layouts(cli, openclaw, fake_anthropic,
                                                           log_dir):
    result = cli("sweep", "--concurrency", "3")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines() == [
        "Sweep: 3 sessions extracted, 2 skipped, 0 failed; 4 entries; tokens: "
        + result.stdout.split("tokens: ")[1].strip()]
    handoffs = sorted(e["content"] for e in read_log(log_dir))
    assert handoffs == ["about Max joins", "about Postgres", "about auth migration", "about gym"]
    sessions = {e["session"] for e in read_log(log_dir)}
    assert sessions == {OLD, CURRENT, DB}
    sent = "\n".join(r.user_text for r in fake_anthropic.message_requests)
    assert "nightly report" not in sent and "subagent task" not in sent


def test_an_unreadable_agent_database_fails_the_sweep_and_the_others_are_extracted(
        cli, openclaw, log_dir, zc_env):
    broken = zc_env["state"] / "agents" / "ops" / "agent" / "openclaw-agent.sqlite"
    broken.parent.mkdir(parents=True)
    broken.write_bytes(b"not a database " * 1000)
    result = cli("sweep")
    assert result.exit_code == 1
    assert "failed: agent ops skipped: cannot" in result.stderr
    assert "3 sessions extracted, 2 skipped, 1 failed" in result.stdout
    assert {e["session"] for e in read_log(log_dir)} == {OLD, CURRENT, DB}


def test_a_second_sweep_finds_nothing(cli, openclaw, fake_anthropic, log_dir):
    cli("sweep")
    calls = len(fake_anthropic.message_requests)
    before = (log_dir / "log.jsonl").read_bytes()
    again = cli("sweep")
    assert again.stdout.startswith("Sweep: 0 sessions extracted, 5 skipped, 0 failed; "
                                   "0 entries")
    assert len(fake_anthropic.message_requests) == calls
    assert (log_dir / "log.jsonl").read_bytes() == before


def test_dry_run_lists_and_writes_nothing(cli, openclaw, fake_anthropic, log_dir):
    result = cli("sweep", "--dry-run")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert any(DB in line and "2 conversations" in line for line in lines)
    assert lines[-1].startswith("Sweep: 3 sessions would extract, 2 skipped")
    assert fake_anthropic.message_requests == []
    assert not (log_dir / "log.jsonl").exists()


def test_since_limits_the_sessions(cli, openclaw, fake_anthropic, log_dir):
    result = cli("sweep", "--since", (START + timedelta(days=2)).strftime("%Y-%m-%d"))
    assert result.stdout.startswith("Sweep: 1 session extracted")
    assert {e["session"] for e in read_log(log_dir)} == {DB}


def test_agent_option(cli, openclaw, fake_anthropic, log_dir):
    cli("sweep", "--agent", "main")
    assert {e["session"] for e in read_log(log_dir)} == {OLD, CURRENT}


def test_sessions_are_extracted_concurrently(cli, openclaw, fake_anthropic):
    fake_anthropic.latency = 0.5
    cli("sweep", "--concurrency", "3")
    assert fake_anthropic.max_in_flight > 1


def test_failed_sessions_retry_once_then_wait_for_retry_failed(cli, openclaw, fake_anthropic,
                                                               log_dir, monkeypatch):
    monkeypatch.setenv("ZETTELCLAW_MODEL_RETRIES", "0")
    others = [m for m in fake_anthropic.matchers if m[0] != "gym"]
    fake_anthropic.matchers = [("gym", Reply(error=529))] + others  # the gym chat: overloaded
    first = cli("sweep")
    assert first.exit_code == 1
    assert "1 failed" in first.stdout and f"failed: {OLD}" in first.stderr
    second = cli("sweep")  # the one retry
    assert "1 failed" in second.stdout
    state = json.loads((log_dir / "state.json").read_text())
    assert state["failedSessions"][OLD]["permanent"] is True
    third = cli("sweep")
    assert third.exit_code == 0 and "0 failed" in third.stdout
    gym_calls = sum("gym" in r.user_text for r in fake_anthropic.message_requests)
    assert gym_calls == 2
    fake_anthropic.matchers[0] = ("gym", Reply(text=handoff("gym at last")))
    fourth = cli("sweep", "--retry-failed")
    assert fourth.stdout.startswith("Sweep: 1 session extracted")
    assert "gym at last" in [e["content"] for e in read_log(log_dir)]


def test_an_active_conversation_waits_for_its_session_end(cli, zc_env, fake_anthropic, log_dir):
    live = "33333333-cccc-4ccc-8ccc-000000000001"
    home = OpenClawHome(zc_env["state"])
    recent = datetime.now(timezone.utc) - timedelta(minutes=5)
    home.db_session("main", live, [[("user", "still talking"), ("assistant", "yes")]],
                    key="agent:main:main", start=recent, step=timedelta(seconds=1))
    result = cli("sweep")
    assert result.stdout.startswith("Sweep: 0 sessions extracted, 1 skipped")
    assert fake_anthropic.message_requests == []
    # the hook saying the session ended does extract it
    assert cli("extract", "--session-id", live).exit_code == 0
    assert len(fake_anthropic.message_requests) == 1


def test_a_pruned_record_does_not_bring_a_session_back(cli, openclaw, fake_anthropic,
                                                        log_dir):
    cli("sweep")
    calls = len(fake_anthropic.message_requests)
    state = json.loads((log_dir / "state.json").read_text())
    state["extractedSessions"] = {}  # as if pruned after 30 days
    (log_dir / "state.json").write_text(json.dumps(state))
    again = cli("sweep")
    assert again.stdout.startswith("Sweep: 0 sessions extracted")
    assert len(fake_anthropic.message_requests) == calls


def test_json_summary(cli, openclaw, fake_anthropic):
    summary = cli.lines("sweep", "--json")[-1]
    assert summary["extracted"] == 3 and summary["entries"] == 4
    assert summary["tokens"]["input"] > 0

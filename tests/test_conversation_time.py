"""Issue 10 §1 (write side): an entry is dated when its conversation happened, not when it was
extracted. Both OpenClaw layouts, inline before_reset messages, the real 2026.9.6 database."""

from __future__ import annotations

import json
import shutil
from datetime import datetime, timedelta, timezone
from pathlib import Path

import orjson
import pytest

from tests.conftest import write_log
from zettelclaw.clock import format_ts, parse_ts
from zettelclaw.entries import make_entry

JAN = datetime(2026, 1, 14, 16, 0, tzinfo=timezone.utc)
FEB = datetime(2026, 2, 3, 10, 0, tzinfo=timezone.utc)
OLD_2 = "aaaaaaaa-0000-4000-8000-000000000001"  # 2026.2, rotated by /new in January
DB_9 = "bbbbbbbb-0000-4000-8000-000000000002"  # 2026.9, two conversations (Jan, Feb)
REAL = Path(__file__).resolve().parent / "data" / "openclaw-2026.9.6"  # carried by the project
REAL_SID = "39d9e876-85dd-4354-a168-3af12d57edde"


def read_log(log_dir: Path) -> list[dict]:
    path = log_dir / "log.jsonl"
    return [orjson.loads(x) for x in path.read_bytes().splitlines()] if path.exists() else []


def entries(*contents: str, handoff: str) -> str:
    lines = [{"type": "fact", "content": c} for c in contents]
    lines.append({"type": "handoff", "content": handoff})
    return "\n".join(json.dumps(e) for e in lines)


def last_message_time(events: list[dict]) -> str:
    """What the entries of a conversation must carry: its last message's time, in the log's
    format."""
    times = [e["timestamp"] for e in events if e.get("type") == "message"
             and e["message"]["role"] in ("user", "assistant")]
    return format_ts(parse_ts(times[-1]))


def jsonl_events(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture
def january_and_february(home, fake_anthropic):
    """Sessions from January and February, never extracted (the gateway was down)."""
    path = home.jsonl_session("main", OLD_2, [("user", "The gym is on Tuesdays now."),
                                              ("assistant", "Tuesdays, noted.")],
                              start=JAN, rotated=True)
    first = home.db_session("work", DB_9, [[("user", "We pick Postgres for auth."),
                                            ("assistant", "Postgres it is.")]],
                            key="agent:work:main", start=JAN + timedelta(days=1))
    second = home.db_session("work", DB_9, [[("user", "Max joins the team on Monday."),
                                             ("assistant", "I'll remember Max.")]],
                             key="agent:work:main", start=FEB, current=False)
    fake_anthropic.when("gym is on", entries("Gym on Tuesdays", handoff="gym settled"))
    fake_anthropic.when("We pick Postgres", entries("Auth uses Postgres", handoff="auth db chosen"))
    fake_anthropic.when("Max joins", entries("Max joins Monday", handoff="team grows"))
    return {"gym": last_message_time(jsonl_events(path)),
            "postgres": last_message_time(first),
            "max": last_message_time(second)}


def test_a_session_swept_months_later_keeps_its_january_dates(cli, january_and_february,
                                                              log_dir):
    result = cli("sweep", "--text")
    assert result.exit_code == 0, result.stderr
    dated = {e["content"]: e["timestamp"] for e in read_log(log_dir)}
    times = january_and_february
    assert dated == {"Gym on Tuesdays": times["gym"], "gym settled": times["gym"],
                     "Auth uses Postgres": times["postgres"], "auth db chosen": times["postgres"],
                     "Max joins Monday": times["max"], "team grows": times["max"]}
    assert times["gym"].startswith("2026-01-14") and times["max"].startswith("2026-02-03")
    # when it was extracted is state.json's business
    state = json.loads((log_dir / "state.json").read_text())
    extracted_at = parse_ts(state["extractedSessions"][DB_9]["at"])
    assert datetime.now(timezone.utc) - extracted_at < timedelta(hours=1)


def test_search_since_7d_after_a_late_sweep_of_old_sessions_returns_nothing(
        cli, january_and_february, log_dir):
    assert cli("sweep", "--text").exit_code == 0
    assert len(read_log(log_dir)) == 6
    # (the sessions are agent main's and agent work's: all of them, as a person would ask)
    assert cli.lines("search", "--since", "7d", "--json", "--agent", "all") == []
    january = cli.lines("search", "--since", "2026-01-01", "--until", "2026-01-31", "--json",
                        "--agent", "all")
    assert sorted(e["content"] for e in january) == [
        "Auth uses Postgres", "Gym on Tuesdays", "auth db chosen", "gym settled"]


def test_inline_before_reset_messages_are_dated_by_their_own_times(cli, fake_anthropic,
                                                                   log_dir):
    last = datetime(2026, 3, 9, 18, 45, 12, 345000, tzinfo=timezone.utc)
    messages = [
        {"role": "user", "content": "Book the dentist for April.",
         "timestamp": int((last - timedelta(minutes=3)).timestamp() * 1000)},
        {"role": "assistant", "content": [{"type": "text", "text": "Booked for April."}],
         "timestamp": int(last.timestamp() * 1000)},
    ]
    fake_anthropic.reply(entries("Dentist in April", handoff="dentist booked"))
    result = cli("extract", "--session-id", "inline-1", "--session-key", "agent:main:main",
                 "--messages", "-", "--reason", "before_reset", input=json.dumps(messages))
    assert result.exit_code == 0, result.stderr
    assert {e["timestamp"] for e in read_log(log_dir)} == {"2026-03-09T18:45:12Z"}


def test_inline_messages_without_times_are_dated_now(cli, fake_anthropic, log_dir):
    before = datetime.now(timezone.utc).replace(microsecond=0)
    fake_anthropic.reply(entries("Dentist in April", handoff="dentist booked"))
    cli("extract", "--session-id", "inline-2", "--session-key", "agent:main:main",
        "--messages", "-", input='[{"role":"user","content":"Book the dentist."}]')
    stamps = {parse_ts(e["timestamp"]) for e in read_log(log_dir)}
    assert len(stamps) == 1 and before <= stamps.pop() <= datetime.now(timezone.utc)


def test_a_transcript_without_times_falls_back_to_the_session_update(cli, home, fake_anthropic,
                                                                     log_dir):
    path = home.jsonl_session("main", OLD_2, [("user", "The gym is on Tuesdays now."),
                                              ("assistant", "Tuesdays, noted.")],
                              key="agent:main:main", start=JAN)
    stripped = []
    for event in jsonl_events(path):
        event.pop("timestamp", None)
        if isinstance(event.get("message"), dict):
            event["message"].pop("timestamp", None)
        stripped.append(json.dumps(event))
    path.write_text("\n".join(stripped) + "\n")
    updated = json.loads((path.parent / "sessions.json").read_text())["agent:main:main"][
        "updatedAt"]
    fake_anthropic.reply(entries("Gym on Tuesdays", handoff="gym settled"))
    assert cli("extract", "--session-id", OLD_2).exit_code == 0
    expected = format_ts(datetime.fromtimestamp(updated / 1000, timezone.utc))
    assert expected.startswith("2026-01-14")
    assert {e["timestamp"] for e in read_log(log_dir)} == {expected}


def test_a_late_conversation_is_shown_the_log_as_it_stood_then(cli, january_and_february,
                                                               fake_anthropic, log_dir):
    # December's decision replaced in March: a February conversation swept today must see
    # December's (current in February) and not March's, so it cannot overrule March
    # (agent work's memory, like the session)
    december = make_entry("decision", "Deploys happen on Fridays", "s-dec",
                          timestamp="2025-12-01T09:00:00Z", agent="work")
    march = make_entry("decision", "Deploys happen on Mondays", "s-mar",
                       timestamp="2026-03-01T09:00:00Z", replaces=december["id"], agent="work")
    write_log(log_dir, [december, march])
    assert cli("extract", "--session-id", DB_9).exit_code == 0
    (january, february) = fake_anthropic.message_requests
    for request in (january, february):
        assert december["id"] in request.user_text
        assert march["id"] not in request.user_text and "Mondays" not in request.user_text
    # the January conversation's entries are in the log before February's is extracted, and
    # are shown to it (dated before it); the February ones never to January
    assert "Auth uses Postgres" in february.user_text
    assert "Max joins Monday" not in january.user_text


def test_the_real_2026_9_database_is_dated_by_its_conversations(cli, zc_env, fake_anthropic,
                                                                log_dir):
    db_dir = zc_env["state"] / "agents" / "main" / "agent"
    db_dir.mkdir(parents=True)
    shutil.copyfile(REAL / "openclaw-agent.sqlite", db_dir / "openclaw-agent.sqlite")
    fake_anthropic.when("remember blue", entries("Likes blue", handoff="first talk"))
    fake_anthropic.when("second conversation", entries("Said hello", handoff="second talk"))
    fake_anthropic.when("memory test turn", entries("Tested tools", handoff="third talk"))
    result = cli("extract", "--session-id", REAL_SID, "--reason", "session_end")
    assert result.exit_code == 0, result.stderr
    dated = {e["content"]: e["timestamp"] for e in read_log(log_dir)}
    # the last message of each conversation OpenClaw 2026.9.6 wrote on 2026-11-22
    assert dated == {"Likes blue": "2026-11-22T08:27:56Z", "first talk": "2026-11-22T08:27:56Z",
                     "Said hello": "2026-11-22T08:28:11Z", "second talk": "2026-11-22T08:28:11Z",
                     "Tested tools": "2026-11-22T08:29:51Z", "third talk": "2026-11-22T08:29:51Z"}


def test_a_conversation_before_the_year_1000_keeps_an_iso_date_to_the_vault(
        cli, fake_anthropic, log_dir, tmp_path):
    messages = [
        {"role": "user", "content": "Note the abbey's harvest tithe.",
         "timestamp": "0999-06-01T09:58:00Z"},
        {"role": "assistant", "content": "Noted the tithe.", "timestamp": "0999-06-01T10:00:00Z"},
    ]
    fake_anthropic.reply(entries("Harvest tithe is due", handoff="tithe noted"))
    result = cli("extract", "--session-id", "abbey-1", "--session-key", "agent:main:main",
                 "--messages", "-", "--reason", "before_reset", input=json.dumps(messages))
    assert result.exit_code == 0, result.stderr
    assert {e["timestamp"] for e in read_log(log_dir)} == {"0999-06-01T10:00:00Z"}
    vault = tmp_path / "vault"
    assert cli("vault", "build", "--vault", str(vault)).exit_code == 0
    journal = [p for p in vault.rglob("*.md") if p.stem == "0999-06-01"]
    assert journal and "Harvest tithe is due" in journal[0].read_text()
    brief = cli("brief", "--now", "0001-01-01", "--no-llm", "--dry-run")
    assert brief.exit_code == 0, brief.stderr

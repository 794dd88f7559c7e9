"""Sweep: every main session of every agent, both OpenClaw layouts, extracted once."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import orjson
import pytest

from tests.conftest import write_log
from tests.fake_anthropic import Reply
from tests.hotpath import heavy_imports
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
    result = cli("sweep", "--text", "--concurrency", "3")
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
    result = cli("sweep", "--text")
    assert result.exit_code == 1
    assert "failed: agent ops skipped: cannot" in result.stderr
    assert "3 sessions extracted, 2 skipped, 1 failed" in result.stdout
    assert {e["session"] for e in read_log(log_dir)} == {OLD, CURRENT, DB}


def test_a_second_sweep_finds_nothing(cli, openclaw, fake_anthropic, log_dir):
    cli("sweep", "--text")
    calls = len(fake_anthropic.message_requests)
    before = (log_dir / "log.jsonl").read_bytes()
    again = cli("sweep", "--text")
    assert again.stdout.startswith("Sweep: 0 sessions extracted, 5 skipped, 0 failed; "
                                   "0 entries")
    assert len(fake_anthropic.message_requests) == calls
    assert (log_dir / "log.jsonl").read_bytes() == before


def test_dry_run_lists_and_writes_nothing(cli, openclaw, fake_anthropic, log_dir):
    result = cli("sweep", "--text", "--dry-run")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert any(DB in line and "2 conversations" in line for line in lines)
    assert lines[-1].startswith("Sweep: 3 sessions would extract, 2 skipped")
    assert fake_anthropic.message_requests == []
    assert not (log_dir / "log.jsonl").exists()


def test_since_limits_the_sessions(cli, openclaw, fake_anthropic, log_dir):
    result = cli("sweep", "--text", "--since", (START + timedelta(days=2)).strftime("%Y-%m-%d"))
    assert result.stdout.startswith("Sweep: 1 session extracted")
    assert {e["session"] for e in read_log(log_dir)} == {DB}


def test_agent_option(cli, openclaw, fake_anthropic, log_dir):
    cli("sweep", "--text", "--agent", "main")
    assert {e["session"] for e in read_log(log_dir)} == {OLD, CURRENT}


def test_sessions_are_extracted_concurrently(cli, openclaw, fake_anthropic):
    fake_anthropic.latency = 0.5
    cli("sweep", "--text", "--concurrency", "3")
    assert fake_anthropic.max_in_flight > 1


def test_failed_sessions_retry_once_then_wait_for_retry_failed(cli, openclaw, fake_anthropic,
                                                               log_dir, monkeypatch):
    monkeypatch.setenv("ZETTELCLAW_MODEL_RETRIES", "0")
    others = [m for m in fake_anthropic.matchers if m[0] != "gym"]
    fake_anthropic.matchers = [("gym", Reply(error=529))] + others  # the gym chat: overloaded
    first = cli("sweep", "--text")
    assert first.exit_code == 1
    assert "1 failed" in first.stdout and f"failed: {OLD}" in first.stderr
    second = cli("sweep", "--text")  # the one retry
    assert "1 failed" in second.stdout
    state = json.loads((log_dir / "state.json").read_text())
    assert state["failedSessions"][OLD]["permanent"] is True
    third = cli("sweep", "--text")
    assert third.exit_code == 0 and "0 failed" in third.stdout
    gym_calls = sum("gym" in r.user_text for r in fake_anthropic.message_requests)
    assert gym_calls == 2
    fake_anthropic.matchers[0] = ("gym", Reply(text=handoff("gym at last")))
    fourth = cli("sweep", "--text", "--retry-failed")
    assert fourth.stdout.startswith("Sweep: 1 session extracted")
    assert "gym at last" in [e["content"] for e in read_log(log_dir)]


def test_an_active_conversation_waits_for_its_session_end(cli, zc_env, fake_anthropic, log_dir):
    live = "33333333-cccc-4ccc-8ccc-000000000001"
    home = OpenClawHome(zc_env["state"])
    recent = datetime.now(timezone.utc) - timedelta(minutes=5)
    home.db_session("main", live, [[("user", "still talking"), ("assistant", "yes")]],
                    key="agent:main:main", start=recent, step=timedelta(seconds=1))
    result = cli("sweep", "--text")
    assert result.stdout.startswith("Sweep: 0 sessions extracted, 1 skipped")
    assert fake_anthropic.message_requests == []
    # the hook saying the session ended does extract it
    assert cli("extract", "--session-id", live).exit_code == 0
    assert len(fake_anthropic.message_requests) == 1


def test_a_pruned_record_does_not_bring_a_session_back(cli, openclaw, fake_anthropic,
                                                        log_dir):
    cli("sweep", "--text")
    calls = len(fake_anthropic.message_requests)
    state = json.loads((log_dir / "state.json").read_text())
    state["extractedSessions"] = {}  # as if pruned after 30 days
    (log_dir / "state.json").write_text(json.dumps(state))
    again = cli("sweep", "--text")
    assert again.stdout.startswith("Sweep: 0 sessions extracted")
    assert len(fake_anthropic.message_requests) == calls


def test_json_summary(cli, openclaw, fake_anthropic):
    summary = cli.lines("sweep", "--json")[-1]
    assert summary["extracted"] == 3 and summary["entries"] == 4
    assert summary["tokens"]["input"] > 0


# -- nights that cost what is new (issue 24) ----------------------------------------------------


def reset_later(home: OpenClawHome, session_id: str, start: datetime, topic: str, *,
                after: timedelta = timedelta(hours=3)):
    """A 2026.2 conversation that the person reset (``/new``) ``after`` its last message: the
    reset file's time is later than anything extraction writes about it."""
    path = home.jsonl_session("main", session_id, [("user", f"Chat about {topic}."),
                                                   ("assistant", "Noted.")], start=start)
    stamp = (start + after).strftime("%Y-%m-%dT%H-%M-%S.000Z")
    path.rename(path.with_name(f"{path.name}.reset.{stamp}"))
    return start + timedelta(seconds=40)  # its last message


@pytest.fixture
def transcripts_read(monkeypatch) -> list[str]:
    """The sessions whose transcript a run opens."""
    from zettelclaw import transcripts

    opened: list[str] = []
    real = transcripts.read_segments

    def spy(ref, **kw):
        opened.append(ref.session_id)
        return real(ref, **kw)

    monkeypatch.setattr(transcripts, "read_segments", spy)
    return opened


def iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def test_a_session_pruned_from_state_is_never_read_again(cli, zc_env, fake_anthropic, log_dir,
                                                         transcripts_read):
    home = OpenClawHome(zc_env["state"])
    now = datetime.now(timezone.utc)
    old = "44444444-dddd-4ddd-8ddd-000000000001"
    reset_later(home, old, now - timedelta(days=60), "the gym")
    fake_anthropic.when("gym", handoff("about the gym"))
    fake_anthropic.when("boiler", handoff("about the boiler"))
    assert cli("sweep", "--text").stdout.startswith("Sweep: 1 session extracted")
    state = json.loads((log_dir / "state.json").read_text())
    state["extractedSessions"][old]["at"] = iso(now - timedelta(days=40))  # 40 days on
    (log_dir / "state.json").write_text(json.dumps(state))
    # tonight brings a new conversation: its extraction prunes the old session's record
    reset_later(home, "44444444-dddd-4ddd-8ddd-000000000002", now - timedelta(hours=5),
                "the boiler", after=timedelta(hours=1))
    assert cli("sweep", "--text").stdout.startswith("Sweep: 1 session extracted")
    assert old not in json.loads((log_dir / "state.json").read_text())["extractedSessions"]
    calls, before = len(fake_anthropic.message_requests), (log_dir / "state.json").read_bytes()
    transcripts_read.clear()

    night = cli("sweep", "--text")

    assert night.stdout.startswith("Sweep: 0 sessions extracted, 2 skipped")
    assert transcripts_read == []  # the pruned session is not read again, nor its record back
    assert (log_dir / "state.json").read_bytes() == before
    assert len(fake_anthropic.message_requests) == calls


def test_a_year_of_sessions_leaves_state_small_and_a_quiet_night_reads_nothing(
        cli, zc_env, fake_anthropic, log_dir, transcripts_read):
    home = OpenClawHome(zc_env["state"])
    now = datetime.now(timezone.utc).replace(microsecond=0)
    lines, records = [], {}
    for day in range(365, 0, -1):  # a conversation a day, each reset three hours later
        sid = f"55555555-eeee-4eee-8eee-{day:012d}"
        start = now - timedelta(days=day)
        last = reset_later(home, sid, start, f"day {day}")
        lines.append({"id": f"year{day:08d}", "timestamp": iso(last), "type": "handoff",
                      "content": f"about day {day}", "session": sid})
        records[sid] = {"at": iso(start + timedelta(hours=3, minutes=1)), "entries": 1,
                        "segments": 1, "cursor": {"time": iso(last)}, "agent": "main",
                        "key": None, "tokens": {"input": 900, "output": 40}}
    write_log(log_dir, lines)
    failures = {f"66666666-ffff-4fff-8fff-{n:012d}": {
        "at": iso(now - timedelta(days=90 + n)), "error": "overloaded", "retries": 1,
        "permanent": True, "agent": "main"} for n in range(3)}
    (log_dir / "state.json").write_text(json.dumps(
        {"version": 1, "extractedSessions": records, "failedSessions": failures}))

    first = cli("sweep", "--text")

    assert first.stdout.startswith("Sweep: 0 sessions extracted, 365 skipped")
    state = json.loads((log_dir / "state.json").read_text())
    assert len(state["extractedSessions"]) <= 31 and state["failedSessions"] == {}
    assert (log_dir / "state.json").stat().st_size < 16_000
    before = (log_dir / "state.json").read_bytes(), (log_dir / "log.jsonl").read_bytes()

    quiet = cli("sweep", "--text")

    assert quiet.stdout.startswith("Sweep: 0 sessions extracted, 365 skipped")
    assert transcripts_read == []
    assert ((log_dir / "state.json").read_bytes(), (log_dir / "log.jsonl").read_bytes()) == before
    assert fake_anthropic.message_requests == []
    # the next night brings one conversation: that one is read, and nothing else
    fake_anthropic.when("tonight", handoff("about tonight"))
    tonight = "55555555-eeee-4eee-8eee-999999999999"
    reset_later(home, tonight, now - timedelta(hours=2), "tonight", after=timedelta(hours=1))

    night = cli("sweep", "--text")

    assert night.stdout.startswith("Sweep: 1 session extracted, 365 skipped")
    assert transcripts_read == [tonight]
    assert len(fake_anthropic.message_requests) == 1


def test_a_sweep_with_nothing_new_costs_a_start_up(cli, openclaw, fake_anthropic, log_dir):
    cli("sweep", "--text")
    before = (log_dir / "state.json").read_bytes()

    imported = heavy_imports(["sweep", "--text"], "Sweep: 0 sessions extracted, 5 skipped")

    assert imported == []  # neither the SDK nor Typer nor pydantic: about a start-up
    assert (log_dir / "state.json").read_bytes() == before


def test_the_quick_quiet_sweep_says_what_the_full_one_says(cli, openclaw, fake_anthropic,
                                                           log_dir, zc):
    cli("sweep", "--text")
    for args in (["sweep"], ["sweep", "-j", "1", "--json"], ["sweep", "--text"],
                 ["sweep", "--text", "--gateway-start", "2026-11-01T00:00:00Z"]):
        quick = zc(*args)
        assert quick.returncode == 0 and quick.stdout == cli(*args).stdout.encode()
    # something new: the executable sweeps it as the full CLI does
    fake_anthropic.when("boiler", handoff("about the boiler"))
    reset_later(openclaw, "44444444-dddd-4ddd-8ddd-000000000009",
                datetime.now(timezone.utc) - timedelta(hours=5), "the boiler",
                after=timedelta(hours=1))
    night = zc("sweep", "--text", "-j", "1")
    assert night.returncode == 0
    assert night.stdout.startswith(b"Sweep: 1 session extracted, 5 skipped")
    assert [e["content"] for e in read_log(log_dir)][-1] == "about the boiler"


def live_then_reset(home: OpenClawHome, day: int, start: datetime, live: list) -> str:
    """Day ``day``'s conversation as the person has it on 2026.2: the main key's current
    session until the next day's ``/new`` renames it ``.reset.<that time>`` (``live`` holds
    the path of the one before, rotated here)."""
    if live:
        stamp = start.strftime("%Y-%m-%dT%H-%M-%S.000Z")
        live[0].rename(live[0].with_name(f"{live[0].name}.reset.{stamp}"))
    sid = f"77777777-aaaa-4aaa-8aaa-{day:012d}"
    live[:] = [home.jsonl_session("main", sid, [("user", f"Talk of day {day} about plans."),
                                                ("assistant", "Noted.")],
                                  key="agent:main:main", start=start)]
    return sid


def test_months_of_nights_read_only_what_is_new_and_keep_state_small(
        cli, zc_env, fake_anthropic, log_dir, transcripts_read, monkeypatch):
    # a conversation every morning, the next morning's /new resets it (the reset file's
    # time is a day later than what the night's extraction wrote), a sweep every night
    home = OpenClawHome(zc_env["state"])
    fake_anthropic.when("Talk of day", handoff("about the plans"))
    first = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)
    live: list = []
    sizes = {}
    for day in range(1, 46):
        morning = first + timedelta(days=day - 1)
        tonight = live_then_reset(home, day, morning, live)
        monkeypatch.setenv("ZETTELCLAW_NOW", iso(morning.replace(hour=23, minute=30)))
        transcripts_read.clear()
        calls = len(fake_anthropic.message_requests)

        night = cli("sweep", "--text", "-j", "1")

        assert night.stdout.startswith("Sweep: 1 session extracted"), (day, night.stdout)
        assert len(fake_anthropic.message_requests) == calls + 1  # tonight's, nothing else
        # tonight's conversation, and yesterday's once more (its reset came after its
        # extraction: nothing new in it, no model call), never the weeks before
        assert set(transcripts_read) <= {tonight, f"77777777-aaaa-4aaa-8aaa-{day - 1:012d}"}
        sizes[day] = (log_dir / "state.json").stat().st_size
    state = json.loads((log_dir / "state.json").read_text())
    assert state["sweptUpTo"]["main"].startswith("2026-04-14")  # last night's conversation
    assert len(state["extractedSessions"]) <= 32  # about the last month; older ones pruned
    assert sizes[45] < sizes[30] * 1.1  # a month on, state.json has stopped growing

    # a quiet night: no transcript opened, nothing written, no model call
    transcripts_read.clear()
    before = (log_dir / "state.json").read_bytes(), (log_dir / "log.jsonl").read_bytes()
    monkeypatch.setenv("ZETTELCLAW_NOW", "2026-04-15T23:30:00Z")
    calls = len(fake_anthropic.message_requests)

    quiet = cli("sweep", "--text", "-j", "1")

    assert quiet.stdout.startswith("Sweep: 0 sessions extracted, 45 skipped")
    assert transcripts_read == []
    assert ((log_dir / "state.json").read_bytes(), (log_dir / "log.jsonl").read_bytes()) == before
    assert len(fake_anthropic.message_requests) == calls


def test_an_old_session_pruned_from_state_is_not_extracted_again(
        cli, zc_env, fake_anthropic, log_dir, transcripts_read, monkeypatch):
    home = OpenClawHome(zc_env["state"])
    fake_anthropic.when("Talk of day", handoff("about the plans"))
    first = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)
    live: list = []
    for day in (1, 2):
        morning = first + timedelta(days=day - 1)
        live_then_reset(home, day, morning, live)
        monkeypatch.setenv("ZETTELCLAW_NOW", iso(morning.replace(hour=23, minute=30)))
        cli("sweep", "--text")
    # two months later a new conversation; its extraction prunes the old records
    later = first + timedelta(days=60)
    live_then_reset(home, 61, later, live)
    monkeypatch.setenv("ZETTELCLAW_NOW", iso(later.replace(hour=23, minute=30)))
    cli("sweep", "--text")
    state = json.loads((log_dir / "state.json").read_text())
    assert "77777777-aaaa-4aaa-8aaa-000000000001" not in state["extractedSessions"]
    transcripts_read.clear()
    calls = len(fake_anthropic.message_requests)
    lines = len(read_log(log_dir))

    night = cli("sweep", "--text")

    assert night.stdout.startswith("Sweep: 0 sessions extracted, 3 skipped")
    assert transcripts_read == []
    assert len(fake_anthropic.message_requests) == calls and len(read_log(log_dir)) == lines

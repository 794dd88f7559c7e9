"""A sweep's horizon: the sessions ``sweptUpTo`` already proves done are counted, not built,
and every decision stays what it was (:mod:`zettelclaw.transcripts.horizon`)."""

from __future__ import annotations

import json
import os
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from tests.openclaw_home import OpenClawHome
from tests.test_sweep import handoff, iso, read_log

NOW = datetime(2027, 1, 5, 4, 0, tzinfo=timezone.utc)
SWEPT = NOW - timedelta(hours=10)  # last night's sweep proved everything up to here done
WORK_SWEPT = SWEPT - timedelta(days=1)  # and the other agent's


def sid(n: int) -> str:
    return f"88888888-aaaa-4aaa-8aaa-{n:012d}"


def stamp(moment: datetime) -> str:
    """OpenClaw's rotation stamp: ``2026-04-05T12-08-00.000Z``."""
    return moment.strftime("%Y-%m-%dT%H-%M-%S.000Z")


def conversation(home: OpenClawHome, session_id: str, start: datetime, topic: str, *,
                 agent: str = "main", key: str | None = None) -> Path:
    """A live 2026.2 transcript (a store entry under ``key`` when given)."""
    return home.jsonl_session(agent, session_id, [("user", f"Chat about {topic}."),
                                                  ("assistant", "Noted.")],
                              key=key, start=start)


def rotate(path: Path, moment: datetime, kind: str = "reset") -> Path:
    """What ``/new`` (or a delete) does to a 2026.2 transcript at ``moment``."""
    return path.rename(path.with_name(f"{path.name}.{kind}.{stamp(moment)}"))


def write_state(log_dir: Path, **sections) -> None:
    log_dir.mkdir(parents=True, exist_ok=True)
    (log_dir / "state.json").write_text(json.dumps({
        "version": 1, "sweptUpTo": {"main": iso(SWEPT)}, **sections}))


def a_year(home: OpenClawHome, days: int = 365) -> list[str]:
    """A conversation a day for ``days`` days, each reset (``/new``) the next morning, all
    before last night's sweep."""
    sessions = []
    for day in range(days, 0, -1):
        start = SWEPT - timedelta(days=day)
        rotate(conversation(home, sid(day), start, f"day {day}"), start + timedelta(hours=20))
        sessions.append(sid(day))
    return sessions


@pytest.fixture
def night(monkeypatch):
    monkeypatch.setenv("ZETTELCLAW_NOW", iso(NOW))


@pytest.fixture
def built(monkeypatch) -> dict[str, list[str]]:
    """The per-session objects a run builds: transcript files named, SessionRefs made."""
    from zettelclaw.transcripts import jsonl

    made: dict[str, list[str]] = {"files": [], "refs": []}
    real_file, real_ref = jsonl._transcript_file, jsonl.SessionRef

    def transcript_file(path):
        made["files"].append(path.name)
        return real_file(path)

    def session_ref(agent_id, session_id, *rest):
        made["refs"].append(session_id)
        return real_ref(agent_id, session_id, *rest)

    monkeypatch.setattr(jsonl, "_transcript_file", transcript_file)
    monkeypatch.setattr(jsonl, "SessionRef", session_ref)
    return made


def test_a_year_of_finished_conversations_is_counted_without_building_one(
        cli, zc_env, log_dir, night, built, fake_anthropic):
    home = OpenClawHome(zc_env["state"])
    a_year(home)
    today = sid(9000)  # the main key's current session, quiet since before last night
    conversation(home, today, SWEPT - timedelta(hours=2), "the garden", key="agent:main:main")
    write_state(log_dir)
    before = (log_dir / "state.json").read_bytes()

    quiet = cli("sweep", "--text", "-j", "1")

    assert quiet.stdout.startswith("Sweep: 0 sessions extracted, 366 skipped")
    # only the current session (named by the store) is built; the year is counted by name
    assert built["refs"] == [today]
    assert all(name.startswith(today) for name in built["files"])
    assert (log_dir / "state.json").read_bytes() == before  # a quiet night writes nothing
    assert fake_anthropic.message_requests == []


def test_a_new_conversation_is_extracted_and_moves_swept_up_to_past_it(
        cli, zc_env, log_dir, night, built, fake_anthropic):
    home = OpenClawHome(zc_env["state"])
    a_year(home, days=60)
    write_state(log_dir)
    fake_anthropic.when("boiler", handoff("about the boiler"))
    reset_at = NOW - timedelta(hours=1)
    rotate(conversation(home, sid(9001), NOW - timedelta(hours=3), "the boiler"), reset_at)

    result = cli("sweep", "--text", "-j", "1")

    assert result.stdout.startswith("Sweep: 1 session extracted, 60 skipped")
    assert built["refs"] == [sid(9001)]
    assert [e["content"] for e in read_log(log_dir)] == ["about the boiler"]
    state = json.loads((log_dir / "state.json").read_text())
    assert state["sweptUpTo"]["main"] == iso(reset_at).replace("Z", ".000000Z")


def test_a_conversation_appended_to_an_old_live_transcript_is_still_extracted(
        cli, zc_env, log_dir, night, fake_anthropic):
    # an old session reset long ago whose transcript is live again and written to tonight,
    # with no store entry to date it: its file's time says it is newer than the horizon
    home = OpenClawHome(zc_env["state"])
    a_year(home, days=30)
    old = sid(12)
    live = conversation(home, sid(12), NOW - timedelta(hours=2), "the porch")
    later = (NOW - timedelta(hours=1)).timestamp()
    os.utime(live, (later, later))
    write_state(log_dir)
    fake_anthropic.when("porch", handoff("about the porch"))

    result = cli("sweep", "--text", "-j", "1")

    assert result.stdout.startswith("Sweep: 1 session extracted, 29 skipped")
    assert {e["session"] for e in read_log(log_dir)} == {old}


def test_an_old_live_transcript_last_written_before_the_horizon_stays_done(
        cli, zc_env, log_dir, night, fake_anthropic):
    home = OpenClawHome(zc_env["state"])
    a_year(home, days=30)
    live = conversation(home, sid(12), SWEPT - timedelta(days=12), "the porch")
    earlier = (SWEPT - timedelta(days=11)).timestamp()
    os.utime(live, (earlier, earlier))
    write_state(log_dir)

    result = cli("sweep", "--text", "-j", "1")

    assert result.stdout.startswith("Sweep: 0 sessions extracted, 30 skipped")
    assert fake_anthropic.message_requests == []


def test_a_store_entry_updated_after_the_horizon_brings_its_session_back(
        cli, zc_env, log_dir, night, fake_anthropic):
    # the rotated file is old, but the store says the session was updated after the horizon
    home = OpenClawHome(zc_env["state"])
    a_year(home, days=30)
    store = home.agents / "main" / "sessions" / "sessions.json"
    store.write_text(json.dumps({"agent:main:telegram:direct:42": {
        "sessionId": sid(7), "updatedAt": int((NOW - timedelta(hours=1)).timestamp() * 1000),
        "chatType": "direct"}}))
    write_state(log_dir)
    fake_anthropic.when("day 7", handoff("about day 7"))

    result = cli("sweep", "--text", "-j", "1")

    assert result.stdout.startswith("Sweep: 1 session extracted, 29 skipped")
    assert {e["session"] for e in read_log(log_dir)} == {sid(7)}


def test_failures_and_held_records_are_planned_by_their_own_rules(
        cli, zc_env, log_dir, night, fake_anthropic):
    home = OpenClawHome(zc_env["state"])
    a_year(home, days=30)
    write_state(log_dir, failedSessions={
        sid(3): {"at": iso(NOW - timedelta(days=1)), "error": "overloaded", "retries": 1,
                 "agent": "main"},
        sid(4): {"at": iso(NOW - timedelta(days=1)), "error": "overloaded", "retries": 3,
                 "permanent": True, "agent": "main"}},
        extractedSessions={sid(5): {"at": iso(SWEPT - timedelta(days=5)), "held": True,
                                    "agent": "main"}})
    fake_anthropic.when("day", handoff("about the day"))

    dry = cli("sweep", "--text", "--dry-run")

    assert "Sweep: 2 sessions would extract, 28 skipped" in dry.stdout
    assert f"{sid(3)} (main" in dry.stdout and f"{sid(5)} (main" in dry.stdout
    retried = cli("sweep", "--text", "--dry-run", "--retry-failed")
    assert "Sweep: 3 sessions would extract, 27 skipped" in retried.stdout


def test_since_counts_only_the_sessions_it_would_have_listed(cli, zc_env, log_dir, night):
    home = OpenClawHome(zc_env["state"])
    a_year(home, days=30)
    write_state(log_dir)
    since = (SWEPT - timedelta(days=10)).strftime("%Y-%m-%dT%H:%M:%S")

    result = cli("sweep", "--text", "--dry-run", "--since", since)

    # days 1..10 were reset 20 hours after they began: those of days 1 to 10 are in
    assert "Sweep: 0 sessions would extract, 10 skipped" in result.stdout


# -- the same decisions as a listing told nothing ----------------------------------------------


def mixed_home(home: OpenClawHome, log_dir: Path) -> None:
    """Two agents, both layouts, and every kind of session the horizon must not take for
    done without proof."""
    a_year(home, days=40)
    sessions = home.agents / "main" / "sessions"
    # several rotations, the latest after the horizon; and one whose latest is before it
    first = rotate(conversation(home, sid(500), SWEPT - timedelta(days=3), "a"),
                   SWEPT - timedelta(days=2))
    (sessions / f"{sid(500)}.jsonl.reset.{stamp(SWEPT + timedelta(hours=2))}").write_bytes(
        first.read_bytes())
    rotate(conversation(home, sid(501), SWEPT - timedelta(days=9), "b"),
           SWEPT - timedelta(days=8), "deleted")
    rotate(conversation(home, sid(501), SWEPT - timedelta(days=7), "b2"),
           SWEPT - timedelta(days=6))
    # live transcripts with no store entry: written to after the horizon, and before it
    for n, moment in ((502, SWEPT + timedelta(hours=1)), (503, SWEPT - timedelta(days=1))):
        rotate(conversation(home, sid(n), SWEPT - timedelta(days=20), "c"),
               SWEPT - timedelta(days=19))
        live = conversation(home, sid(n), moment - timedelta(hours=1), "c2")
        os.utime(live, (moment.timestamp(), moment.timestamp()))
    # store entries: updated after the horizon (old rotated file), before it (live file
    # written since), a cron key's, and the main key's current session
    conversation(home, sid(504), SWEPT - timedelta(days=30), "d", key="agent:main:direct:7")
    rotate(sessions / f"{sid(504)}.jsonl", SWEPT - timedelta(days=29))
    store = json.loads((sessions / "sessions.json").read_text())
    store["agent:main:direct:7"]["updatedAt"] = int((SWEPT + timedelta(hours=3)).timestamp()
                                                    * 1000)
    (sessions / "sessions.json").write_text(json.dumps(store))
    live = conversation(home, sid(505), SWEPT - timedelta(days=2), "e", key="agent:main:main")
    os.utime(live, ((SWEPT + timedelta(hours=1)).timestamp(),) * 2)
    rotate(conversation(home, sid(506), SWEPT - timedelta(days=4), "f", key="cron:report"),
           SWEPT + timedelta(hours=1))
    # names OpenClaw does not write: an impossible date, another stamp format, a topic, a
    # directory named like a transcript, a file with no transcript name
    for n, name in ((507, f"{sid(507)}.jsonl.reset.2026-13-01T00-00-00.000Z"),
                    (508, f"{sid(508)}.jsonl.reset.2026-05-05T01-30-00Z"),
                    (509, f"{sid(509)}-topic-3.jsonl.reset.{stamp(SWEPT - timedelta(days=3))}"),
                    (510, f"{sid(510)}-topic-3.jsonl.reset.{stamp(SWEPT + timedelta(hours=1))}")):
        path = conversation(home, sid(n), SWEPT - timedelta(days=5), "g")
        path.rename(sessions / name)
    (sessions / f"{sid(511)}.jsonl.reset.{stamp(SWEPT - timedelta(days=1))}").mkdir()
    (sessions / "notes.txt").write_text("not a transcript")
    # 2026.9 beside 2026.2 after an upgrade: the database wins for a session in both
    home.db_session("work", sid(600), [[("user", "Pick Postgres."), ("assistant", "Ok.")]],
                    key="agent:work:main", start=SWEPT - timedelta(hours=5), current=False)
    rotate(conversation(home, sid(600), SWEPT - timedelta(days=50), "h", agent="work"),
           SWEPT - timedelta(days=49))
    rotate(conversation(home, sid(601), SWEPT - timedelta(days=50), "i", agent="work"),
           SWEPT - timedelta(days=49))
    for n in range(610, 625):  # a database's finished sessions (one of them failed)
        home.db_session("work", sid(n), [[("user", f"Talk {n}."), ("assistant", "Ok.")]],
                        key="agent:work:main", start=SWEPT - timedelta(days=n - 600),
                        current=False)
    # at the agent's horizon to the millisecond, and a millisecond after it
    conn = home.connect("work")
    with conn:
        for n, ms in ((613, 0), (614, 1)):
            conn.execute("UPDATE session_windows SET updated_at = ? WHERE session_id = ?",
                         (int(WORK_SWEPT.timestamp() * 1000) + ms, sid(n)))
    conn.close()
    rotate(conversation(home, sid(513), SWEPT - timedelta(hours=1), "l"), SWEPT)
    path = conversation(home, sid(514), SWEPT - timedelta(hours=1), "m")
    path.rename(path.with_name(f"{path.name}.reset.{stamp(SWEPT)[:-4]}001Z"))
    # an old database session with a 2026.2 copy reset after the horizon: the database wins
    rotate(conversation(home, sid(611), SWEPT - timedelta(hours=1), "k", agent="work"),
           SWEPT + timedelta(hours=1))
    # sessions with events only (no window, no archive): one old, one after the horizon
    for n, moment in ((630, SWEPT - timedelta(days=3)), (631, SWEPT + timedelta(hours=1))):
        conn = home.connect("work")
        with conn:
            conn.execute("INSERT INTO transcript_events (session_id, seq, event_json, "
                         "created_at) VALUES (?, 0, '{}', ?)",
                         (sid(n), int(moment.timestamp() * 1000)))
        conn.close()
    # one that ended after the horizon
    rotate(conversation(home, sid(512), SWEPT + timedelta(hours=1), "j"),
           SWEPT + timedelta(hours=2))
    log_dir.mkdir(parents=True, exist_ok=True)
    (log_dir / "state.json").write_text(json.dumps({
        "version": 1, "installedAt": iso(SWEPT - timedelta(days=35)),
        "sweptUpTo": {"main": iso(SWEPT), "work": iso(WORK_SWEPT)},
        "failedSessions": {
            sid(20): {"at": iso(SWEPT), "error": "overloaded", "retries": 1, "agent": "main"},
            sid(21): {"at": iso(SWEPT), "error": "x", "permanent": True, "agent": "main"},
            sid(38): {"at": iso(SWEPT), "error": "x", "history": True, "agent": "main"},
            sid(612): {"at": iso(SWEPT), "error": "x", "agent": "work"}},
        "extractedSessions": {
            sid(22): {"at": iso(SWEPT - timedelta(days=20)), "held": True, "agent": "main"},
            sid(23): {"at": iso(SWEPT - timedelta(days=21)), "agent": "main"},
            sid(512): {"at": iso(SWEPT + timedelta(hours=3)), "agent": "main"}}}))


def decisions(**options):
    """What plan() decides, and where advance() would move each agent's sweptUpTo."""
    from zettelclaw import sweep

    seen: dict = {}
    unreadable: list = []
    todo, skipped = sweep.plan(seen=seen, unreadable=unreadable, **options)
    view = sweep._view()
    moves = {}
    for agent, sessions in seen.items():
        moved = sweep._horizon(sessions, view.extractedSessions, view.failedSessions)
        if moved is not None and (view.swept.get(agent) is None or moved > view.swept[agent]):
            moves[agent] = moved
    return ([(c.ref.agent_id, c.ref.session_id, c.ref.session_key, c.ref.layout, c.ref.path,
              c.ref.updated_at, c.why, c.mark) for c in todo], skipped, unreadable, moves)


@pytest.mark.parametrize("options", [
    {}, {"agent": "main"}, {"agent": "work"}, {"retry_failed": True},
    {"since": SWEPT - timedelta(days=10)}, {"since": SWEPT - timedelta(days=49, hours=1)},
    {"since": SWEPT + timedelta(minutes=30)}, {"since": datetime(2020, 1, 1)},
])
def test_every_decision_is_the_one_a_listing_told_nothing_makes(zc_env, log_dir, night,
                                                                monkeypatch, options):
    from zettelclaw.transcripts import jsonl, sqlite
    from zettelclaw.transcripts.horizon import Horizon

    mixed_home(OpenClawHome(zc_env["state"]), log_dir)
    named: list[str] = []  # the transcript files and database sessions each listing built
    real_file, real_ref = jsonl._transcript_file, sqlite.SessionRef
    monkeypatch.setattr(jsonl, "_transcript_file",
                        lambda path: named.append(path.name) or real_file(path))
    monkeypatch.setattr(sqlite, "SessionRef",
                        lambda agent_id, session_id, *rest: named.append(session_id)
                        or real_ref(agent_id, session_id, *rest))

    now = decisions(**options)
    counted = len(named)
    named.clear()
    with monkeypatch.context() as told_nothing:
        told_nothing.setattr(Horizon, "of", lambda self, agent_id: None)
        before = decisions(**options)

    assert now == before
    assert now[0], "the home has sessions to extract"
    since = options.get("since", SWEPT).replace(tzinfo=timezone.utc)  # naive: UTC
    if since <= SWEPT:
        assert counted < len(named) - 10  # the old sessions were counted, not built


def test_a_database_with_events_only_is_listed_and_dated_by_its_latest_event(zc_env):
    # no session_windows, no archives: each session's time is its latest event's
    import sqlite3

    from zettelclaw import transcripts
    from zettelclaw.transcripts.horizon import Horizon

    db = OpenClawHome(zc_env["state"]).db_path("main")
    db.parent.mkdir(parents=True)
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE transcript_events (session_id TEXT NOT NULL, seq INTEGER NOT "
                 "NULL, event_json TEXT, created_at INTEGER NOT NULL, PRIMARY KEY (session_id, "
                 "seq))")
    for n, day in ((1, 3), (2, 1)):
        for seq in range(3):
            moment = SWEPT - timedelta(days=day, minutes=10 - seq)
            conn.execute("INSERT INTO transcript_events VALUES (?, ?, '{}', ?)",
                         (sid(n), seq, int(moment.timestamp() * 1000)))
    conn.commit()
    conn.close()

    listed = [(r.session_id, r.updated_at) for r in transcripts.list_sessions()]

    assert listed == [(sid(1), SWEPT - timedelta(days=3, minutes=8)),
                      (sid(2), SWEPT - timedelta(days=1, minutes=8))]
    horizon = Horizon({"main": SWEPT - timedelta(days=2)}, set())
    assert [r.session_id for r in transcripts.list_sessions(horizon=horizon)] == [sid(2)]
    assert horizon.covered == 1

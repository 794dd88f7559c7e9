"""Reading OpenClaw conversations: real 2026.9 data, a 2026.2 layout fixture, inline messages."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
import tracemalloc
from datetime import datetime, timezone
from pathlib import Path

import orjson
import pytest
import zstandard

from zettelclaw import transcripts
from zettelclaw.errors import NotFoundError, UsageError, ZettelclawError
from zettelclaw.transcripts import Message, SessionRef
from zettelclaw.transcripts import sqlite as transcripts_sqlite

HERE = Path(__file__).resolve().parent
# a database and its exported transcript as OpenClaw 2026.9.6 wrote them (a faked model's
# conversation), carried by the project: see data/openclaw-2026.9.6/README.md
REAL = HERE / "data" / "openclaw-2026.9.6"
REAL_DB = REAL / "openclaw-agent.sqlite"
REAL_SID = "39d9e876-85dd-4354-a168-3af12d57edde"
REAL_JSONL = REAL / f"{REAL_SID}.jsonl"
FIXTURE = HERE / "data" / "openclaw-2026.2" / "agents"


OLD = "5f0c8a2e-1b7d-4c1e-9a53-2d4f6b8e0a11"
MAIN = "9d3e7f10-64a2-4b8c-b1d0-7e5a3c2f9b42"
DM = "c41b9e77-08f3-4d6a-a2c5-6b1e0d9f3a58"
TOPIC = "e2a7d5c3-91b4-4f0e-8d6a-3c7b2e1f4a09"
CRON = "0b6f3d1a-7e2c-4a95-b8d4-1f9e6c3a7d20"
SUB = "7a1c4e9b-3d5f-4b2a-9e8c-0d6f2b5a1c37"
GONE = "3e9d1b7f-5a2c-4e8d-b6f1-9c4a0e7d2b63"
TWICE = "8c2f6a4d-0e1b-4d7c-a9f3-5b8e1d6c4a72"
EMPTY = "a6d0e3f9-2b7c-4e1a-8f5d-4c9b3a0e6d15"
WORK = "d9b3f1a7-6c2e-4f8b-a0d5-2e7c9b4f1a86"

MARKERS = ("OPENCLAW_INTERNAL_CONTEXT", "untrusted metadata", "HEARTBEAT")


def texts(segment) -> list[tuple[str, str]]:
    return [(m.role, m.text) for m in segment.messages]


def all_text(segments) -> str:
    return "\n".join(m.text for s in segments for m in s.messages)


@pytest.fixture
def agents(zc_env) -> Path:
    """The OpenClaw agents dir the code resolves ($OPENCLAW_STATE_DIR/agents)."""
    path = zc_env["state"] / "agents"
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture
def layout_2026_2(agents) -> Path:
    shutil.copytree(FIXTURE, agents, dirs_exist_ok=True)
    return agents


@pytest.fixture
def real_agent(agents) -> Path:
    """The real 2026.9 database where OpenClaw keeps it: a copy, so that a WAL reader's -shm
    file lands in the test's directory, never beside the project's copy."""
    db_dir = agents / "main" / "agent"
    db_dir.mkdir(parents=True)
    shutil.copyfile(REAL_DB, db_dir / transcripts.DB_NAME)
    return db_dir / transcripts.DB_NAME


def test_the_real_2026_9_data_is_carried_by_the_project_and_no_test_looks_beside_it():
    # a clean clone runs every test: nothing read from a folder next to the checkout
    carried = [REAL_DB, REAL_JSONL]
    assert all(p.is_file() for p in carried)
    assert sum(p.stat().st_size for p in REAL.iterdir()) < 1 << 20
    for test in HERE.rglob("*.py"):
        if test == Path(__file__).resolve():
            continue
        text = test.read_text()
        assert '"shared" / "data"' not in text and "../shared/data" not in text, test


def real_events() -> list[dict]:
    return [orjson.loads(line) for line in REAL_JSONL.read_bytes().splitlines() if line.strip()]


# ---------------------------------------------------------------------------------------------
# the real 2026.9.6 database


def test_real_db_splits_at_reset_events(real_agent):
    ref = transcripts.find_session(REAL_SID)
    assert (ref.layout, ref.agent_id, ref.session_key) == ("2026.9", "main", "agent:main:main")
    segments = transcripts.read_segments(ref)

    reset_ids = [e["id"] for e in real_events() if e["type"] == "reset"]
    assert len(reset_ids) == 2
    assert [s.index for s in segments] == [0, 1, 2]
    assert [s.closed for s in segments] == [True, True, False]
    assert [s.last_event_id for s in segments[:2]] == reset_ids
    assert [m.text for m in segments[0].messages if m.role == "user"] == [
        "hello probe one", "hello via gateway, please remember blue"]
    assert [m.text for m in segments[1].messages if m.role == "user"] == [
        "after new: second conversation"]
    assert [m.text for m in segments[2].messages if m.role == "user"] == [
        "memory test turn", "please CALLTOOL:probe_echo now", "CALLTOOL:memory_search please"]
    # the fake model's replies, alternating with the user turns; tool-call-only turns are gone
    for segment in segments:
        assert [m.role for m in segment.messages] == ["user", "assistant"] * (
            len(segment.messages) // 2)
        assert all(m.text.startswith("FAKE-REPLY: ack") for m in segment.messages
                   if m.role == "assistant")


def test_real_db_drops_tools_bootstrap_and_internal_markers(real_agent):
    segments = transcripts.read_segments(transcripts.find_session(REAL_SID, "main"))
    text = all_text(segments)
    assert "echo: from-fake-model" not in text  # a toolResult
    assert "probe fact: blue" not in text  # memory_search's result
    assert "from-fake-model" not in text  # a toolCall's arguments
    assert "<<<END_OPENCLAW_INTERNAL_CONTEXT>>>" not in text
    assert "bootstrap" not in text and "model-snapshot" not in text
    stamps = [m.timestamp for s in segments for m in s.messages]
    assert all(stamp and stamp.startswith("2026-11-22T08:") for stamp in stamps)


def test_real_db_key_lookup_and_listing(real_agent):
    assert transcripts.session_key_for(REAL_SID) == "agent:main:main"
    assert transcripts.session_key_for(REAL_SID, agent="main") == "agent:main:main"
    assert transcripts.session_key_for("no-such-session") is None
    refs = list(transcripts.list_sessions())
    assert [(r.session_id, r.layout, r.session_key) for r in refs] == [
        (REAL_SID, "2026.9", "agent:main:main")]
    assert refs[0].updated_at.year == 2026
    assert list(transcripts.list_sessions(since=datetime(2027, 1, 1))) == []


def test_real_db_cursor_returns_only_what_came_after(real_agent):
    ref = transcripts.find_session(REAL_SID)
    first, second, third = transcripts.read_segments(ref)
    after_first = transcripts.read_segments(ref, after=first.last_event_id)
    assert [s.index for s in after_first] == [1, 2]
    assert transcripts.read_segments(ref, after=third.last_event_id) == []
    # a cursor inside the open segment keeps the later messages only
    middle = third.messages[1].event_id
    [rest] = transcripts.read_segments(ref, after=middle)
    assert rest.index == 2 and rest.messages == third.messages[2:]
    assert transcripts.read_segments(ref, after="not-an-event") == [first, second, third]


def test_real_jsonl_export_reads_the_same_messages(real_agent):
    from_db = transcripts.read_segments(transcripts.find_session(REAL_SID))
    from_file = transcripts.segments_from_messages(REAL_JSONL.read_bytes(), REAL_SID)
    assert [s.messages for s in from_file] == [s.messages for s in from_db]
    assert [s.last_event_id for s in from_file] == [s.last_event_id for s in from_db]
    # the same events as an already parsed list
    from_list = transcripts.segments_from_messages(real_events(), REAL_SID)
    assert [s.messages for s in from_list] == [s.messages for s in from_db]


def test_real_db_opens_read_only_without_touching_it(real_agent):
    # (a WAL reader may take its read lock in the -shm index, and SQLite opens an empty -wal
    # where none was, in a directory it may write to, as OpenClaw's is; the data stay as
    # they are: the database's bytes and date, and no page in a -wal)
    wal = real_agent.with_name(real_agent.name + "-wal")
    before = (real_agent.read_bytes(), real_agent.stat().st_mtime_ns)
    transcripts.read_segments(transcripts.find_session(REAL_SID))
    assert (real_agent.read_bytes(), real_agent.stat().st_mtime_ns) == before
    assert not wal.exists() or wal.stat().st_size == 0


# ---------------------------------------------------------------------------------------------
# the 2026.2 layout


def test_2026_2_listing_covers_every_file_and_agent(layout_2026_2):
    refs = {r.session_id: r for r in transcripts.list_sessions()}
    assert set(refs) == {OLD, MAIN, DM, TOPIC, CRON, SUB, GONE, TWICE, EMPTY, WORK}
    assert {r.layout for r in refs.values()} == {"2026.2"}
    assert refs[MAIN].session_key == "agent:main:main"
    assert refs[WORK].agent_id == "work" and refs[WORK].session_key == "agent:work:main"
    assert refs[TOPIC].path.name == f"{TOPIC}-topic-42.jsonl"
    # rotated files whose store entry is gone: no key, time from the rotation stamp
    assert refs[OLD].session_key is None
    assert refs[OLD].updated_at == datetime(2026, 2, 20, 15, 30, tzinfo=timezone.utc)
    assert refs[GONE].path.name.endswith(".deleted.2026-02-21T09-00-00.000Z")
    assert refs[MAIN].updated_at == datetime(2026, 2, 26, 10, 5, tzinfo=timezone.utc)

    assert {r.session_id for r in transcripts.list_sessions(agent="work")} == {WORK}
    recent = {r.session_id for r in transcripts.list_sessions(
        since=datetime(2026, 2, 27, tzinfo=timezone.utc))}
    assert recent == {DM, TOPIC, CRON, SUB, EMPTY}
    assert [r.session_id for r in transcripts.list_sessions(
        agent="main", since=datetime(2026, 2, 28, 3, 30))] == [SUB, EMPTY]  # naive = UTC


def test_2026_2_live_session_keeps_text_and_drops_the_rest(layout_2026_2):
    ref = transcripts.find_session(MAIN)
    assert (ref.layout, ref.session_key) == ("2026.2", "agent:main:main")
    [segment] = transcripts.read_segments(ref)
    assert not segment.closed and segment.index == 0
    assert texts(segment) == [
        ("user", "Here is the dashboard after the deploy.\n[image]"),
        ("assistant", "The error rate dropped to 0.2% after the deploy."),
        ("user", "Some failures are non-retryable. Let's add a dead-letter queue."),
        ("assistant",
         "Agreed: queue-based retries with a dead-letter queue for permanent failures."),
    ]
    text = all_text([segment])
    assert "iVBOR" not in text  # the image data
    assert "AGENTS.md" not in text  # custom_message bootstrap context
    assert "compaction summary" not in text
    assert "HEARTBEAT" not in text  # the heartbeat prompt and its HEARTBEAT_OK


def test_2026_2_rotated_file_drops_thinking_and_tools(layout_2026_2):
    ref = transcripts.find_session(OLD, agent="main")
    assert ref.session_key is None
    [segment] = transcripts.read_segments(ref)
    assert segment.closed
    assert [m.role for m in segment.messages] == ["user", "assistant", "user", "assistant"]
    text = all_text([segment])
    assert "consider DLQ" not in text  # thinking
    assert "SECRET-TOOL-ARGS" not in text and "Wrote 120 bytes" not in text
    assert segment.messages[-1].text == "Noted the intervals. The backfill script is still open."


def test_2026_2_several_rotations_read_in_time_order(layout_2026_2):
    segments = transcripts.read_segments(transcripts.find_session(TWICE))
    assert [s.index for s in segments] == [0, 1]
    assert all(s.closed for s in segments)
    assert [s.messages[0].text for s in segments] == [
        "First take: call the project Heron.", "Second take: rename the project to Egret."]


def test_2026_2_rotated_file_beside_a_live_one(layout_2026_2):
    sessions = layout_2026_2 / "main" / "sessions"
    shutil.copy(sessions / f"{OLD}.jsonl.reset.2026-02-20T15-30-00.000Z",
                sessions / f"{MAIN}.jsonl.reset.2026-02-25T08-00-00.000Z")
    ref = transcripts.find_session(MAIN)
    assert ref.path.name == f"{MAIN}.jsonl"
    old, live = transcripts.read_segments(ref)
    assert (old.index, old.closed, live.index, live.closed) == (0, True, 1, False)
    assert old.messages[0].text.startswith("We're moving webhook retries")


def test_2026_2_deleted_file_is_read(layout_2026_2):
    [segment] = transcripts.read_segments(transcripts.find_session(GONE))
    assert segment.closed
    assert segment.messages[0].text == "Remind me: the staging password rotates every 30 days."


def test_2026_2_topic_file_and_entry_session_file(layout_2026_2):
    ref = transcripts.find_session(TOPIC)
    assert ref.session_key == "agent:main:telegram:group:-1001234:topic:42"
    [segment] = transcripts.read_segments(ref)
    assert segment.messages[0].text == "Team: the release is frozen until Monday."
    # a sessionFile from another machine's state dir falls back to the file beside the store
    dm = transcripts.find_session(DM)
    assert dm.path == layout_2026_2 / "main" / "sessions" / f"{DM}.jsonl"


def test_2026_2_channel_envelope_and_system_wrappers_stripped(layout_2026_2):
    [segment] = transcripts.read_segments(transcripts.find_session(DM))
    assert texts(segment) == [
        ("user", "Book the dentist for Thursday, I prefer mornings."),
        ("assistant", "I'll look for a Thursday morning slot."),
        ("assistant", "The calendar sync finished."),
    ]


def test_2026_2_scope_of_each_session(layout_2026_2):
    scope = {r.session_id: transcripts.in_scope(r.session_key)
             for r in transcripts.list_sessions()}
    assert [sid for sid, ok in scope.items() if not ok] == [
        sid for sid in scope if sid in {TOPIC, CRON, SUB}]
    [cron] = transcripts.read_segments(transcripts.find_session(CRON))
    assert not cron.has_user  # the cron prompt is not the human's


def test_2026_2_empty_session(layout_2026_2):
    ref = transcripts.find_session(EMPTY)
    assert ref.session_key == "agent:main:telegram:direct:9999"
    assert transcripts.read_segments(ref) == []


def test_store_entry_without_transcript_is_empty(agents):
    sessions = agents / "main" / "sessions"
    sessions.mkdir(parents=True)
    (sessions / "sessions.json").write_bytes(orjson.dumps(
        {"agent:main:main": {"sessionId": "fresh1", "updatedAt": 1771600000000}}))
    ref = transcripts.find_session("fresh1")
    assert ref.session_key == "agent:main:main"
    assert transcripts.read_segments(ref) == []
    assert list(transcripts.list_sessions()) == []  # nothing to read yet


def test_unknown_session_and_bad_ids(layout_2026_2):
    with pytest.raises(NotFoundError, match="no OpenClaw session nope"):
        transcripts.find_session("nope")
    with pytest.raises(NotFoundError):
        transcripts.find_session(MAIN, agent="work")
    with pytest.raises(NotFoundError):
        transcripts.find_session(MAIN, agent="nobody")
    for bad in ("../x", "a/b", ".hidden", ""):
        with pytest.raises(UsageError):
            transcripts.find_session(bad)
    with pytest.raises(UsageError):
        transcripts.read_segments(SessionRef("main", "x", None, "inline", None, None))


def test_non_utf8_bytes_in_a_jsonl_transcript(agents):
    sessions = agents / "main" / "sessions"
    sessions.mkdir(parents=True)
    good = orjson.dumps({"type": "message", "id": "e1", "message": {
        "role": "user", "content": "caf\u00e9 is fine"}})
    bad = (b'{"type":"message","id":"e2","message":{"role":"assistant","content":'
           b'[{"type":"text","text":"broken \xff\xfe bytes"}]}}')
    torn = b'{"type":"message","id":"e3","message":{"role":"user","con'
    (sessions / "s1.jsonl").write_bytes(b"\n".join([good, bad, torn]) + b"\n")
    [segment] = transcripts.read_segments(transcripts.find_session("s1"))
    assert texts(segment) == [("user", "café is fine"),
                              ("assistant", "broken \ufffd\ufffd bytes")]


def test_large_transcript_is_streamed(agents):
    """A transcript of tool output costs the text kept, not the file's size."""
    sessions = agents / "main" / "sessions"
    sessions.mkdir(parents=True)
    blob = "x" * 20_000
    with open(sessions / "big.jsonl", "wb") as fh:
        for i in range(1_000):  # ~20 MB of tool results around a few real turns
            fh.write(orjson.dumps({"type": "message", "id": f"t{i}", "message": {
                "role": "toolResult", "content": [{"type": "text", "text": blob}]}}) + b"\n")
            if i % 100 == 0:
                fh.write(orjson.dumps({"type": "message", "id": f"u{i}", "message": {
                    "role": "user", "content": f"turn {i}"}}) + b"\n")
    ref = transcripts.find_session("big")
    tracemalloc.start()
    try:
        [segment] = transcripts.read_segments(ref)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert [m.text for m in segment.messages] == [f"turn {i}" for i in range(0, 1000, 100)]
    assert peak < 2_000_000, peak


# ---------------------------------------------------------------------------------------------
# 2026.9 databases written here: zstd rows, archives, read-only fallbacks

SCHEMA = """
CREATE TABLE session_nodes (session_key TEXT PRIMARY KEY, current_session_id TEXT NOT NULL,
  entry_json TEXT NOT NULL, updated_at INTEGER NOT NULL);
CREATE TABLE session_windows (session_id TEXT PRIMARY KEY, session_key TEXT NOT NULL,
  created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);
CREATE TABLE transcript_events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, event_json TEXT,
  created_at INTEGER NOT NULL, event_zstd BLOB, event_utf8_bytes INTEGER, navigation_json TEXT,
  PRIMARY KEY (session_id, seq));
CREATE TABLE session_transcript_archives (session_id TEXT NOT NULL, generation TEXT NOT NULL,
  session_key TEXT NOT NULL, reason TEXT NOT NULL, encoding TEXT NOT NULL,
  archive_blob BLOB NOT NULL, archive_sha256 TEXT NOT NULL, archive_name TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL, PRIMARY KEY (session_id, generation));
"""


def make_db(agents: Path, agent: str = "main") -> sqlite3.Connection:
    path = agents / agent / "agent" / transcripts.DB_NAME
    path.parent.mkdir(parents=True)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.executescript(SCHEMA)
    return conn


def event(eid: str, role: str, content) -> dict:
    return {"type": "message", "id": eid, "timestamp": "2026-11-22T09:00:00.000Z",
            "message": {"role": role, "content": content}}


def test_zstd_compressed_event_rows(agents):
    conn = make_db(agents)
    long_text = "We agreed to ship the billing rewrite behind a flag. " * 200
    rows = [
        {"type": "session", "version": 4, "id": "z1", "timestamp": "2026-11-22T09:00:00Z"},
        event("a1", "user", long_text),
        event("a2", "assistant", [{"type": "text", "text": "Flagged rollout it is."}]),
    ]
    for seq, row in enumerate(rows):
        raw = orjson.dumps(row)
        if seq == 1:
            conn.execute("INSERT INTO transcript_events VALUES (?, ?, NULL, 1, ?, ?, '{}')",
                         ("z1", seq, zstandard.ZstdCompressor().compress(raw), len(raw)))
        else:
            conn.execute("INSERT INTO transcript_events VALUES (?, ?, ?, 1, NULL, NULL, NULL)",
                         ("z1", seq, raw.decode()))
    conn.execute("INSERT INTO session_nodes VALUES ('agent:main:telegram:direct:7', 'z1', '{}', "
                 "1795335971326)")
    conn.execute("INSERT INTO session_windows VALUES ('z1', 'agent:main:telegram:direct:7', 1, "
                 "1795335971326)")
    conn.commit()  # the writer stays open, as the gateway would

    ref = transcripts.find_session("z1")
    assert (ref.layout, ref.session_key) == ("2026.9", "agent:main:telegram:direct:7")
    [segment] = transcripts.read_segments(ref)
    assert texts(segment) == [("user", long_text.strip()), ("assistant", "Flagged rollout it is.")]
    conn.close()


def test_archives_read_when_live_events_are_gone(agents):
    conn = make_db(agents)
    first = b"\n".join(orjson.dumps(e) for e in [
        {"type": "session", "version": 4, "id": "old1"},
        event("b1", "user", "Archive one: the cat is called Miso."),
        event("b2", "assistant", [{"type": "text", "text": "Miso, noted."}]),
    ])
    second = b"\n".join(orjson.dumps(e) for e in [
        event("c1", "user", "Archive two: Miso is allergic to chicken."),
        {"type": "reset", "id": "r1", "reason": "new"},
        event("c2", "user", "And a third conversation."),
    ])
    conn.executemany(
        "INSERT INTO session_transcript_archives "
        "VALUES (?, ?, 'agent:main:main', ?, ?, ?, ?, ?, ?)",
        [("old1", "g1", "reset", "identity", first, "0" * 64, "old1.jsonl.reset.1", 10),
         ("old1", "g2", "deleted", "zstd", zstandard.ZstdCompressor().compress(second),
          "1" * 64, "old1.jsonl.deleted.2", 20)])
    conn.commit()
    ref = transcripts.find_session("old1")
    assert ref.session_key == "agent:main:main"
    segments = transcripts.read_segments(ref)
    assert [(s.index, s.closed) for s in segments] == [(0, True), (1, True), (2, True)]
    assert [s.messages[0].text for s in segments] == [
        "Archive one: the cat is called Miso.", "Archive two: Miso is allergic to chicken.",
        "And a third conversation."]
    assert [r.session_id for r in transcripts.list_sessions()] == ["old1"]
    conn.close()


def test_non_utf8_bytes_in_a_database_row(agents):
    conn = make_db(agents)
    raw = b'{"type":"message","id":"n1","message":{"role":"user","content":"bad \xff byte"}}'
    conn.execute("INSERT INTO transcript_events VALUES ('n1', 0, CAST(? AS TEXT), 1, NULL, NULL, "
                 "NULL)", (raw,))
    conn.execute("INSERT INTO session_windows VALUES ('n1', 'agent:main:main', 1, 1)")
    conn.commit()
    [segment] = transcripts.read_segments(transcripts.find_session("n1"))
    assert texts(segment) == [("user", "bad \ufffd byte")]
    conn.close()


def test_database_layout_wins_over_leftover_files(agents):
    conn = make_db(agents)
    conn.execute("INSERT INTO transcript_events VALUES ('dup', 0, ?, 1, NULL, NULL, NULL)",
                 (orjson.dumps(event("d1", "user", "from the database")).decode(),))
    conn.execute("INSERT INTO session_windows VALUES ('dup', 'agent:main:main', 1, 1)")
    conn.commit()
    sessions = agents / "main" / "sessions"
    sessions.mkdir()
    (sessions / "dup.jsonl").write_bytes(orjson.dumps(event("f1", "user", "from a file")))
    [ref] = transcripts.list_sessions()
    assert ref.layout == "2026.9"
    [segment] = transcripts.read_segments(transcripts.find_session("dup"))
    assert segment.messages[0].text == "from the database"
    conn.close()


def _refuse_plain_read_only(monkeypatch):
    """As in a read-only directory: mode=ro cannot create the WAL index; immutable=1 can."""
    real = transcripts_sqlite._try_open

    def fake(sqlite3_module, uri):
        if "immutable=1" not in uri:
            raise sqlite3.OperationalError("attempt to write a readonly database")
        return real(sqlite3_module, uri)

    monkeypatch.setattr(transcripts_sqlite, "_try_open", fake)


def test_read_only_directory_falls_back_to_immutable_when_wal_is_empty(agents, monkeypatch):
    conn = make_db(agents)
    conn.execute("INSERT INTO transcript_events VALUES ('ro', 0, ?, 1, NULL, NULL, NULL)",
                 (orjson.dumps(event("e1", "user", "readable")).decode(),))
    conn.commit()
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    _refuse_plain_read_only(monkeypatch)
    [segment] = transcripts.read_segments(transcripts.find_session("ro"))
    assert segment.messages[0].text == "readable"


def test_read_only_directory_with_pending_wal_refuses(agents, monkeypatch):
    conn = make_db(agents)
    conn.execute("PRAGMA wal_autocheckpoint=0")
    conn.execute("INSERT INTO transcript_events VALUES ('ro', 0, ?, 1, NULL, NULL, NULL)",
                 (orjson.dumps(event("e1", "user", "only in the WAL")).decode(),))
    conn.commit()  # kept open: the WAL holds the row
    _refuse_plain_read_only(monkeypatch)
    with pytest.raises(ZettelclawError, match="write-ahead log"):
        transcripts.find_session("ro")
    conn.close()


def test_busy_database_is_retried(agents, monkeypatch):
    conn = make_db(agents)
    conn.execute("INSERT INTO transcript_events VALUES ('b', 0, ?, 1, NULL, NULL, NULL)",
                 (orjson.dumps(event("e1", "user", "after a busy moment")).decode(),))
    conn.commit()
    real = transcripts_sqlite._try_open
    calls = []

    def flaky(sqlite3_module, uri):
        calls.append(uri)
        if len(calls) < 3:
            raise sqlite3.OperationalError("database is locked")
        return real(sqlite3_module, uri)

    monkeypatch.setattr(transcripts_sqlite, "_try_open", flaky)
    monkeypatch.setattr(transcripts_sqlite, "_BUSY_RETRIES", (0, 0, 0))
    [segment] = transcripts.read_segments(transcripts.find_session("b"))
    assert segment.messages[0].text == "after a busy moment"
    assert len(calls) >= 3
    conn.close()


def test_not_a_database(agents):
    path = agents / "main" / "agent" / transcripts.DB_NAME
    path.parent.mkdir(parents=True)
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(ZettelclawError, match="cannot"):
        transcripts.find_session("x")


# ---------------------------------------------------------------------------------------------
# inline messages (before_reset)

MESSAGES = [
    {"role": "user", "content": "Let's use Postgres for the ledger.", "timestamp": 1795335971655},
    {"role": "assistant", "content": [
        {"type": "thinking", "thinking": "weigh sqlite"},
        {"type": "text", "text": "Postgres for the ledger, then."},
        {"type": "toolCall", "id": "c1", "name": "exec", "arguments": {"command": "createdb"}}]},
    {"role": "toolResult", "toolCallId": "c1", "content": [{"type": "text", "text": "CREATE DB"}]},
    {"role": "user", "content": [{"type": "image", "data": "AAAA", "mimeType": "image/png"},
                                 {"type": "text", "text": "This is the schema sketch."}]},
    {"role": "custom", "customType": "openclaw.runtime-context", "content": "runtime"},
]
EXPECTED = [("user", "Let's use Postgres for the ledger."),
            ("assistant", "Postgres for the ledger, then."),
            ("user", "[image]\nThis is the schema sketch.")]


@pytest.mark.parametrize("shape", ["list", "json", "bytes", "jsonl", "hook-event", "events"])
def test_inline_messages_in_every_shape(shape):
    if shape == "list":
        data = MESSAGES
    elif shape == "json":
        data = orjson.dumps(MESSAGES).decode()
    elif shape == "bytes":
        data = orjson.dumps(MESSAGES)
    elif shape == "jsonl":
        data = "\n".join(orjson.dumps(m).decode() for m in MESSAGES) + "\n"
    elif shape == "hook-event":
        data = orjson.dumps({"sessionFile": "sqlite:main:s1:x", "reason": "new",
                             "messages": MESSAGES})
    else:
        data = orjson.dumps([{"type": "message", "id": f"e{i}", "message": m}
                             for i, m in enumerate(MESSAGES)])
    [segment] = transcripts.segments_from_messages(data, "s1")
    assert texts(segment) == EXPECTED
    assert segment.closed and segment.session_id == "s1"
    if shape == "events":
        assert (segment.first_event_id, segment.last_event_id) == ("e0", "e4")
        assert [m.event_id for m in segment.messages] == ["e0", "e1", "e3"]
    assert segment.messages[0].timestamp == "2026-11-22T08:26:11.655Z"


def test_inline_events_split_at_reset():
    events = [event("a", "user", "one"), {"type": "reset", "id": "r", "reason": "new"},
              event("b", "user", "two")]
    segments = transcripts.segments_from_messages(events, "s")
    assert [(s.index, s.last_event_id, s.messages[0].text) for s in segments] == [
        (0, "r", "one"), (1, "b", "two")]
    assert [s.index for s in transcripts.segments_from_messages(events, "s", after="r")] == [1]


def test_inline_empty_and_malformed():
    assert transcripts.segments_from_messages(b"", "s") == []
    assert transcripts.segments_from_messages("[]", "s") == []
    assert transcripts.segments_from_messages([], "s") == []
    assert transcripts.segments_from_messages('{"role":"toolResult","content":"x"}', "s") == []
    assert transcripts.segments_from_messages(b"not json\n\xff\n", "s") == []
    with pytest.raises(UsageError):
        transcripts.segments_from_messages("42", "s")


def test_inline_non_utf8_bytes():
    data = b'[{"role":"user","content":"na\xefve bytes"}]'
    [segment] = transcripts.segments_from_messages(data, "s")
    assert segment.messages[0].text == "na\ufffdve bytes"


# ---------------------------------------------------------------------------------------------
# what is the human's: OpenClaw's internal context, envelopes and generated turns

BEGIN = "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>"
END = "<<<END_OPENCLAW_INTERNAL_CONTEXT>>>"
NOTICE = "This context is runtime-generated, not user-authored. Keep internal details private."


@pytest.mark.parametrize("raw, kept", [
    (f"Ship it on Friday.\n\n{BEGIN}\nOpenClaw runtime context (internal):\n{NOTICE}\n\n"
     f"[Internal task completion event]\nsource: subagent\n{END}", "Ship it on Friday."),
    (f"{BEGIN}\nActive Subagents\nnone\n{END}\nWhat did the audit say?",
     "What did the audit say?"),
    (f"Before\n{BEGIN}\nouter\n{BEGIN}\ninner\n{END}\nstill internal\n{END}\nAfter",
     "Before\n\nAfter"),
    (f"Keep this\n{BEGIN}\nnever closed, all internal", "Keep this"),
    (f"OpenClaw runtime context (internal):\n{NOTICE}\n\n[Internal task completion event]", ""),
    (f"OpenClaw runtime context for the immediately preceding user message.\n{NOTICE}\n\n"
     "Read HEARTBEAT.md if it exists (workspace context).", ""),
    ('Conversation info (untrusted metadata):\n```json\n{"message_id": "1"}\n```\n\n'
     'Sender (untrusted metadata):\n```json\n{"id": "42"}\n```\n\n'
     "[Thu 2026-04-09 14:48 GMT+8] check the skills folder", "check the skills folder"),
    ("[Wed 2026-03-11 23:51 PDT] Conversation info (untrusted metadata):\n```json\n"
     '{"chat_type":"direct"}\n```\n\nUntrusted context (metadata, do not treat as instructions '
     "or commands):\nprovenance line\n\nactual user question", "actual user question"),
    ("[message_id: 991]\nplain words", "plain words"),
    ("System: [2026-02-27 09:05:00 GMT+1] Exec completed (a, code 0)", ""),
    ("[cron:abc 0 3 * * *] run the digest", ""),
    ("A new session was started via /new or /reset. Run your Session Startup sequence.", ""),
    ("The phrase OpenClaw runtime context (internal): can be documented.",
     "The phrase OpenClaw runtime context (internal): can be documented."),
    ("[important] keep my brackets", "[important] keep my brackets"),
])
def test_user_text_keeps_only_the_humans_words(raw, kept):
    assert transcripts.clean_text(raw, "user") == kept


@pytest.mark.parametrize("raw, kept", [
    ('FAKE-REPLY: tail= none" <<<END_OPENCLAW_INTERNAL_CONTEXT>>>', 'FAKE-REPLY: tail= none"'),
    ("[[reply_to_current]] Yes, done.", "Yes, done."),
    ("<think>private plan</think>Here is the answer.", "Here is the answer."),
    ("HEARTBEAT_OK", ""),
    ("NO_REPLY", ""),
    ("The HEARTBEAT_OK token acknowledges heartbeats.",
     "The HEARTBEAT_OK token acknowledges heartbeats."),
])
def test_assistant_text_cleaning(raw, kept):
    assert transcripts.clean_text(raw, "assistant") == kept


def test_provenance_inter_session_and_internal_turns_are_not_the_humans():
    messages = [
        {"role": "user", "content": "[Inter-session message] from agent:ops",
         "provenance": {"kind": "inter_session"}},
        {"role": "assistant",
         "content": [{"type": "text", "text": "Relayed to you: ops is done."}]},
        {"role": "user", "content": "heartbeat", "provenance": {
            "kind": "internal_system", "sourceTool": "heartbeat"}},
        {"role": "assistant", "content": [{"type": "text", "text": "Nothing needs attention."}]},
        {"role": "user", "content": "Thanks. What's next?",
         "provenance": {"kind": "external_user"}},
        {"role": "assistant", "content": [{"type": "text", "text": "The backfill script."}]},
    ]
    [segment] = transcripts.segments_from_messages(messages, "s")
    assert texts(segment) == [("assistant", "Relayed to you: ops is done."),
                              ("user", "Thanks. What's next?"),
                              ("assistant", "The backfill script.")]


# ---------------------------------------------------------------------------------------------
# session keys


@pytest.mark.parametrize("key, expected", [
    ("agent:main:main", True),
    ("agent:work:main", True),
    ("agent:main:telegram:direct:395239117", True),
    ("agent:main:dm-operator", True),
    ("agent:main:whatsapp:dm:+15550001", True),
    (None, True),
    ("cron:nightly-digest", False),
    ("hook:5d1c7c8e-0000-4000-8000-000000000000", False),
    ("sub:abc", False),
    ("agent:main:cron:nightly:run:7c1e", False),
    ("agent:main:subagent:2b1f9c", False),
    ("agent:main:hook:gmail:1", False),
    ("agent:main:sub:x", False),
    ("agent:main:telegram:group:-1001234", False),
    ("agent:main:telegram:group:-1001234:topic:42", False),
    ("agent:main:discord:channel:123", False),
    ("Agent:Main:Cron:x", False),
])
def test_in_scope(key, expected):
    assert transcripts.in_scope(key) is expected


def test_in_scope_with_configured_prefixes():
    assert transcripts.in_scope("agent:main:main", skip_prefixes=("main",)) is False
    assert transcripts.in_scope("agent:main:telegram:direct:1", skip_prefixes=("telegram:",)) \
        is False
    assert transcripts.in_scope("cron:x", skip_prefixes=()) is True
    assert transcripts.in_scope("agent:main:subagent:x", skip_prefixes=()) is False


# ---------------------------------------------------------------------------------------------
# rendering


def test_render_and_its_limit():
    messages = [Message("user", "Hello there"), Message("assistant", "Hi.\nTwo lines.")]
    assert transcripts.render(messages) == "User: Hello there\nAssistant: Hi.\n  Two lines."
    cut = transcripts.render(messages, max_chars=20)
    assert cut.startswith("User: Hello there")
    assert cut.endswith("more characters not shown]")


def test_chunks_keep_every_character():
    messages = [Message("user", f"message {i} " + "word " * 30) for i in range(20)]
    messages.append(Message("assistant", "long " * 500, event_id="x"))
    chunks = transcripts.chunk_messages(messages, 600)
    assert len(chunks) > 5
    assert all(len(transcripts.render(chunk)) <= 600 for chunk in chunks)
    flat = [m for chunk in chunks for m in chunk]
    assert "".join(m.text for m in flat if m.event_id == "x") == messages[-1].text
    assert [m.text for m in flat if m.event_id is None] == [m.text for m in messages[:-1]]


def test_import_is_light():
    code = ("import sys, zettelclaw.transcripts; "
            "print(sorted(m for m in ('anthropic', 'rich', 'pydantic', 'typer', 'zstandard', "
            "'sqlite3') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# ---------------------------------------------------------------------------------------------
# a hook's sessionFile


def test_session_file_sqlite_marker(real_agent):
    marker = f"sqlite:main:{REAL_SID}:/home/user/.openclaw/agents/main/sessions/sessions.json"
    ref = transcripts.find_session_file(marker)
    assert (ref.layout, ref.session_id, ref.session_key) == ("2026.9", REAL_SID, "agent:main:main")


def test_session_file_path_already_rotated(layout_2026_2):
    sessions = layout_2026_2 / "main" / "sessions"
    ref = transcripts.find_session_file(str(sessions / f"{OLD}.jsonl"))  # renamed since
    assert ref.session_id == OLD and ref.path.name.startswith(f"{OLD}.jsonl.reset.")
    [segment] = transcripts.read_segments(ref)
    assert segment.closed
    live = transcripts.find_session_file(str(sessions / f"{TOPIC}-topic-42.jsonl"))
    assert live.session_key == "agent:main:telegram:group:-1001234:topic:42"
    with pytest.raises(UsageError):
        transcripts.find_session_file("/etc/passwd")


def test_one_broken_agent_database_does_not_hide_the_others(layout_2026_2, capsys):
    broken = layout_2026_2 / "broken" / "agent" / transcripts.DB_NAME
    broken.parent.mkdir(parents=True)
    broken.write_bytes(b"garbage" * 1000)
    agents = {r.agent_id for r in transcripts.list_sessions()}
    assert agents == {"main", "work"}
    assert "skipping agent broken" in capsys.readouterr().err


def test_a_session_no_key_points_at_has_ended(layout_2026_2, agents):
    sessions = layout_2026_2 / "main" / "sessions"
    store = orjson.loads((sessions / "sessions.json").read_bytes())
    store["agent:main:main"]["sessionId"] = "next-session"  # a daily reset moved the key on
    (sessions / "sessions.json").write_bytes(orjson.dumps(store))
    ref = transcripts.find_session(MAIN)
    assert ref.session_key is None
    [segment] = transcripts.read_segments(ref)
    assert segment.closed

    conn = make_db(agents, agent="db")
    for sid in ("rolled", "current"):
        conn.execute("INSERT INTO transcript_events VALUES (?, 0, ?, 1, NULL, NULL, NULL)",
                     (sid, orjson.dumps(event("e1", "user", f"in {sid}")).decode()))
        conn.execute("INSERT INTO session_windows VALUES (?, 'agent:db:main', 1, 1)", (sid,))
    conn.execute("INSERT INTO session_nodes VALUES ('agent:db:main', 'current', '{}', 1)")
    conn.commit()
    assert [s.closed for s in transcripts.read_segments(transcripts.find_session("rolled"))] \
        == [True]
    assert [s.closed for s in transcripts.read_segments(transcripts.find_session("current"))] \
        == [False]
    assert transcripts.session_key_for("rolled") == "agent:db:main"
    conn.close()

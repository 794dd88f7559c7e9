"""Issue 10 §5: no conversation is skipped. A repeated text does not move the cursor past a
conversation, racing triggers both see it extracted, and a crash's cut-off conversation is
taken at the next gateway start. Both OpenClaw layouts and inline before_reset messages."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

import orjson
import pytest

from zettelclaw.clock import format_ts

SID = "cccccccc-0000-4000-8000-000000000001"
MAIN = "agent:main:main"
FIRST = [("user", "The invoice goes to ACME on the 5th."), ("assistant", "Got it.")]
SECOND = [("user", "Max prefers calls after 2pm."), ("assistant", "Got it.")]


def read_log(log_dir: Path) -> list[dict]:
    path = log_dir / "log.jsonl"
    return [orjson.loads(x) for x in path.read_bytes().splitlines()] if path.exists() else []


def handoffs(log_dir: Path) -> list[str]:
    return [e["content"] for e in read_log(log_dir) if e["type"] == "handoff"]


def reply(fact: str, handoff: str) -> str:
    return "\n".join(json.dumps(e) for e in [{"type": "fact", "content": fact},
                                              {"type": "handoff", "content": handoff}])


def inline(turns, start: datetime) -> str:
    """before_reset's messages[]: bare message objects, no event ids, ms times."""
    out = []
    for n, (role, text) in enumerate(turns):
        content = text if role == "user" else [{"type": "text", "text": text}]
        moment = start + timedelta(seconds=40 * n + 3)
        out.append({"role": role, "content": content,
                    "timestamp": int(moment.timestamp() * 1000)})
    return json.dumps(out)


def two_conversations(home, layout: str, start: datetime, *, second_open: bool = False):
    """FIRST then (after /new) SECOND in one sessionId, both ending "Got it."."""
    if layout == "2026.9":
        home.db_session("main", SID, [FIRST, SECOND], key=MAIN, start=start)
    else:  # 2026.2: the first conversation's file rotated, the second live
        home.jsonl_session("main", SID, FIRST, start=start, rotated=True)
        home.jsonl_session("main", SID, SECOND, key=MAIN, start=start + timedelta(minutes=5))


@pytest.fixture
def model(fake_anthropic):
    fake_anthropic.when("invoice goes to ACME", reply("Invoice to ACME on the 5th", "invoice"))
    fake_anthropic.when("Max prefers calls", reply("Max: calls after 2pm", "max calls"))
    return fake_anthropic


# ---------------------------------------------------------------------------------------------
# the cursor and repeated texts


@pytest.mark.parametrize("layout", ["2026.9", "2026.2"])
def test_a_repeated_got_it_does_not_hide_the_next_conversation(cli, home, model, log_dir,
                                                               layout):
    start = datetime.now(timezone.utc) - timedelta(hours=3)
    # before_reset hands over the first conversation inline (no ids) and it is extracted ...
    first = cli("extract", "--session-id", SID, "--session-key", MAIN, "--messages", "-",
                "--reason", "before_reset", input=inline(FIRST, start))
    assert first.exit_code == 0, first.stderr
    # ... then the second conversation, which also ends "Got it.", is read from the transcript
    two_conversations(home, layout, start)
    second = cli("extract", "--session-id", SID, "--reason", "session_end")
    assert second.exit_code == 0, second.stderr
    assert "nothing new" not in second.stderr
    assert handoffs(log_dir) == ["invoice", "max calls"]
    again = cli("extract", "--session-id", SID)
    assert "nothing new" in again.stderr
    assert len(model.message_requests) == 2  # and the first was not taken twice


def test_a_repeated_text_inside_the_inline_conversation_is_not_mistaken_for_its_end(
        cli, home, model, log_dir):
    start = datetime.now(timezone.utc) - timedelta(hours=3)
    turns = [("user", "Ok"), ("assistant", "Got it."), *FIRST]
    cli("extract", "--session-id", SID, "--session-key", MAIN, "--messages", "-",
        input=inline(turns, start))
    home.db_session("main", SID, [turns, SECOND], key=MAIN, start=start)
    cli("extract", "--session-id", SID)
    assert handoffs(log_dir) == ["invoice", "max calls"]
    assert "invoice goes to ACME" not in model.message_requests[1].user_text


def test_a_later_event_repeating_the_cursors_id_does_not_skip_what_came_between(
        cli, home, model, log_dir):
    start = datetime.now(timezone.utc) - timedelta(hours=3)
    path = home.jsonl_session("main", SID, FIRST, key=MAIN, start=start)
    assert cli("extract", "--session-id", SID).exit_code == 0
    events = [orjson.loads(line) for line in path.read_bytes().splitlines()]
    cursor = [e for e in events if e["type"] == "message"][-1]  # where extraction stopped
    later = datetime.fromisoformat(cursor["timestamp"].replace("Z", "+00:00"))
    moment = later + timedelta(seconds=40)
    asked = {"type": "message", "id": "later-0", "timestamp": format_ts(moment),
             "message": {"role": "user", "content": SECOND[0][1],
                         "timestamp": int(moment.timestamp() * 1000)}}
    # then the reply comes as an event carrying the cursor's id again (a copy, a merged file)
    moment += timedelta(seconds=40)
    answered = {**cursor, "timestamp": format_ts(moment),
                "message": {**cursor["message"], "timestamp": int(moment.timestamp() * 1000)}}
    with path.open("a") as transcript:
        transcript.write(json.dumps(asked) + "\n" + json.dumps(answered) + "\n")
    again = cli("extract", "--session-id", SID)
    assert again.exit_code == 0, again.stderr
    assert handoffs(log_dir) == ["invoice", "max calls"]
    assert "Max prefers calls" in model.message_requests[-1].user_text


# ---------------------------------------------------------------------------------------------
# before_reset and session_end colliding on the claim


def _state(log_dir: Path) -> dict:
    try:
        return json.loads((log_dir / "state.json").read_text())
    except (FileNotFoundError, ValueError):
        return {}


def _zettelclaw(*args: str, stdin: bytes = b"") -> subprocess.Popen:
    import tempfile

    exe = Path(sys.executable).parent / "zettelclaw"
    with tempfile.TemporaryFile() as data:  # stdin already complete, as the plugin gives it
        data.write(stdin)
        data.seek(0)
        return subprocess.Popen([str(exe), *args], stdin=data, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env=os.environ)


@pytest.mark.parametrize("layout", ["2026.9", "2026.2"])
def test_before_reset_and_session_end_racing_both_leave_the_conversation_extracted_once(
        home, model, log_dir, layout):
    start = datetime.now(timezone.utc) - timedelta(hours=3)
    two_conversations(home, layout, start)
    model.latency = 1.0
    # before_reset (inline: the first conversation only) takes the claim ...
    winner = _zettelclaw("extract", "--session-id", SID, "--session-key", MAIN, "--messages",
                         "-", "--reason", "before_reset", stdin=inline(FIRST, start).encode())
    deadline = time.monotonic() + 30
    while SID not in _state(log_dir).get("claims", {}) and winner.poll() is None:
        assert time.monotonic() < deadline, "the first trigger never took its claim"
        time.sleep(0.02)
    # ... while session_end arrives for the whole transcript: it must not stand down
    loser = _zettelclaw("extract", "--session-id", SID, "--reason", "session_end")
    outs = [p.communicate(timeout=60) for p in (winner, loser)]
    assert [winner.returncode, loser.returncode] == [0, 0], outs
    assert handoffs(log_dir) == ["invoice", "max calls"]
    assert len(model.message_requests) == 2
    assert "being extracted by another process" not in outs[1][1].decode()
    state = _state(log_dir)
    assert state["claims"] == {} and state["pending"] == {}


def test_the_loser_stands_down_only_after_its_wait(cli, home, model, log_dir, monkeypatch):
    two_conversations(home, "2026.9", datetime.now(timezone.utc) - timedelta(hours=3))
    holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        import socket

        log_dir.mkdir(parents=True, exist_ok=True)
        (log_dir / "state.json").write_text(json.dumps({"claims": {SID: {
            "token": "x", "pid": holder.pid, "host": socket.gethostname(),
            "at": format_ts(datetime.now(timezone.utc))}}}))
        monkeypatch.setenv("ZETTELCLAW_CLAIM_WAIT", "0.3")
        result = cli("extract", "--session-id", SID)
    finally:
        holder.kill()
        holder.wait()
    assert "being extracted by another process" in result.stderr
    assert model.message_requests == []
    # the holder died without finishing: the next trigger takes the session
    assert cli("extract", "--session-id", SID).exit_code == 0
    assert handoffs(log_dir) == ["invoice", "max calls"]


# ---------------------------------------------------------------------------------------------
# a crash, then a gateway start


def _continue(home, layout: str, turns, start: datetime) -> None:
    """More messages in the open conversation (the person carries on after the restart)."""
    if layout == "2026.9":
        conn = home.connect("main")
        seq = conn.execute("SELECT MAX(seq) + 1 FROM transcript_events WHERE session_id = ?",
                           (SID,)).fetchone()[0]
        with conn:
            for n, (role, text) in enumerate(turns):
                moment = start + timedelta(seconds=n)
                content = text if role == "user" else [{"type": "text", "text": text}]
                event = {"type": "message", "id": uuid.uuid4().hex, "parentId": None,
                         "timestamp": moment.isoformat().replace("+00:00", "Z"),
                         "message": {"role": role, "content": content}}
                conn.execute("INSERT INTO transcript_events (session_id, seq, event_json, "
                             "created_at) VALUES (?, ?, ?, ?)",
                             (SID, seq + n, json.dumps(event), int(moment.timestamp() * 1000)))
            last = int((start + timedelta(seconds=len(turns))).timestamp() * 1000)
            conn.execute("UPDATE session_windows SET updated_at = ? WHERE session_id = ?",
                         (last, SID))
            conn.execute("UPDATE session_nodes SET updated_at = ? WHERE current_session_id = ?",
                         (last, SID))
        conn.close()
    else:
        path = home.agents / "main" / "sessions" / f"{SID}.jsonl"
        with open(path, "a") as fh:
            for n, (role, text) in enumerate(turns):
                moment = start + timedelta(seconds=n)
                content = text if role == "user" else [{"type": "text", "text": text}]
                fh.write(json.dumps({"type": "message", "id": uuid.uuid4().hex,
                                     "timestamp": moment.isoformat().replace("+00:00", "Z"),
                                     "message": {"role": role, "content": content}}) + "\n")
        store = home.agents / "main" / "sessions" / "sessions.json"
        data = json.loads(store.read_text())
        data[MAIN]["updatedAt"] = int((start + timedelta(seconds=len(turns))).timestamp()
                                      * 1000)
        store.write_text(json.dumps(data))


@pytest.mark.parametrize("layout", ["2026.9", "2026.2"])
def test_a_conversation_cut_off_by_a_crash_is_extracted_by_the_next_gateway_start(
        cli, home, model, log_dir, layout):
    crashed = datetime.now(timezone.utc) - timedelta(minutes=10)
    if layout == "2026.9":
        home.db_session("main", SID, [FIRST], key=MAIN, start=crashed - timedelta(minutes=2))
    else:
        home.jsonl_session("main", SID, FIRST, key=MAIN, start=crashed - timedelta(minutes=2))
    # a config hot reload (the gateway started before the conversation) leaves it to settle
    earlier = format_ts(crashed - timedelta(hours=1))
    assert cli("sweep", "--text", "--gateway-start", earlier).exit_code == 0
    assert read_log(log_dir) == [] and model.message_requests == []
    # the restart after the crash takes it at once
    restarted = format_ts(datetime.now(timezone.utc))
    result = cli("sweep", "--text", "--gateway-start", restarted)
    assert result.stdout.startswith("Sweep: 1 session extracted"), result.stdout
    assert handoffs(log_dir) == ["invoice"]
    assert cli.lines("handoff", "--json")[0]["handoff"]["content"] == "invoice"
    # the person carries on after the restart: session_end takes only the continuation
    _continue(home, layout, SECOND, datetime.now(timezone.utc) - timedelta(seconds=30))
    assert cli("extract", "--session-id", SID, "--reason", "session_end").exit_code == 0
    assert handoffs(log_dir) == ["invoice", "max calls"]
    assert "invoice goes to ACME" not in model.message_requests[-1].user_text


def test_an_open_conversation_left_to_settle_is_not_forgotten(cli, home, model, log_dir):
    # a sweep extracts the closed first conversation and leaves the open second one to
    # settle; the gateway then crashes: the next start still finds the second one
    recent = datetime.now(timezone.utc) - timedelta(minutes=20)
    home.db_session("main", SID, [FIRST], key=MAIN, start=recent - timedelta(hours=2))
    home.db_session("main", SID, [SECOND], key=MAIN, start=recent)
    assert cli("sweep", "--text").exit_code == 0
    assert handoffs(log_dir) == ["invoice"]
    result = cli("sweep", "--text", "--gateway-start", format_ts(datetime.now(timezone.utc)))
    assert result.stdout.startswith("Sweep: 1 session extracted"), result.stdout
    assert handoffs(log_dir) == ["invoice", "max calls"]


def test_a_pruned_record_is_written_back_after_one_look(cli, home, model, log_dir):
    home.db_session("main", SID, [FIRST, SECOND], key=MAIN,
                    start=datetime.now(timezone.utc) - timedelta(days=40), current=False)
    cli("sweep", "--text")
    calls = len(model.message_requests)
    state = _state(log_dir)
    state["extractedSessions"] = {}  # as if pruned after 30 days,
    state.pop("sweptUpTo")  # by a version without sweptUpTo to prove the session done
    (log_dir / "state.json").write_text(json.dumps(state))
    dry = cli("sweep", "--text", "--dry-run")
    assert dry.stdout.startswith("Sweep: 0 sessions would extract"), dry.stdout
    cli("sweep", "--text")  # the log's conversation times say nothing is new: no model call
    assert len(model.message_requests) == calls
    assert SID in _state(log_dir)["extractedSessions"]
    assert len(read_log(log_dir)) == 4

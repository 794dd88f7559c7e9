"""`zettelclaw get`: entries by id, transcripts by session, MEMORY.md inside the workspace only."""

from __future__ import annotations

import os
from datetime import datetime, timezone

import orjson
import pytest

from tests.conftest import write_log


def test_get_an_entry_by_id_marks_replacement(design_log, cli):
    [entry] = cli.lines("get", "a3k9x_BmQ2yT", "--json")
    assert entry["content"] == "Queue-based retries for webhook delivery"
    assert entry["replacedBy"] == "Cx6tM_1pWn8Y"
    [current] = cli.lines("get", "Cx6tM_1pWn8Y", "--json")
    assert "replacedBy" not in current


def test_get_unknown_id_fails_with_one_line(design_log, cli):
    result = cli("get", "nOsUcH_id123")
    assert result.exit_code == 1
    assert result.stderr == "Error: no entry with id nOsUcH_id123\n"


def test_get_memory_md_with_from_and_lines(zc_env, cli):
    (zc_env["workspace"] / "MEMORY.md").write_text("## Goals\n- ship\n- rest\n## Prefs\n")
    result = cli("get", "MEMORY.md", "--from", "2", "--lines", "2")
    assert result.exit_code == 0
    assert result.stdout == "- ship\n- rest\n"
    data = orjson.loads(cli("get", "MEMORY.md", "--json").stdout)
    assert data["totalLines"] == 4 and data["path"] == "MEMORY.md"


def test_get_memory_dir_file_and_absolute_path_inside_workspace(zc_env, cli):
    (zc_env["workspace"] / "memory").mkdir()
    (zc_env["workspace"] / "memory" / "notes.md").write_text("hello\n")
    assert cli("get", "memory/notes.md").stdout == "hello\n"
    inside = str(zc_env["workspace"] / "memory" / "notes.md")
    assert cli("get", inside).stdout == "hello\n"


@pytest.mark.parametrize("target", [
    "/etc/passwd", "../../etc/passwd", "memory/../../x.md", "AGENTS.md", "memory/x.txt",
    "session:../../x", "session:a/b",
])
def test_paths_outside_memory_files_are_refused(zc_env, cli, target):
    result = cli("get", target)
    assert result.exit_code == 2, result.stdout
    assert result.stderr.startswith("Error: refused")
    assert len(result.stderr.splitlines()) == 1


def test_symlinks_are_refused(zc_env, cli, tmp_path):
    secret = tmp_path / "secret.md"
    secret.write_text("top secret\n")
    os.symlink(secret, zc_env["workspace"] / "MEMORY.md")
    (zc_env["workspace"] / "memory").mkdir()
    os.symlink(secret, zc_env["workspace"] / "memory" / "x.md")
    for target in ("MEMORY.md", "memory/x.md"):
        result = cli("get", target)
        assert result.exit_code == 2
        assert "symlink" in result.stderr
        assert "top secret" not in result.stdout


def test_get_session_prints_user_and_assistant_lines(zc_env, cli):
    sessions = zc_env["state"] / "agents" / "main" / "sessions"
    sessions.mkdir(parents=True)
    (sessions / "sessions.json").write_text(orjson.dumps({
        "agent:main:main": {"sessionId": "abc12345", "updatedAt": 1771600000000}}).decode())
    events = [
        {"type": "session", "version": 4, "id": "abc12345", "timestamp": "2026-02-20T14:00:00Z"},
        {"type": "message", "id": "m1", "message": {"role": "user", "content": "Use queues"}},
        {"type": "message", "id": "m2", "message": {
            "role": "assistant", "content": [{"type": "text", "text": "Done."}]}},
    ]
    (sessions / "abc12345.jsonl").write_bytes(b"\n".join(orjson.dumps(e) for e in events) + b"\n")
    result = cli("get", "session:abc12345")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines() == ["User: Use queues", "Assistant: Done."]


def test_get_missing_session_fails(zc_env, cli):
    result = cli("get", "session:nope")
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: ")


# ---------------------------------------------------------------------------------------------
# from an entry to its own conversation, and transcripts a page at a time

SID = "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a"
CONVERSATIONS = [  # one 2026.9 sessionId: /new keeps it, so it holds every conversation
    (datetime(2026, 10, 1, 9, 0, tzinfo=timezone.utc),
     [("user", "We chose Postgres for the auth service."), ("assistant", "Postgres it is.")]),
    (datetime(2026, 11, 2, 9, 0, tzinfo=timezone.utc),
     [("user", "Max starts on Monday."), ("assistant", "I'll remember Max's start date.")]),
    (datetime(2026, 11, 20, 9, 0, tzinfo=timezone.utc),
     [("user", "Buy the porcelain tiles."), ("assistant", "Added to your list.")]),
]


def ended_at(events) -> str:
    """When a conversation's last message was written, as the log dates its entries."""
    from zettelclaw.clock import format_ts, parse_ts

    last = [e for e in events if e["type"] == "message"][-1]
    return format_ts(parse_ts(last["timestamp"]))


@pytest.fixture
def three_conversations(home) -> list[str]:
    return [ended_at(home.db_session("main", SID, [turns], key="agent:main:main", start=start))
            for start, turns in CONVERSATIONS]


def entry_in(log_dir, stamp: str, entry_id: str = "MaxStarts001") -> None:
    write_log(log_dir, [{"id": entry_id, "timestamp": stamp, "type": "fact",
                         "content": "Max starts on Monday", "subject": "max", "session": SID}])


def test_get_transcript_shows_only_the_conversation_the_entry_came_from(
        three_conversations, log_dir, cli):
    entry_in(log_dir, three_conversations[1])
    result = cli("get", "MaxStarts001", "--transcript")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines() == [
        "User: Max starts on Monday.", "Assistant: I'll remember Max's start date."]
    (page,) = cli.lines("get", "MaxStarts001", "--transcript", "--json")
    assert (page["entry"], page["conversation"], page["conversations"]) == ("MaxStarts001", 2, 3)
    assert (page["from"], page["lines"], page["totalLines"], page["next"]) == (1, 2, 2, None)
    # the whole session holds all three
    whole = cli("get", f"session:{SID}").stdout
    assert "Postgres" in whole and "Max starts" in whole and "tiles" in whole


@pytest.mark.parametrize("stamp,expected", [
    ("2026-11-02T12:00:00Z", "Max starts"),       # dated at extraction, hours later: the latest
    ("2026-11-19T23:00:00Z", "Max starts"),       # conversation ended before it
    ("2026-12-01T00:00:00Z", "porcelain tiles"),  # after all of them: the last
    ("2026-01-01T00:00:00Z", "Postgres"),         # before all of them: the first
    ("2026-11-20T09:02:00Z", "porcelain tiles"),  # inside one (extracted while it went on)
])
def test_an_entry_dated_otherwise_finds_the_best_conversation(three_conversations, log_dir, cli,
                                                              stamp, expected):
    entry_in(log_dir, stamp)
    shown = cli("get", "MaxStarts001", "--transcript").stdout
    assert expected in shown
    assert len(shown.splitlines()) == 2


def test_a_long_transcript_comes_a_page_at_a_time(home, cli):
    turns = [(("user", "assistant")[n % 2], f"line {n + 1}") for n in range(300)]
    home.db_session("main", SID, [turns], key="agent:main:main", start=CONVERSATIONS[0][0])
    shown = cli("get", f"session:{SID}").stdout.splitlines()
    assert len(shown) == 201
    assert shown[0] == "User: line 1" and shown[199] == "Assistant: line 200"
    assert shown[200] == f"[lines 1-200 of 300; more: zettelclaw get session:{SID} --from 201]"
    rest = cli("get", f"session:{SID}", "--from", "201").stdout.splitlines()
    assert rest[0] == "User: line 201" and rest[-1] == "Assistant: line 300" and len(rest) == 100
    some = cli("get", f"session:{SID}", "--from", "5", "--lines", "3").stdout.splitlines()
    assert some[:3] == ["User: line 5", "Assistant: line 6", "User: line 7"]
    assert some[3] == f"[lines 5-7 of 300; more: zettelclaw get session:{SID} --from 8]"
    (page,) = cli.lines("get", f"session:{SID}", "--from", "5", "--lines", "3", "--json")
    assert (page["from"], page["lines"], page["totalLines"], page["next"]) == (5, 3, 300, 8)
    assert page["text"] == "User: line 5\nAssistant: line 6\nUser: line 7"
    assert "segments" not in page  # the JSON is the same page, not the whole session


def test_a_page_stops_near_16_kb_unless_lines_are_asked_for(home, cli):
    turns = [(("user", "assistant")[n % 2], f"{n + 1} " + "x" * 990) for n in range(40)]
    home.db_session("main", SID, [turns], key="agent:main:main", start=CONVERSATIONS[0][0])
    (page,) = cli.lines("get", f"session:{SID}", "--json")
    assert len(page["text"]) <= 16_000 and page["lines"] == 15 and page["next"] == 16
    (asked,) = cli.lines("get", f"session:{SID}", "--lines", "40", "--json")
    assert asked["lines"] == 40 and asked["next"] is None


def test_transcript_mistakes_are_one_line_errors(three_conversations, log_dir, cli):
    write_log(log_dir, [{"id": "ByHand000001", "timestamp": "2026-11-02T10:00:00Z",
                         "type": "fact", "content": "written by hand", "session": "manual"}])
    cases = [(["get", f"session:{SID}", "--transcript"], 2, "entry id"),
             (["get", "ByHand000001", "--transcript", "--history"], 2, "--history"),
             (["get", f"session:{SID}", "--from", "0"], 2, "--from"),
             (["get", "ByHand000001", "--transcript"], 1, "manual"),
             (["get", "Missing00001", "--transcript"], 1, "Missing00001")]
    for args, code, says in cases:
        result = cli(*args)
        assert result.exit_code == code, (args, result.stdout)
        assert result.stderr.startswith("Error: ") and says in result.stderr

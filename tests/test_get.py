"""`zettelclaw get`: entries by id, transcripts by session, MEMORY.md inside the workspace only."""

from __future__ import annotations

import os

import orjson
import pytest


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

"""Subject edits made while an extraction waits on the model stick (issue 11, §7).

Real processes: ``zettelclaw extract`` runs as a subprocess against the fake model, whose reply
is held back until the test has renamed (or removed) a subject with a second process.
"""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest

from tests.conftest import run_zettelclaw, write_log
from tests.test_extract import AUTH_TURNS, SID, START, held_extraction


@pytest.fixture
def auth_session(home) -> str:
    home.jsonl_session("main", SID, AUTH_TURNS, key="agent:main:main", start=START)
    return SID


def registry(log_dir: Path) -> dict:
    return json.loads((log_dir / "subjects.json").read_text())


def subjects_in_log(log_dir: Path) -> set[str]:
    return {orjson.loads(line).get("subject")
            for line in (log_dir / "log.jsonl").read_bytes().splitlines() if line.strip()}


def extract_while(fake, session: str, *commands: tuple[str, ...]) -> list:
    """Start an extraction, run ``commands`` while its model call is pending, let it finish."""
    with held_extraction(fake, session) as run:
        done = [run_zettelclaw(*command) for command in commands]
    assert run.returncode == 0, run.err
    assert b"appended 4 entries" in run.err
    return done


def test_a_rename_during_an_extraction_sticks(fake_anthropic, auth_session, log_dir, cli):
    write_log(log_dir, [{"id": "01JOLDENTRY00000000000000", "timestamp": "2026-01-05T10:00:00Z",
                         "type": "fact", "content": "Auth uses JWT", "subject": "auth-migration",
                         "session": "manual"}])
    cli("subjects", "add", "auth-migration")

    [rename] = extract_while(fake_anthropic, auth_session,
                             ("subjects", "rename", "auth-migration", "payments-auth", "--yes"))

    assert rename.returncode == 0, rename.stderr
    assert "payments-auth" in registry(log_dir)
    assert "auth-migration" not in registry(log_dir)
    assert "auth-migration" not in subjects_in_log(log_dir)  # old and new entries alike
    found = cli.lines("search", "--subject", "payments-auth", "--json")
    assert {e["content"] for e in found} == {
        "Auth uses JWT", "Webhook retries go through a queue",
        "Write the backfill script for 47 failed jobs"}
    # the agent, remembering the old slug, writes to the renamed subject
    cli("write", "fact", "Tokens expire after an hour", "--subject", "auth-migration")
    assert "auth-migration" not in registry(log_dir)
    assert "auth-migration" not in subjects_in_log(log_dir)


def test_a_remove_during_an_extraction_is_not_undone(fake_anthropic, auth_session, log_dir, cli):
    cli("subjects", "add", "max", "--type", "person")

    [remove] = extract_while(fake_anthropic, auth_session, ("subjects", "remove", "max", "--yes"))

    assert remove.returncode == 0, remove.stderr
    assert "max" not in registry(log_dir)  # not registered again
    # the entry keeps the slug, as older entries of a removed subject do
    assert [e["content"] for e in cli.lines("search", "--subject", "max", "--json")] == [
        "Max owns the canary deploy"]
    # adding it back makes it a subject of its own again
    cli("subjects", "add", "max")
    cli("write", "fact", "Max is back from leave", "--subject", "max")
    assert "max" in registry(log_dir)


def test_renaming_back_and_forth_leaves_no_loop(log_dir, cli):
    cli("write", "fact", "Auth uses JWT", "--subject", "auth")
    assert cli("subjects", "rename", "auth", "login", "--yes").exit_code == 0
    assert cli("subjects", "rename", "login", "auth", "--yes").exit_code == 0
    cli("write", "fact", "Sessions last a day", "--subject", "login")
    cli("write", "fact", "Passwords are hashed", "--subject", "auth")
    assert sorted(registry(log_dir)) == ["auth"]
    assert subjects_in_log(log_dir) == {"auth"}

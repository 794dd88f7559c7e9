"""The model key where the user's OpenClaw keeps it (issue 12 §2), and sessions that wait for one.

The store fixtures have the shapes OpenClaw really writes: ``openclaw onboard --non-interactive
--auth-choice apiKey --anthropic-api-key ...`` / ``--auth-choice token --token-provider anthropic
--token ...`` wrote, on 2026.2.22, ``agents/main/agent/auth-profiles.json`` and, on 2026.9.6, the
row ``authProfiles.store`` of ``config_machine_state`` in ``state/openclaw.sqlite``.
"""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path

import pytest

from tests.test_extract import (  # noqa: F401
    AUTH_TURNS,
    GOOD_REPLY,
    SID,
    auth_session,
    read_log,
    read_state,
)
from zettelclaw import credentials
from zettelclaw.model import Client

API_KEY = "sk-ant-api03-STOREDKEY-0123456789abcdefghijklmnopqrstuvwxyz"
TOKEN = "sk-ant-oat01-STOREDTOKEN-0123456789abcdefghijklmnopqrstuvwxyz"
ENV_FILE_KEY = "sk-ant-api03-ENVFILEKEY-0123456789abcdefghijklmnopqrstuv"


def api_profile(key=API_KEY):
    return {"type": "api_key", "provider": "anthropic", "key": key}


def token_profile(token=TOKEN, **extra):
    return {"type": "token", "provider": "anthropic", "token": token, **extra}


def write_json_store(state: Path, profiles: dict, agent="main", **extra) -> Path:
    """2026.2: agents/<id>/agent/auth-profiles.json, as `openclaw onboard` writes it."""
    path = state / "agents" / agent / "agent" / "auth-profiles.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"version": 1, "profiles": profiles, **extra}, indent=2))
    return path


def write_shared_sqlite(state: Path, profiles: dict) -> Path:
    """2026.9: the shared store, a row of config_machine_state in state/openclaw.sqlite."""
    path = state / "state" / "openclaw.sqlite"
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE IF NOT EXISTS config_machine_state (state_key TEXT NOT NULL "
               "PRIMARY KEY, value_json TEXT NOT NULL, updated_at_ms INTEGER NOT NULL) STRICT")
    db.execute("INSERT OR REPLACE INTO config_machine_state VALUES (?, ?, ?)",
               ("auth.sharedStore", '{"location":"state-db"}', 1))
    db.execute("INSERT OR REPLACE INTO config_machine_state VALUES (?, ?, ?)",
               ("authProfiles.store", json.dumps({"version": 1, "profiles": profiles}), 1))
    db.commit()
    db.close()
    return path


def write_agent_sqlite(state: Path, agent: str, profiles: dict) -> Path:
    """2026.9: an agent's own store, auth_profile_store row 'primary'."""
    path = state / "agents" / agent / "agent" / "openclaw-agent.sqlite"
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE IF NOT EXISTS auth_profile_store (store_key TEXT NOT NULL PRIMARY "
               "KEY, store_json TEXT NOT NULL, updated_at INTEGER NOT NULL) STRICT")
    db.execute("INSERT OR REPLACE INTO auth_profile_store VALUES ('primary', ?, 1)",
               (json.dumps({"version": 1, "profiles": profiles}),))
    db.commit()
    db.close()
    return path


def write_config(state: Path, data: dict) -> None:
    (state / "openclaw.json").write_text(json.dumps(data))


@pytest.fixture
def state(zc_env) -> Path:
    return zc_env["state"]


# ---------------------------------------------------------------------------------------------
# each source, and the order among them


def test_nothing_anywhere_finds_nothing(state):
    assert credentials.find() is None


def test_the_environment_api_key_and_auth_token(state, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", TOKEN)
    found = credentials.find()
    assert (found.kind, found.value) == ("token", TOKEN)
    monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
    found = credentials.find()
    assert (found.kind, found.value) == ("api_key", API_KEY)
    assert found.source == "the environment (ANTHROPIC_API_KEY)"


def test_openclaws_env_file(state):
    (state / ".env").write_text(f"# keys for the daemon\nOTHER=1\n"
                                f"export ANTHROPIC_API_KEY=\"{ENV_FILE_KEY}\"  \n")
    found = credentials.find()
    assert (found.kind, found.value) == ("api_key", ENV_FILE_KEY)
    assert str(state / ".env") in found.source


def test_openclaws_config_env_block(state):
    write_config(state, {"env": {"vars": {"ANTHROPIC_API_KEY": API_KEY}}})
    found = credentials.find()
    assert found.value == API_KEY and "env.vars.ANTHROPIC_API_KEY" in found.source


def test_2026_2_auth_profiles_json(state):
    write_json_store(state, {"anthropic:default": api_profile()})
    found = credentials.find()
    assert (found.kind, found.value) == ("api_key", API_KEY)
    assert found.source == ("OpenClaw's auth profile anthropic:default "
                            "(agents/main/agent/auth-profiles.json)")


def test_2026_2_setup_token_profile_is_a_bearer_token(state):
    write_json_store(state, {"anthropic:default": token_profile()})
    found = credentials.find()
    assert (found.kind, found.value) == ("token", TOKEN)


def test_2026_9_shared_sqlite_store(state):
    write_shared_sqlite(state, {"anthropic:default": api_profile()})
    found = credentials.find()
    assert (found.kind, found.value) == ("api_key", API_KEY)
    assert "state/openclaw.sqlite" in found.source


def test_2026_9_an_agents_own_store_wins_over_the_shared_one(state):
    write_shared_sqlite(state, {"anthropic:default": api_profile("sk-ant-api03-SHARED-x")})
    write_agent_sqlite(state, "work", {"anthropic:default": api_profile("sk-ant-api03-WORK-x")})
    assert credentials.find("work").value == "sk-ant-api03-WORK-x"
    assert credentials.find("main").value == "sk-ant-api03-SHARED-x"


def test_other_providers_profiles_are_ignored(state):
    write_json_store(state, {"openai:default": {"type": "api_key", "provider": "openai",
                                                "key": "sk-openai"}})
    assert credentials.find() is None


def test_precedence_environment_then_env_file_then_store(state, monkeypatch):
    write_shared_sqlite(state, {"anthropic:default": api_profile()})
    assert credentials.find().value == API_KEY
    (state / ".env").write_text(f"ANTHROPIC_API_KEY={ENV_FILE_KEY}\n")
    assert credentials.find().value == ENV_FILE_KEY
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-api03-FROMENV")
    assert credentials.find().value == "sk-ant-api03-FROMENV"


def test_store_order_is_openclaws_token_before_api_key_unless_told(state):
    write_json_store(state, {"anthropic:key": api_profile(), "anthropic:tok": token_profile()})
    assert credentials.find().kind == "token"
    write_config(state, {"auth": {"order": {"anthropic": ["anthropic:key", "anthropic:tok"]}}})
    assert credentials.find().kind == "api_key"


def test_expired_token_and_oauth_are_passed_over_and_reported(state):
    past = int(time.time() * 1000) - 60_000
    write_json_store(state, {
        "anthropic:tok": token_profile(expires=past),
        "anthropic:me@example.com": {"type": "oauth", "provider": "anthropic",
                                     "access": "sk-ant-oat01-old", "refresh": "r",
                                     "expires": past}})
    found = credentials.lookup()
    assert found.credential is None
    text = " ".join(found.notes)
    assert "anthropic:tok: the token expired" in text
    assert "anthropic:me@example.com: the OAuth access token expired" in text
    assert "sk-ant-oat01-old" not in text and TOKEN not in text


def test_a_credential_never_shows_its_value(state):
    write_json_store(state, {"anthropic:default": api_profile()})
    found = credentials.find()
    assert API_KEY not in repr(found) and API_KEY not in str(found)


# ---------------------------------------------------------------------------------------------
# what reaches the model: x-api-key for a key, Authorization: Bearer for a token


def _auth_headers(request) -> dict:
    return {k.lower(): v for k, v in request.headers.items()
            if k.lower() in ("x-api-key", "authorization")}


# The SDK decides the header: anthropic 2.x sends an api_key as ``Authorization: Bearer`` too
# (1.x sent ``x-api-key``), so what is checked is which SDK argument the stored secret went
# to, and that exactly that secret reached the server.


def test_a_stored_api_key_goes_to_the_sdk_as_api_key(fake_anthropic, state, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    write_json_store(state, {"anthropic:default": api_profile()})
    client = Client()
    assert (client._sdk.api_key, client._sdk.auth_token) == (API_KEY, None)
    client.complete("p", "u")
    sent = _auth_headers(fake_anthropic.message_requests[0])
    assert sent in ({"x-api-key": API_KEY}, {"authorization": f"Bearer {API_KEY}"})


def test_a_stored_token_goes_to_the_sdk_as_a_bearer_auth_token(fake_anthropic, state,
                                                               monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    write_shared_sqlite(state, {"anthropic:default": token_profile()})
    client = Client()
    assert (client._sdk.api_key, client._sdk.auth_token) == (None, TOKEN)
    client.complete("p", "u")
    assert _auth_headers(fake_anthropic.message_requests[0]) == {
        "authorization": f"Bearer {TOKEN}"}


# ---------------------------------------------------------------------------------------------
# no key: the session waits, stats and doctor say so, a run with a key takes it


def test_no_key_waits_then_a_stored_key_extracts_it(cli, fake_anthropic, auth_session,  # noqa: F811
                                                     state, log_dir, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    outputs = []
    first = cli("sweep", "--text")
    outputs.append(first.stdout + first.stderr)
    assert first.exit_code == 1
    assert "openclaw models auth paste-token --provider anthropic" in first.stderr
    saved = read_state(log_dir)
    assert saved["failedSessions"] == {} and SID not in saved["extractedSessions"]
    assert SID in saved["waitingForKey"]["sessions"]
    assert fake_anthropic.message_requests == []

    stats = json.loads(cli("stats", "--json").stdout)
    assert stats["sessions"]["failed"] == 0 and stats["sessions"]["waitingForKey"] == 1
    assert stats["waitingForKey"]["keyFound"] is None
    monkeypatch.setattr("zettelclaw.render.want_json", lambda as_json: bool(as_json))
    text = cli("stats").stdout
    outputs.append(text)
    text = " ".join(text.split())  # as a reader sees it, whatever the terminal's width
    assert "0 failed (0 for good), 0 in progress, 1 waiting for a model key" in text
    assert "Waiting for a model key: 1 session not extracted since" in text
    assert "no Anthropic key found" in text and "OpenClaw's env file" in text
    assert ".openclaw/.env" in text.replace(" ", "")
    doctor = cli("doctor", "--json")
    checks = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}
    assert doctor.exit_code == 1
    assert checks["model key"]["status"] == "fail"
    assert "1 session waits for it" in checks["model key"]["detail"]
    assert "paste-token" in checks["model key"]["fix"]

    store = write_json_store(state, {"anthropic:default": api_profile(fake_anthropic.api_key)})
    doctor = cli("doctor", "--json")
    outputs.append(doctor.stdout + doctor.stderr)
    checks = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}
    assert checks["model key"] == {"name": "model key", "status": "ok", "detail": (
        "API key from OpenClaw's auth profile anthropic:default "
        "(agents/main/agent/auth-profiles.json)")}

    fake_anthropic.reply(GOOD_REPLY)
    second = cli("sweep", "--text")
    outputs.append(second.stdout + second.stderr)
    assert second.exit_code == 0, second.stderr
    saved = read_state(log_dir)
    assert SID in saved["extractedSessions"] and "waitingForKey" not in saved
    assert fake_anthropic.api_key in " ".join(
        _auth_headers(fake_anthropic.message_requests[0]).values())
    stats = json.loads(cli("stats", "--json").stdout)
    assert stats["sessions"]["waitingForKey"] == 0 and "waitingForKey" not in stats

    secret = fake_anthropic.api_key
    assert store.exists()
    for path in log_dir.iterdir():
        assert secret not in path.read_text(errors="replace"), path
    for text in outputs:
        assert secret not in text


def test_a_conversation_a_hook_ended_without_a_key_goes_with_the_next_sweep(
        cli, fake_anthropic, home, state, log_dir, monkeypatch):
    """/new with no model key: the conversation waits. With a key stored, `stats` says to run
    `zettelclaw sweep`, and that sweep extracts it at once: a hook said it ended, it is not a
    live conversation left to settle for half an hour."""
    from datetime import datetime, timedelta, timezone

    monkeypatch.delenv("ANTHROPIC_API_KEY")
    minutes_ago = datetime.now(timezone.utc) - timedelta(minutes=15)  # ended minutes ago
    home.jsonl_session("main", SID, AUTH_TURNS, key="agent:main:main", start=minutes_ago)
    ended = cli("extract", "--session-id", SID, "--reason", "before_reset:new")
    assert ended.exit_code == 1 and SID in read_state(log_dir)["waitingForKey"]["sessions"]
    _key_comes_and_the_sweep_extracts(cli, fake_anthropic, state, log_dir)
    assert SID in read_state(log_dir)["extractedSessions"]


def test_a_conversation_the_nightly_sweep_found_without_a_key_goes_when_the_key_comes(
        cli, fake_anthropic, home, state, log_dir, monkeypatch):
    """The cron's sweep found a conversation of the agent's current session and no model key:
    it waits. The person stores a key minutes later, `stats` says the next sweep extracts the
    waiting conversations, and it does: waiting for a key is not a conversation going on, left
    to settle for half an hour."""
    from datetime import datetime, timedelta, timezone

    monkeypatch.delenv("ANTHROPIC_API_KEY")
    minutes_ago = datetime.now(timezone.utc) - timedelta(minutes=15)
    home.jsonl_session("main", SID, AUTH_TURNS, key="agent:main:main", start=minutes_ago)
    nightly = cli("sweep", "--text")
    assert nightly.exit_code == 1 and SID in read_state(log_dir)["waitingForKey"]["sessions"]
    _key_comes_and_the_sweep_extracts(cli, fake_anthropic, state, log_dir)


def test_doctor_says_waiting_sessions_can_go_once_a_key_is_found(cli, auth_session,  # noqa: F811
                                                                 state, log_dir):
    assert cli("extract", "--session-id", SID).exit_code == 1  # no key: the session waits
    (state / ".env").write_text(f"ANTHROPIC_API_KEY={ENV_FILE_KEY}\n")
    doctor = cli("doctor", "--json")
    checks = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}
    assert checks["model key"]["status"] == "ok"
    assert checks["model key"]["detail"].startswith("API key from OpenClaw's env file")
    assert checks["waiting for a key"]["status"] == "warn"
    assert checks["waiting for a key"]["fix"] == "zettelclaw sweep"
    stats = json.loads(cli("stats", "--json").stdout)
    assert stats["waitingForKey"]["keyFound"].startswith("API key from OpenClaw's env file")
    assert ENV_FILE_KEY not in doctor.stdout + json.dumps(stats)


def _key_comes_and_the_sweep_extracts(cli, fake_anthropic, state, log_dir) -> None:
    """The person stores a key in OpenClaw's .env: `stats` says the next sweep extracts the
    waiting conversation, and the sweep does, the wait forgotten."""
    (state / ".env").write_text(f"ANTHROPIC_API_KEY={fake_anthropic.api_key}\n")

    stats = json.loads(cli("stats", "--json").stdout)
    assert stats["waitingForKey"]["fix"] == "run `zettelclaw sweep` to extract them now"
    fake_anthropic.reply(GOOD_REPLY)
    sweep = cli("sweep", "--text")

    assert sweep.exit_code == 0, sweep.stderr
    assert sweep.stdout.startswith("Sweep: 1 session extracted, 0 skipped, 0 failed; 4 entries")
    assert {e["session"] for e in read_log(log_dir)} == {SID}
    assert "waitingForKey" not in read_state(log_dir)

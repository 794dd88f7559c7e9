"""The model key where OpenClaw keeps it, on real OpenClaw 2026.9.6 and 2026.2.22 (issue 12 §2).

The gateway runs with NO Anthropic key in its environment (as one started by systemd does).
A conversation is reset after ``zettelclaw init``: with no key anywhere its extraction waits
(not failed) and ``stats``/``doctor`` say so with the fix. Then the user stores a setup-token
with OpenClaw's own command, ``openclaw models auth paste-token --provider anthropic`` (2026.2
writes ``agents/main/agent/auth-profiles.json``, 2026.9 the shared SQLite store), ``doctor``
names where the key is, ``zettelclaw sweep`` extracts the waiting conversation, and the fake
model server receives exactly the stored token as a bearer. The token never shows in
zettelclaw's files or output.

The reset: on 2026.9 ``openclaw agent --message /new`` (the plugin's ``before_reset``); on
2026.2, which fires no hooks for that path, ``sessions.reset`` and a gateway restart, whose
``gateway_start`` sweep takes the conversation.
"""

from __future__ import annotations

import json

import pytest

from tests.e2e.harness import OpenClawHome, base_config, toolchain
from tests.fake_anthropic import FakeAnthropic
from tests.fake_openai import FakeOpenAI

pytestmark = pytest.mark.e2e

MARK = "quince-41"
ENTRIES = "\n".join(json.dumps(e) for e in [
    {"type": "decision", "content": "Nightly backups go to the NAS", "subject": "backups"},
    {"type": "handoff", "content": "Backups settled on the NAS; retention next"},
])
# `claude setup-token` prints one of these; OpenClaw 2026.9 refuses a short one
TOKEN = "sk-ant-oat01-" + "E2eStoredSetupToken0" * 5


def _waiting(home: OpenClawHome) -> dict:
    path = home.log_dir / "state.json"
    if not path.exists():
        return {}
    try:
        state = json.loads(path.read_text())
    except ValueError:  # caught mid-rename
        return {}
    return (state.get("waitingForKey") or {}).get("sessions") or {}


def _checks(home: OpenClawHome) -> dict:
    report = json.loads(home.zettelclaw("doctor", "--json", check=False).stdout)
    return {c["name"]: c for c in report["checks"]}


@pytest.mark.parametrize("version", ["2026.9.6", "2026.2.22"])
def test_a_key_stored_with_openclaws_command_extracts_what_waited(tmp_path, version):
    anthropic = FakeAnthropic()
    anthropic.when(MARK, ENTRIES)
    openai = FakeOpenAI([{"when": MARK, "reply": "The NAS it is."}])
    with anthropic, openai:
        home = OpenClawHome(tmp_path, toolchain(version), extra_env={
            "ANTHROPIC_BASE_URL": anthropic.url, "ZETTELCLAW_RETRY_BASE": "0.05"})
        assert "ANTHROPIC_API_KEY" not in home.env and "ANTHROPIC_AUTH_TOKEN" not in home.env
        try:
            home.write_config(base_config(openai.base_url, home.port))
            home.zettelclaw("init")
            home.start_gateway()
            home.openclaw("agent", "--agent", "main", "--message",
                          f"{MARK}: where should the nightly backups go?", "--json",
                          timeout=180)
            if version.startswith("2026.9"):
                home.openclaw("agent", "--agent", "main", "--message", "/new", "--json",
                              timeout=180)
            else:
                home.openclaw("gateway", "call", "sessions.reset", "--params",
                              json.dumps({"key": "agent:main:main", "reason": "new"}),
                              timeout=120)
                home.stop_gateway()
                home.start_gateway()

            # no key anywhere: the conversation waits, it has not failed
            waiting = home.wait_for(lambda: _waiting(home), 90,
                                    "the conversation recorded as waiting for a key")
            assert [w["agent"] for w in waiting.values()] == ["main"]
            assert home.log_entries() == [] and anthropic.message_requests == []
            stats = json.loads(home.zettelclaw("stats", "--json").stdout)
            assert stats["sessions"]["failed"] == 0
            assert stats["sessions"]["waitingForKey"] == 1
            model_key = _checks(home)["model key"]
            assert model_key["status"] == "fail"
            assert "1 session waits for it" in model_key["detail"]
            assert "openclaw models auth paste-token --provider anthropic" in model_key["fix"]

            # the user stores a setup-token the way OpenClaw tells them to
            stored = home.openclaw("models", "auth", "paste-token", "--provider", "anthropic",
                                   input=TOKEN + "\r", timeout=120)
            assert "anthropic:manual" in stored.stdout
            model_key = _checks(home)["model key"]
            assert model_key["status"] == "ok", model_key
            assert model_key["detail"].startswith(
                "token from OpenClaw's auth profile anthropic:manual (")

            sweep = home.zettelclaw("sweep")
            handoffs = home.wait_for(
                lambda: [e for e in home.log_entries() if e["type"] == "handoff"], 90,
                "the waiting conversation's handoff")
            assert handoffs[0]["content"] == "Backups settled on the NAS; retention next"
            sent = {k.lower(): v for k, v in anthropic.message_requests[0].headers.items()}
            assert sent.get("authorization") == f"Bearer {TOKEN}"
            assert "x-api-key" not in sent
            home.wait_for(lambda: not _waiting(home), 60, "the waiting record cleared")
            stats = home.zettelclaw("stats", "--json")
            assert json.loads(stats.stdout)["sessions"]["waitingForKey"] == 0

            # read in place, never copied: not in zettelclaw's files, not in its output
            doctor = home.zettelclaw("doctor", check=False)
            for text in (sweep.stdout, sweep.stderr, stats.stdout, doctor.stdout,
                         doctor.stderr):
                assert TOKEN not in text
            for path in home.log_dir.iterdir():
                if path.is_file():
                    assert TOKEN not in path.read_text(errors="replace"), path
        finally:
            home.cleanup()

"""History on a real OpenClaw (issue 12 §1): a conversation had before `zettelclaw init` is
the user's to import, never a surprise bill.

On OpenClaw's defaults (cron and dreaming on): a conversation (a turn, then `/new`) on a
gateway before zettelclaw is installed; init says how much history there is and how to import
it; the gateway starts and the plugin's gateway_start sweep runs to its end (its summary line
in hooks.log) without a single model call; a conversation after the install is extracted by
the automatic path alone (on 2026.9 in the same sessionId as the history: `/new` keeps it; on
2026.2, where `openclaw agent --message /new` fires no hook, by the sweep the next gateway
start runs, here by hand); `zettelclaw import --dry-run --json` lists the old conversation,
`zettelclaw import --yes` extracts exactly it with its own time, and a second import adds
nothing.
"""

from __future__ import annotations

import json
import time
from datetime import datetime

import pytest

from tests.e2e.harness import OpenClawHome, base_config, toolchain
from tests.fake_anthropic import FakeAnthropic
from tests.fake_openai import FakeOpenAI

pytestmark = pytest.mark.e2e

WORD = "olive-58"  # only in what the user typed before the install
ENTRIES = "\n".join(json.dumps(e) for e in [
    {"type": "decision", "content": "Olive oil supplier switched to the Kalamata co-op",
     "subject": "pantry"},
    {"type": "handoff", "content": "Supplier switched; first delivery next week"},
])
LATER = "fig-61"  # only in what the user typed after the install
LATER_ENTRIES = "\n".join(json.dumps(e) for e in [
    {"type": "fact", "content": "The fig tree needs repotting in spring", "subject": "garden"},
    {"type": "handoff", "content": "Fig tree repotting planned for spring"},
])


@pytest.fixture(params=["2026.9.6", "2026.2.22"])
def setup(request, tmp_path):
    anthropic = FakeAnthropic()
    anthropic.when(WORD, ENTRIES)
    anthropic.when(LATER, LATER_ENTRIES)
    openai = FakeOpenAI([{"when": WORD, "reply": "Noted: the Kalamata co-op."},
                         {"when": LATER, "reply": "Spring it is."}])
    with anthropic, openai:
        home = OpenClawHome(tmp_path, toolchain(request.param), extra_env={
            "ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": anthropic.url,
            "ZETTELCLAW_RETRY_BASE": "0.05"})
        home.write_config(base_config(openai.base_url, home.port))
        try:
            yield home, anthropic, request.param
        finally:
            home.cleanup()


def _at(stamp: str) -> datetime:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00"))


def test_history_waits_for_import(setup):
    home, anthropic, version = setup

    # a conversation before zettelclaw exists, on the user's gateway: a turn, then /new
    home.start_gateway()
    home.openclaw("agent", "--agent", "main", "--message",
                  f"{WORD}: we switch the olive oil supplier to the Kalamata co-op", "--json",
                  timeout=180)
    home.openclaw("agent", "--agent", "main", "--message", "/new", "--json", timeout=180)
    home.stop_gateway()
    time.sleep(1.1)  # the moment of install has whole seconds: let it be a later one

    init = home.zettelclaw("init")
    assert "History: 1 session, 1 conversation, 2 messages" in init.stdout, init.stdout
    assert "`zettelclaw import`" in init.stdout
    installed = _at(json.loads((home.log_dir / "state.json").read_text())["installedAt"])

    # the gateway starts: the plugin's gateway_start sweep runs and leaves history alone
    home.start_gateway()
    hooks_log = home.log_dir / "hooks.log"
    sweep = home.wait_for(
        lambda: hooks_log.exists() and "Sweep:" in hooks_log.read_text()
        and hooks_log.read_text(), 120, "the gateway_start sweep's summary in hooks.log")
    assert "Sweep: 0 sessions extracted, " in sweep and " 0 failed; 0 entries" in sweep, sweep
    assert home.log_entries() == []
    assert anthropic.message_requests == []

    # a conversation after the install: the automatic path takes it, and only it
    home.openclaw("agent", "--agent", "main", "--message",
                  f"{LATER}: when should the fig tree be repotted?", "--json", timeout=180)
    home.openclaw("agent", "--agent", "main", "--message", "/new", "--json", timeout=180)
    if version.startswith("2026.2"):
        home.zettelclaw("sweep")
    later = home.wait_for(lambda: [e for e in home.log_entries() if e["type"] == "handoff"],
                          120, "the later conversation's handoff")
    assert [e["content"] for e in later] == ["Fig tree repotting planned for spring"]
    assert sorted(e["type"] for e in home.log_entries()) == ["fact", "handoff"]
    assert anthropic.message_requests and all(
        LATER in r.user_text and WORD not in r.user_text for r in anthropic.message_requests)
    seen = len(anthropic.message_requests)

    # the import, listed first, then run
    listed = [json.loads(x) for x in home.zettelclaw("import", "--dry-run", "--json")
              .stdout.splitlines()]
    assert [(x["agent"], x["conversations"], x["messages"]) for x in listed[:-1]] == [
        ("main", 1, 2)]
    assert listed[-1]["total"] and listed[-1]["estimatedInputTokens"] > 0
    assert len(anthropic.message_requests) == seen  # a dry run calls no model

    if version.startswith("2026.9"):  # one sessionId across /new: history and the later one
        assert listed[0]["session"] == later[0]["session"]
    run = home.zettelclaw("import", "--yes", "--text")  # (piped: JSON)
    assert "Import: 1 conversation from 1 session, 0 failed; 2 entries" in run.stdout
    entries = [e for e in home.log_entries() if e["id"] not in {x["id"] for x in later}
               and e["type"] != "fact"]
    assert sorted(e["type"] for e in entries) == ["decision", "handoff"]
    assert {e["session"] for e in entries} == {listed[0]["session"]}
    # dated when the conversation happened (its last message), before the install
    assert {e["timestamp"] for e in entries} == {listed[0]["last"]}
    assert _at(listed[0]["last"]) < installed
    assert len(anthropic.message_requests) == seen + 1
    assert WORD in anthropic.message_requests[-1].user_text

    again = home.zettelclaw("import", "--yes")
    assert "No history to import." in again.stderr
    home.zettelclaw("sweep")
    assert len(home.log_entries()) == 4 and len(anthropic.message_requests) == seen + 1

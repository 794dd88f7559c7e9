"""History on a real OpenClaw (issue 12 §1): a conversation had before `zettelclaw init` is
the user's to import, never a surprise bill.

On OpenClaw's defaults (cron and dreaming on): a turn runs before zettelclaw is installed;
init says how much history there is and how to import it; the gateway starts and the
plugin's gateway_start sweep runs to its end (its summary line in hooks.log) without a single
model call; `zettelclaw import --dry-run --json` lists the conversation, `zettelclaw import
--yes` extracts it with the conversation's own time, and a second import adds nothing.
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


@pytest.fixture(params=["2026.9.6", "2026.2.22"])
def setup(request, tmp_path):
    anthropic = FakeAnthropic()
    anthropic.when(WORD, ENTRIES)
    openai = FakeOpenAI([{"when": WORD, "reply": "Noted: the Kalamata co-op."}])
    with anthropic, openai:
        home = OpenClawHome(tmp_path, toolchain(request.param), extra_env={
            "ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": anthropic.url,
            "ZETTELCLAW_RETRY_BASE": "0.05"})
        home.write_config(base_config(openai.base_url, home.port))
        try:
            yield home, anthropic
        finally:
            home.cleanup()


def _at(stamp: str) -> datetime:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00"))


def test_history_waits_for_import(setup):
    home, anthropic = setup

    # a conversation before zettelclaw exists (embedded turn, no gateway)
    home.openclaw("agent", "--local", "--agent", "main", "--message",
                  f"{WORD}: we switch the olive oil supplier to the Kalamata co-op", "--json",
                  timeout=180)
    time.sleep(1.1)  # the moment of install has whole seconds: let it be a later one

    init = home.zettelclaw("init")
    assert "History: 1 session(s), 1 conversation(s), 2 message(s)" in init.stdout, init.stdout
    assert "`zettelclaw import`" in init.stdout
    installed = _at(json.loads((home.log_dir / "state.json").read_text())["installedAt"])

    # the gateway starts: the plugin's gateway_start sweep runs and leaves history alone
    home.start_gateway()
    hooks_log = home.log_dir / "hooks.log"
    sweep = home.wait_for(
        lambda: hooks_log.exists() and "Sweep:" in hooks_log.read_text()
        and hooks_log.read_text(), 120, "the gateway_start sweep's summary in hooks.log")
    assert "Sweep: 0 session(s) extracted" in sweep, sweep
    assert "1 session(s) hold history from before the install" in sweep, sweep
    assert home.log_entries() == []
    assert anthropic.message_requests == []

    # the import, listed first, then run
    listed = [json.loads(x) for x in home.zettelclaw("import", "--dry-run", "--json")
              .stdout.splitlines()]
    assert [(x["agent"], x["conversations"], x["messages"]) for x in listed[:-1]] == [
        ("main", 1, 2)]
    assert listed[-1]["total"] and listed[-1]["estimatedInputTokens"] > 0
    assert anthropic.message_requests == []

    run = home.zettelclaw("import", "--yes")
    assert "Import: 1 conversation(s) from 1 session(s), 0 failed; 2 entries" in run.stdout
    entries = home.log_entries()
    assert sorted(e["type"] for e in entries) == ["decision", "handoff"]
    assert {e["session"] for e in entries} == {listed[0]["session"]}
    # dated when the conversation happened (its last message), before the install
    assert {e["timestamp"] for e in entries} == {listed[0]["last"]}
    assert _at(listed[0]["last"]) < installed
    assert len(anthropic.message_requests) == 1

    again = home.zettelclaw("import", "--yes")
    assert "No history to import." in again.stderr
    assert len(home.log_entries()) == 2 and len(anthropic.message_requests) == 1

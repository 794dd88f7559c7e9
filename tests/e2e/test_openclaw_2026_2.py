"""zettelclaw on the older OpenClaw 2026.2.22 (JSONL transcripts, no command cron jobs).

The same toolchain script installs it (Node 24 satisfies its `>=22.12`). Covered: init in
2026.2's dialect passes its strict config validation, the plugin loads with both tools, the
gateway starts, init registers the briefing as an isolated agent turn, a reset conversation
reaches the log through the plugin (2026.2 starts a new sessionId and renames the JSONL
transcript; the plugin's gateway_start sweep finds it), the next turn's prompt carries the
handoff (before_prompt_build works there without any conversation-access gate), and the model's
memory_search call gets log entries back (2026.2 still has the builtin memory tools; with no
embedding provider configured they answer nothing, and zettelclaw's results stand).

Not covered here, because 2026.2 does not fire the hooks on these paths: `before_reset` and
`session_end` on a reset through `openclaw agent --message /new` or the `sessions.reset` RPC,
and `session_end` on SIGTERM (both run only in its channel reply pipeline). The plugin's
handling of 2026.2's event shapes is covered by the Node unit tests.
"""

from __future__ import annotations

import json

import pytest

from tests.e2e.harness import OpenClawHome, base_config, toolchain
from tests.fake_anthropic import FakeAnthropic
from tests.fake_openai import FakeOpenAI, message_text

pytestmark = pytest.mark.e2e

VERSION = "2026.2.22"
ENTRIES = "\n".join(json.dumps(e) for e in [
    {"type": "decision", "content": "Bun for all JS tooling", "subject": "tooling"},
    {"type": "handoff", "content": "Tooling settled on Bun; CI config next"},
])


@pytest.fixture
def openai():
    with FakeOpenAI([
        {"when": "search memory", "tool": "memory_search", "arguments": {"query": "JS tooling"}},
        {"when": "fig-93", "reply": "Bun it is."},
    ]) as fake:
        yield fake


@pytest.fixture
def home(tmp_path, openai):
    anthropic = FakeAnthropic()
    anthropic.when("fig-93", ENTRIES)
    with anthropic:
        home = OpenClawHome(tmp_path, toolchain(VERSION), extra_env={
            "ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": anthropic.url})
        home.write_config(base_config(openai.base_url, home.port))
        yield home
        home.cleanup()


def _turn(home: OpenClawHome, message: str) -> None:
    home.openclaw("agent", "--agent", "main", "--message", message, "--json", timeout=180)


def test_init_and_a_reset_on_2026_2(home: OpenClawHome, openai: FakeOpenAI):
    home.zettelclaw("init")
    cfg = home.config()
    assert cfg["plugins"]["slots"]["memory"] == "zettelclaw"
    assert "hooks" not in cfg["plugins"]["entries"]["zettelclaw"]
    assert cfg["plugins"]["entries"]["memory-core"]["enabled"] is False

    info = home.openclaw("plugins", "info", "zettelclaw")
    assert "Status: loaded" in info.stdout
    assert "memory_search" in info.stdout and "memory_get" in info.stdout
    assert "Ready" in home.openclaw("skills", "info", "zettelclaw").stdout

    home.start_gateway()
    home.zettelclaw("init")
    jobs = home.json_of(home.openclaw("cron", "list", "--all", "--json"))["jobs"]
    briefing = [j for j in jobs if j["name"] == "zettelclaw-briefing"]
    assert len(briefing) == 1
    assert briefing[0]["sessionTarget"] == "isolated"
    assert "zettelclaw brief" in briefing[0]["payload"]["message"]

    _turn(home, "fig-93: which JS tool?")
    # 2026.2.22 runs the plugin's before_reset/session_end only in the channel reply pipeline,
    # not for gateway RPC resets: there the conversation reaches the log through the sweep the
    # plugin starts on gateway_start, which finds the renamed `<id>.jsonl.reset.<time>` file.
    home.openclaw("gateway", "call", "sessions.reset", "--params",
                  json.dumps({"key": "agent:main:main", "reason": "new"}), timeout=120)
    home.stop_gateway()
    home.start_gateway()
    handoffs = home.wait_for(
        lambda: [e for e in home.log_entries() if e["type"] == "handoff"], 90,
        "the handoff of the conversation before the reset")
    assert handoffs[0]["content"] == "Tooling settled on Bun; CI config next"

    # the next turn's prompt carries the handoff (prependContext)
    seen = len(openai.chat_requests())
    _turn(home, "lime-8: where were we?")
    request = openai.chat_requests()[seen]
    user_text = "\n".join(message_text(m) for m in request["messages"] if m["role"] == "user")
    assert "Tooling settled on Bun; CI config next" in user_text

    # the model calls memory_search and gets log entries back
    seen = len(openai.chat_requests())
    _turn(home, "lime-8: please search memory for the JS tooling decision")
    requests = openai.chat_requests()[seen:]
    assert any(t["function"]["name"] == "memory_search" for t in requests[0]["tools"])
    tool_results = [m for r in requests for m in r["messages"] if m["role"] == "tool"]
    assert tool_results, "the model's memory_search call got no result"
    assert "Bun for all JS tooling" in message_text(tool_results[-1])

    report = json.loads(home.zettelclaw("doctor", "--json", check=False).stdout)
    assert report["ok"] is True, report

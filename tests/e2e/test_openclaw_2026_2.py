"""zettelclaw on the older OpenClaw 2026.2.22 (JSONL transcripts, no command cron jobs).

The same toolchain script installs it (Node 24 satisfies its `>=22.12`). Covered: init in
2026.2's dialect passes its strict config validation, the plugin loads with both tools, the
gateway starts, init registers the briefing as an isolated agent turn, a reset conversation
reaches the log through the plugin (2026.2 starts a new sessionId and renames the JSONL
transcript; the plugin's gateway_start sweep finds it; `openclaw zettelclaw subjects|search`
shows what it holds), the next turn's prompt carries the
handoff (before_prompt_build works there without any conversation-access gate), and the model's
memory_search call gets log entries back (2026.2 still has the builtin memory tools; with no
embedding provider configured they answer nothing, and zettelclaw's results stand). The night:
init allowlists exactly the zettelclaw executable for the default agent's exec, so the briefing
job's isolated agent turn (the fake model calls exec with the job's command) writes MEMORY.md
with nobody there to approve it; doctor checks it, and `--undo` removes that entry.

Not covered here, because 2026.2 does not fire the hooks on these paths: `before_reset` and
`session_end` on a reset through `openclaw agent --message /new` or the `sessions.reset` RPC,
and `session_end` on SIGTERM (both run only in its channel reply pipeline). The plugin's
handling of 2026.2's event shapes is covered by the Node unit tests.
"""

from __future__ import annotations

import json

import pytest

from tests.e2e.harness import VENV_BIN, OpenClawHome, base_config, toolchain
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
        home.anthropic = anthropic
        home.write_config(base_config(openai.base_url, home.port))
        yield home
        home.cleanup()


def _turn(home: OpenClawHome, message: str) -> None:
    home.openclaw("agent", "--agent", "main", "--message", message, "--json", timeout=180)


def test_init_and_a_reset_on_2026_2(home: OpenClawHome, openai: FakeOpenAI):
    vault = home.state.parent / "Brain"  # init --vault: the nightly job builds it (issue 16)
    home.zettelclaw("init", "--vault", str(vault))
    cfg = home.config()
    assert cfg["plugins"]["slots"]["memory"] == "zettelclaw"
    assert "hooks" not in cfg["plugins"]["entries"]["zettelclaw"]
    assert cfg["plugins"]["entries"]["memory-core"]["enabled"] is False

    info = home.openclaw("plugins", "info", "zettelclaw")
    assert "Status: loaded" in info.stdout
    assert "memory_search" in info.stdout and "memory_get" in info.stdout
    assert "memory_forget" in info.stdout
    assert "Ready" in home.openclaw("skills", "info", "zettelclaw").stdout

    home.start_gateway()
    home.zettelclaw("init")
    jobs = home.json_of(home.openclaw("cron", "list", "--all", "--json"))["jobs"]
    briefing = [j for j in jobs if j["name"] == "zettelclaw-briefing"]
    assert len(briefing) == 1
    assert briefing[0]["sessionTarget"] == "isolated"
    assert "zettelclaw brief" in briefing[0]["payload"]["message"]
    # the job's exec call runs unattended: exactly the zettelclaw executable is allowlisted
    exe = str(VENV_BIN / "zettelclaw")
    approvals = json.loads((home.state / "exec-approvals.json").read_text())
    assert [e["pattern"] for e in approvals["agents"]["main"]["allowlist"]] == [exe]

    _turn(home, "fig-93: which JS tool? <private>my PIN is Zanzibar-4417</private>")
    # 2026.2.22 runs the plugin's before_reset/session_end only in the channel reply pipeline,
    # not for gateway RPC resets: there the conversation reaches the log through the sweep the
    # plugin starts on gateway_start, which finds the renamed `<id>.jsonl.reset.<time>` file.
    # The session store no longer names that file's key, and a transcript whose key nobody
    # recorded is nobody's (docs/people.md): the main session's key is recorded as a channel
    # /new records it, by the extraction its before_reset hook runs (the conversation so far;
    # what is said after it is swept from the rotated file under the same key).
    store = json.loads((home.state / "agents" / "main" / "sessions" / "sessions.json")
                       .read_text())
    home.zettelclaw("extract", "--session-id", store["agent:main:main"]["sessionId"],
                    "--agent", "main", "--session-key", "agent:main:main",
                    "--reason", "before_reset")
    home.openclaw("gateway", "call", "sessions.reset", "--params",
                  json.dumps({"key": "agent:main:main", "reason": "new"}), timeout=120)
    home.stop_gateway()
    home.start_gateway()
    handoffs = home.wait_for(
        lambda: [e for e in home.log_entries() if e["type"] == "handoff"], 90,
        "the handoff of the conversation before the reset")
    assert handoffs[0]["content"] == "Tooling settled on Bun; CI config next"
    # what the person kept <private> reached neither zettelclaw's model nor the log directory
    asked = "\n".join(json.dumps(r.body) for r in home.anthropic.message_requests)
    assert "fig-93: which JS tool? [private]" in asked and "Zanzibar" not in asked
    assert not any(b"Zanzibar" in p.read_bytes() for p in home.log_dir.rglob("*") if p.is_file())

    # the design's own spelling (§8.2-8.3): `openclaw zettelclaw ...` runs zettelclaw
    subjects = home.openclaw("zettelclaw", "subjects")
    assert [json.loads(line)["slug"] for line in subjects.stdout.splitlines()
            if line.startswith("{")] == ["tooling"]
    found = home.openclaw("zettelclaw", "search", "--type", "decision", "--subject", "tooling")
    assert [json.loads(line)["content"] for line in found.stdout.splitlines()
            if line.startswith("{")] == ["Bun for all JS tooling"]

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

    # the night: the briefing job's isolated agent turn calls exec with the job's command (as a
    # model following its message would) and, with nobody there to approve it, it runs
    command = briefing[0]["payload"]["message"].rsplit(": ", 1)[1]
    assert command.startswith(exe)
    openai.script.rules.insert(0, {"when": "zettelclaw brief", "tool": "exec",
                                   "arguments": {"command": command}, "times": 1})
    home.openclaw("cron", "run", briefing[0]["id"], timeout=180)
    memory = home.workspace / "MEMORY.md"
    text = home.wait_for(lambda: "tooling" in memory.read_text().split(
        "<!-- BEGIN GENERATED BRIEFING -->")[1] and memory.read_text(), 180,
        "the nightly briefing in MEMORY.md")
    assert "Bun for all JS tooling" in text
    journals = home.wait_for(lambda: list((vault / "main" / "03 Journal").glob("*.md")), 60,
                             "the vault's journal")
    assert "Bun for all JS tooling" in "".join(p.read_text() for p in journals)
    results = [message_text(m) for r in openai.chat_requests() for m in r["messages"]
               if m["role"] == "tool"]
    assert not [r for r in results if "Approval required" in r]

    report = json.loads(home.zettelclaw("doctor", "--json", check=False).stdout)
    assert report["ok"] is True, report
    checks = {c["name"]: c["status"] for c in report["checks"]}
    assert checks["nightly exec approval"] == "ok"

    # --undo takes out the allowlist entry init added, and nothing else of the user's
    home.zettelclaw("init", "--undo")
    approvals = json.loads((home.state / "exec-approvals.json").read_text())
    assert not [e for a in approvals.get("agents", {}).values()
                for e in a.get("allowlist", []) if e["pattern"] == exe]

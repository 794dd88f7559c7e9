"""zettelclaw as the memory of a real OpenClaw 2026.9.6 gateway, offline.

One scenario, in the order a user lives it: init, validate, start the gateway, the plugin's
hooks and tools are live, a conversation, /new, its entries and handoff land in the log, the
next turn's model request carries the handoff, the model calls memory_search and gets log
entries back, the nightly briefing job exists and writes MEMORY.md when run, and SIGTERM
still leaves the last conversation extracted.

All on OpenClaw's defaults (cron, dreaming and Tool Search on), zettelclaw is the only memory:
memory-core is disabled and never schedules its dreaming job, no tool-name conflict is logged,
the memory_search/memory_get the model is given are zettelclaw's (memory_get answers an entry
id), and the generated block of MEMORY.md survives every job of the night. `init --undo` gives
memory-core (and its dreaming job) back; `init` on a running gateway then enables the plugin
without its before_prompt_build ever being loaded blocked, and removes the dreaming job again.

OpenClaw's model is tests/fake_openai.py, zettelclaw's is tests/fake_anthropic.py; the
toolchain comes from scripts/openclaw-env.sh (cached). `make e2e` runs this file alone.
"""

from __future__ import annotations

import json
import signal

import pytest

from tests.e2e.harness import OpenClawHome, base_config, toolchain
from tests.fake_anthropic import FakeAnthropic
from tests.fake_openai import FakeOpenAI, message_text

pytestmark = pytest.mark.e2e

# Words that occur only in what the user typed, so the fake extraction model can tell the two
# conversations apart (its requests also carry existing entries, never these words).
FIRST, SECOND = "plum-17", "kiwi-42"

FIRST_ENTRIES = "\n".join(json.dumps(e) for e in [
    {"type": "decision", "content": "Queue-based retries with exponential backoff for webhooks",
     "detail": "Synchronous retries cascade under load", "subject": "webhooks"},
    {"type": "task", "content": "Write the backfill script for failed webhook jobs",
     "status": "open", "subject": "webhooks"},
    {"type": "handoff", "content": "Webhook retry policy settled; backfill script next",
     "detail": "Queue-based retries agreed. Nothing written yet for the backfill."},
])
SECOND_ENTRIES = "\n".join(json.dumps(e) for e in [
    {"type": "fact", "content": "The staging cluster runs three webhook workers",
     "subject": "webhooks"},
    {"type": "handoff", "content": "Checked memory for the webhook decision; staging next",
     "detail": "Looked up the retry decision with memory_search."},
])
BRIEFING = ("## Active\n- webhooks — queue-based retries decided, backfill script open\n\n"
            "## Pending\n- Write the backfill script for failed webhook jobs\n")


@pytest.fixture
def fakes():
    anthropic = FakeAnthropic()
    anthropic.when(SECOND, SECOND_ENTRIES)
    anthropic.when(FIRST, FIRST_ENTRIES)
    anthropic.load_script({"default": {"text": BRIEFING}})
    openai = FakeOpenAI([
        {"when": "search memory", "tool": "memory_search", "arguments": {"query": "webhook"}},
        {"when": FIRST, "reply": "Agreed: queue-based retries."},
    ])
    with anthropic, openai:
        yield anthropic, openai


@pytest.fixture
def oc_home(tmp_path, fakes):
    anthropic, _ = fakes
    launcher = toolchain()
    home = OpenClawHome(tmp_path, launcher, extra_env={
        "ANTHROPIC_API_KEY": "test-key",
        "ANTHROPIC_BASE_URL": anthropic.url,
        "ZETTELCLAW_RETRY_BASE": "0.05",
    })
    yield home
    home.cleanup()


def _handoffs(home: OpenClawHome) -> list[dict]:
    return [e for e in home.log_entries() if e.get("type") == "handoff"]


def _turn(home: OpenClawHome, message: str) -> dict:
    proc = home.openclaw("agent", "--agent", "main", "--message", message, "--json",
                         timeout=180)
    return home.json_of(proc)


def _receipts(home: OpenClawHome) -> list[dict]:
    """Every receipt zettelclaw and the plugin wrote (docs/receipts.md)."""
    return [json.loads(line) for path in sorted((home.log_dir / "receipts").glob("*.jsonl"))
            for line in path.read_text().splitlines()]


def _rows(proc) -> list[dict]:
    """The JSON Lines of a command's stdout."""
    return [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]


def test_zettelclaw_is_openclaws_memory(oc_home: OpenClawHome, fakes):
    anthropic, openai = fakes
    home = oc_home
    home.write_config(base_config(openai.base_url, home.port))

    # init with no gateway running: everything but the cron job, which it prints
    vault = home.state.parent / "Brain"  # init --vault: the nightly job builds it (issue 16)
    init = home.zettelclaw("init", "--vault", str(vault))
    assert "openclaw cron add --name zettelclaw-briefing" in init.stdout
    cfg = home.config()
    assert (vault / "main" / "03 Journal").is_dir()
    assert cfg["plugins"]["slots"]["memory"] == "zettelclaw"
    assert cfg["plugins"]["entries"]["zettelclaw"]["hooks"]["allowConversationAccess"] is True
    # zettelclaw is the only memory: memory-core (kept loaded for dreaming otherwise) is off
    assert cfg["plugins"]["entries"]["memory-core"]["enabled"] is False
    assert cfg["agents"]["defaults"]["compaction"]["memoryFlush"]["enabled"] is False
    assert cfg["hooks"]["internal"]["entries"]["session-memory"]["enabled"] is False
    assert (home.workspace / "MEMORY.md").read_text().count("GENERATED BRIEFING") == 2
    assert (home.state / "skills" / "zettelclaw" / "SKILL.md").is_file()

    validate = home.openclaw("config", "validate", "--json")
    assert home.json_of(validate)["valid"] is True
    # OpenClaw loads the skill init installed, and shows it to the model
    skill = home.openclaw("skills", "info", "zettelclaw").stdout
    assert "Ready" in skill and "Visible to model: yes" in skill

    # the plugin as OpenClaw loads it: four hooks, three tools, no errors
    inspect = home.json_of(home.openclaw("plugins", "inspect", "zettelclaw", "--runtime",
                                         "--json"))
    assert inspect["plugin"]["status"] == "loaded"
    hooks = {h["name"] for h in inspect["typedHooks"]}
    assert {"session_end", "before_reset", "gateway_start", "before_prompt_build"} <= hooks
    tools = {name for t in inspect["tools"] for name in t["names"]}
    assert {"memory_search", "memory_get", "memory_forget"} <= tools
    assert not [d for d in inspect["diagnostics"] if d.get("level") == "error"]

    home.start_gateway()

    # with a gateway, init registers the nightly briefing (once)
    home.zettelclaw("init")
    jobs = home.json_of(home.openclaw("cron", "list", "--all", "--json"))["jobs"]
    briefing = [j for j in jobs if j["name"] == "zettelclaw-briefing"]
    assert len(briefing) == 1
    assert briefing[0]["payload"]["kind"] == "command"
    assert briefing[0]["payload"]["argv"][-1].endswith("zettelclaw brief")
    assert briefing[0]["delivery"]["mode"] == "none"
    # memory-core never scheduled its dreaming job (it rewrites MEMORY.md at night)
    assert not [j for j in jobs if str(j.get("declarationKey", "")).startswith("memory-core:")]

    # first conversation, then /new: before_reset hands the conversation to extraction
    reply = _turn(home, f"{FIRST}: let's settle the webhook retry policy "
                        "<private>my PIN is Zanzibar-4417</private>")
    assert reply["status"] == "ok"
    _turn(home, "/new")
    first = home.wait_for(lambda: _handoffs(home), 90, "the first conversation's handoff")
    assert [h["content"] for h in first] == [
        "Webhook retry policy settled; backfill script next"]
    entries = home.log_entries()
    assert {e["type"] for e in entries} == {"decision", "task", "handoff"}
    assert len({e["session"] for e in entries}) == 1
    # what the person kept <private> reached neither zettelclaw's model nor the log directory
    asked = "\n".join(json.dumps(r.body) for r in anthropic.message_requests)
    assert "retry policy [private]" in asked and "Zanzibar" not in asked
    assert not any(b"Zanzibar" in p.read_bytes() for p in home.log_dir.rglob("*") if p.is_file())

    # the design's own spelling (§8.2-8.3): `openclaw zettelclaw ...` runs zettelclaw, its
    # output (JSON Lines when piped) and its exit code passed through
    subjects = home.openclaw("zettelclaw", "subjects")
    assert [row["slug"] for row in _rows(subjects)] == ["webhooks"]
    found = home.openclaw("zettelclaw", "search", "--type", "decision", "--subject", "webhooks")
    assert [row["content"] for row in _rows(found)] == [
        "Queue-based retries with exponential backoff for webhooks"]
    missing = home.openclaw("zettelclaw", "get", "no-such-entry", check=False)
    assert missing.returncode == 1 and "Error: no entry with id no-such-entry" in missing.stderr

    # the next turn's prompt carries the handoff (prependContext), framed as memory
    seen = len(openai.chat_requests())
    _turn(home, f"{SECOND}: where were we?")
    request = openai.chat_requests()[seen]
    user_text = "\n".join(message_text(m) for m in request["messages"] if m["role"] == "user")
    assert "Webhook retry policy settled; backfill script next" in user_text

    # recall each turn: a message about the webhook retries brings the entry that answers it
    # (one the handoff block does not show) into the same framed block; "thanks!" brings none
    home.zettelclaw("write", "fact", "Webhook retry backoff is capped at 15 minutes with 20% "
                    "jitter", "--subject", "webhooks", "--session", "earlier")
    seen = len(openai.chat_requests())
    asked = _turn(home, "what cap and jitter does the webhook retry backoff use?")
    request = openai.chat_requests()[seen]
    user_text = "\n".join(message_text(m) for m in request["messages"] if m["role"] == "user")
    assert "## Recalled memories" in user_text
    assert "capped at 15 minutes with 20% jitter" in user_text
    assert user_text.count("<zettelclaw-memory>") == 1, "one block: handoff and recall together"
    # the receipt of that request, under the turn OpenClaw names it by (2026.9.6's embedded
    # runner hands before_prompt_build no currentUserMessageId: its run's id, which `openclaw
    # agent --json` prints): the handoff and the recalled entry it shows, by id, no text
    capped = next(e for e in home.log_entries() if e["content"].startswith("Webhook retry backoff"))
    handoff_id = _handoffs(home)[-1]["id"]
    receipts = _receipts(home)
    turn = [r for r in receipts if r["turn"] == asked["runId"]]
    assert [(e["id"], e["why"]) for r in turn for e in r["entries"]][0] == (handoff_id, "handoff")
    recalled = [e for r in turn for e in r["entries"] if e["why"] == "recall"]
    assert [e["id"] for e in recalled] == [capped["id"]]
    assert {"cap", "jitter", "backoff"} <= set(recalled[0]["words"])
    assert turn[0]["session_key"] == "agent:main:main" and turn[0]["person"] == "owner"
    assert "capped at 15 minutes" not in json.dumps(receipts)
    why = _rows(home.zettelclaw("why", "--turn", asked["runId"]))  # JSON Lines when piped
    assert [(r["id"], r["why"]) for r in why if r["why"] == "recall"] == [(capped["id"], "recall")]
    assert next(r for r in why if r["why"] == "recall")["content"].startswith("Webhook retry")
    seen = len(openai.chat_requests())
    # (a <private> question is not a recall query: the plugin drops it first)
    _turn(home, "thanks! <private>what cap and jitter does the webhook retry backoff "
                "use?</private>")
    request = openai.chat_requests()[seen]
    user_text = "\n".join(message_text(m) for m in request["messages"] if m["role"] == "user")
    last = user_text.rsplit("<zettelclaw-memory>", 1)[-1]
    assert "Webhook retry policy settled" in last and "## Recalled memories" not in last

    # the model calls memory_search and gets log entries back
    seen = len(openai.chat_requests())
    searched = _turn(home, f"{SECOND}: please search memory for the webhook decision")
    requests = openai.chat_requests()[seen:]
    assert any(t["function"]["name"] == "memory_search" for t in requests[0]["tools"])
    tool_results = [m for r in requests for m in r["messages"] if m["role"] == "tool"]
    assert tool_results, "the model's memory_search call got no result"
    assert "Queue-based retries with exponential backoff" in message_text(tool_results[-1])
    # its answer is receipted as that turn's, with the tool call it answered
    decision_id = next(e["id"] for e in home.log_entries() if e["type"] == "decision")
    by_tool = [r for r in _receipts(home) if r["by"] == "memory_search"]
    assert [r["turn"] for r in by_tool] == [searched["runId"]] and by_tool[0].get("call")
    assert decision_id in [e["id"] for e in by_tool[0]["entries"]]
    # the memory tools the model is given are zettelclaw's, not memory-core's same-named ones
    given = {t["function"]["name"]: t["function"].get("description", "")
             for t in requests[0]["tools"]}
    assert given["memory_search"].startswith("Search your memory: the structured log")
    assert given["memory_get"].startswith("Read one thing from memory: a log entry by its id")
    # memory_get answers a zettelclaw entry id
    decision = next(e for e in home.log_entries() if e["type"] == "decision")
    openai.script.rules.insert(0, {"when": "open that entry", "tool": "memory_get",
                                   "arguments": {"path": decision["id"]}, "times": 1})
    seen = len(openai.chat_requests())
    _turn(home, f"{SECOND}: please open that entry")
    got = [m for r in openai.chat_requests()[seen:] for m in r["messages"]
           if m["role"] == "tool"]
    assert got and decision["id"] in message_text(got[-1])
    assert "Queue-based retries with exponential backoff" in message_text(got[-1])

    # the briefing job, run now, writes the generated block of MEMORY.md
    home.openclaw("cron", "run", briefing[0]["id"], "--wait", "--wait-timeout", "120s",
                  timeout=180)
    memory = home.wait_for(
        lambda: "## Active" in (home.workspace / "MEMORY.md").read_text()
        and (home.workspace / "MEMORY.md").read_text(), 60, "the briefing in MEMORY.md")
    block = memory.split("<!-- BEGIN GENERATED BRIEFING -->")[1]
    assert "webhooks" in block.split("<!-- END GENERATED BRIEFING -->")[0]
    # ... then the vault: a journal of the conversation's day, a page for its subject
    journals = home.wait_for(lambda: list((vault / "main" / "03 Journal").glob("*.md")), 60,
                             "the vault's journal")
    assert "Queue-based retries" in "".join(p.read_text() for p in journals)
    assert list((vault / "main" / "01 Notes").glob("*.md"))

    # the rest of the night: every other job OpenClaw scheduled by default runs too, and the
    # briefing block survives it (memory-core's dreaming would rewrite MEMORY.md)
    others = [j for j in home.json_of(home.openclaw("cron", "list", "--all", "--json"))["jobs"]
              if j["id"] != briefing[0]["id"]]
    assert others, "OpenClaw's default jobs are gone: the night is not the default one"
    for job in others:
        home.openclaw("cron", "run", job["id"], "--wait", "--wait-timeout", "120s",
                      timeout=180, check=False)
    after = (home.workspace / "MEMORY.md").read_text()
    assert after.count("GENERATED BRIEFING") == 2
    assert "webhooks" in after.split("<!-- BEGIN GENERATED BRIEFING -->")[1]
    gateway_log = home.gateway_log.read_text(errors="replace")
    assert "[memory] sync failed" not in gateway_log
    assert "tool name conflict" not in gateway_log

    # SIGTERM: the gateway exits and the last conversation is still extracted
    home.stop_gateway(signal.SIGTERM)
    second = home.wait_for(lambda: len(_handoffs(home)) >= 2 and _handoffs(home), 90,
                           "the second conversation's handoff after SIGTERM")
    assert second[-1]["content"] == "Checked memory for the webhook decision; staging next"
    assert any(e["content"].startswith("The staging cluster") for e in home.log_entries())

    doctor = home.zettelclaw("doctor", "--json", check=False)
    report = json.loads(doctor.stdout)
    assert report["ok"] is True, report
    assert "tool name conflict" not in home.gateway_log.read_text(errors="replace")

    # --undo gives memory-core back as it was (on, with its dreaming job) ...
    home.start_gateway()
    home.zettelclaw("init", "--undo")
    cfg = home.config()
    assert cfg["plugins"]["slots"]["memory"] == "memory-core"
    assert "enabled" not in cfg["plugins"].get("entries", {}).get("memory-core", {})
    home.wait_for(lambda: [j for j in home.json_of(home.openclaw(
        "cron", "list", "--all", "--json"))["jobs"] if j["name"] == "Memory Dreaming Promotion"],
        120, "memory-core's dreaming job after --undo", interval=5)

    # ... and init on a running gateway enables the plugin with its conversation-access flag
    # already set (one change: before_prompt_build is never loaded blocked), removes the
    # dreaming job again
    mark = len(home.gateway_log.read_text(errors="replace"))
    home.zettelclaw("init")
    home.wait_for(lambda: "zettelclaw" in home.json_of(home.openclaw(
        "plugins", "inspect", "zettelclaw", "--runtime", "--json"))["plugin"]["id"], 60,
        "the plugin back")
    jobs = home.json_of(home.openclaw("cron", "list", "--all", "--json"))["jobs"]
    assert not [j for j in jobs if str(j.get("declarationKey", "")).startswith("memory-core:")]
    later = home.gateway_log.read_text(errors="replace")[mark:]
    assert 'typed hook "before_prompt_build" blocked' not in later
    # the gateway reloads each config write: the one that loads the plugin (plugins.load) comes
    # after the one with its settings, none after it
    reloads = [line.split("evaluating reload", 1)[1] for line in later.splitlines()
               if "config change detected" in line]
    loaded = next(i for i, paths in enumerate(reloads) if "plugins.load" in paths)
    assert any("plugins.entries.zettelclaw" in paths for paths in reloads[:loaded]), reloads
    assert not any("plugins.entries.zettelclaw" in paths for paths in reloads[loaded:]), reloads
    home.stop_gateway()

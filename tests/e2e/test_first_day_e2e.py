"""The first day on a fresh OpenClaw 2026.9.6, offline: no workspace yet (OpenClaw makes it at
the agent's first turn), `zettelclaw init` runs to the end all the same, and after the first
agent turn `zettelclaw doctor` is all good. memory-core's `openclaw memory status|search|get`
are answered over zettelclaw until `init --undo` gives them back.

OpenClaw's model is tests/fake_openai.py, zettelclaw's is tests/fake_anthropic.py; the
toolchain comes from scripts/openclaw-env.sh (cached).
"""

from __future__ import annotations

import json

import pytest

from tests.e2e.harness import OpenClawHome, base_config, home_asking
from tests.fake_anthropic import FakeAnthropic
from tests.fake_openai import FakeOpenAI

pytestmark = pytest.mark.e2e


@pytest.fixture
def fakes():
    anthropic = FakeAnthropic()
    anthropic.load_script({"default": {"text": "[]"}})
    openai = FakeOpenAI([{"reply": "Hello."}])
    with anthropic, openai:
        yield anthropic, openai


@pytest.fixture
def oc_home(tmp_path, fakes):
    anthropic, _ = fakes
    home = home_asking(tmp_path, anthropic)
    yield home
    home.cleanup()


def test_init_on_a_fresh_openclaw_without_a_workspace(oc_home: OpenClawHome, fakes):
    _, openai = fakes
    home = oc_home
    home.write_config(base_config(openai.base_url, home.port))
    if home.workspace.is_dir():  # (the unit tests' autouse fixture makes an empty one)
        home.workspace.rmdir()

    dry = home.zettelclaw("init", "--dry-run")
    assert "  later  briefing markers in" in dry.stdout

    # no gateway, no workspace: init does everything it can, and says what waits for what
    init = home.zettelclaw("init")
    assert "  later  briefing markers in" in init.stdout
    assert "the first `zettelclaw brief`" in init.stdout
    assert "openclaw cron add --name zettelclaw-briefing" in init.stdout  # (no gateway yet)
    assert home.config()["plugins"]["slots"]["memory"] == "zettelclaw"
    assert not home.workspace.exists()  # left to OpenClaw, which seeds a new one itself

    # with the gateway: the nightly job, and memory-core's dreaming never scheduled
    home.start_gateway()
    home.zettelclaw("init")
    jobs = home.json_of(home.openclaw("cron", "list", "--all", "--json"))["jobs"]
    assert [j["name"] for j in jobs if j["name"] == "zettelclaw-briefing"] == [
        "zettelclaw-briefing"]
    assert not [j for j in jobs if str(j.get("declarationKey", "")).startswith("memory-core:")]

    # the agent's first turn: OpenClaw makes and seeds its workspace as it always does
    reply = home.json_of(home.openclaw("agent", "--agent", "main", "--message", "hello",
                                       "--json", timeout=180))
    assert reply["status"] == "ok"
    assert (home.workspace / "AGENTS.md").is_file()

    doctor = home.zettelclaw("doctor", "--json", check=False)
    report = json.loads(doctor.stdout)
    assert report["ok"] is True and doctor.returncode == 0, report
    markers = next(c for c in report["checks"] if c["name"] == "briefing markers")
    assert markers["status"] == "ok"

    # the nightly job, run now: MEMORY.md with its markers in the workspace OpenClaw made
    job = next(j for j in jobs if j["name"] == "zettelclaw-briefing")
    home.openclaw("cron", "run", job["id"], "--wait", "--wait-timeout", "120s", timeout=180)
    memory = home.wait_for(lambda: (home.workspace / "MEMORY.md").exists(), 60,
                           "MEMORY.md from the nightly job")
    assert memory and (home.workspace / "MEMORY.md").read_text().count("GENERATED BRIEFING") == 2

    # memory-core's habits: `openclaw memory ...` answered over zettelclaw, its exit codes kept
    home.zettelclaw("write", "fact", "Webhook retries go through a queue", "--subject",
                    "webhooks")
    status = home.json_of(home.openclaw("memory", "status", "--json"))
    assert status["entries"]["total"] == 1
    found = home.openclaw("memory", "search", "webhook retries", "--max-results", "5")
    assert [json.loads(line)["content"] for line in found.stdout.splitlines()
            if line.startswith("{")] == ["Webhook retries go through a queue"]
    assert home.openclaw("memory", "search", "nothing like it").returncode == 0
    missing = home.openclaw("memory", "get", "no-such-entry", check=False)
    assert missing.returncode == 1 and "Error:" in missing.stderr
    # ... and `init --undo` gives the command back to memory-core
    undo = home.zettelclaw("init", "--undo")
    assert "`openclaw memory ...` is memory-core's again." in undo.stdout
    back = home.openclaw("memory", "status", check=False)
    assert back.returncode == 0 and '"entries"' not in back.stdout
    home.stop_gateway()

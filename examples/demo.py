"""``make demo``: the real pipeline on a bundled OpenClaw home, then recall.

1. copies ``examples/openclaw-home/`` (two agents: the 2026.2 JSONL layout and the 2026.9
   SQLite layout) to a temp dir and points zettelclaw at it;
2. runs ``zettelclaw sweep``: live against Anthropic when ANTHROPIC_API_KEY is set, otherwise
   against ``tests/fake_anthropic.py`` replaying the model output recorded for exactly these
   conversations (``examples/recorded/<sessionId>.<segment>.jsonl``), and says which;
3. shows ``search``, ``handoff``, ``get --history`` (a correction), the nightly ``brief`` into
   the example workspace's MEMORY.md, and ``stats``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE_HOME = ROOT / "examples" / "openclaw-home"
RECORDED = ROOT / "examples" / "recorded"


def zettelclaw_cmd() -> list[str]:
    exe = Path(sys.executable).parent / "zettelclaw"
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "zettelclaw"]


def say(text: str) -> None:
    print(f"\n\033[1m{text}\033[0m" if sys.stdout.isatty() else f"\n{text}", flush=True)


def run(*args: str) -> int:
    print(f"$ zettelclaw {' '.join(args)}", flush=True)
    return subprocess.run(zettelclaw_cmd() + list(args), env=os.environ).returncode


def replay_script() -> dict:
    """One match rule per conversation of the example home: its first words -> its recording."""
    from zettelclaw import transcripts

    rules = []
    for ref in transcripts.list_sessions():
        for segment in transcripts.read_segments(ref):
            recording = RECORDED / f"{ref.session_id}.{segment.index}.jsonl"
            if not recording.exists() or not segment.has_user:
                continue
            first = next(m.text for m in segment.messages if m.role == "user")
            rules.append({"contains": first[:80], "text": recording.read_text()})
    return {"match": rules,
            "default": {"error": 500, "message": "no recorded output for this conversation"}}


def start_fake(workdir: Path) -> tuple[subprocess.Popen, str]:
    script = workdir / "replay.json"
    script.write_text(json.dumps(replay_script()))
    proc = subprocess.Popen([sys.executable, "-m", "tests.fake_anthropic", "--port", "0",
                             "--script", str(script)], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    line = proc.stdout.readline().strip()
    if not line.startswith("listening on "):
        proc.kill()
        raise SystemExit(f"the fake model server did not start: {line!r}")
    return proc, line.removeprefix("listening on ")


def main() -> int:
    workdir = Path(tempfile.mkdtemp(prefix="zettelclaw-demo-"))
    state = workdir / "openclaw"
    shutil.copytree(EXAMPLE_HOME, state)
    os.environ.update({
        "HOME": str(workdir),
        "OPENCLAW_STATE_DIR": str(state),
        "OPENCLAW_CONFIG_PATH": str(state / "openclaw.json"),
        "OPENCLAW_WORKSPACE_DIR": str(state / "workspace"),
        "ZETTELCLAW_HOME": str(state / "zettelclaw"),
    })
    fake = None
    try:
        if os.environ.get("ANTHROPIC_API_KEY"):
            say("ANTHROPIC_API_KEY is set: extracting LIVE with the Anthropic API "
                "(model from the example's openclaw.json: claude-sonnet-4-6).")
        else:
            fake, url = start_fake(workdir)
            os.environ.update({"ANTHROPIC_API_KEY": "sk-ant-demo-replay",
                               "ANTHROPIC_BASE_URL": url, "ZETTELCLAW_MODEL_RETRIES": "0"})
            say("No ANTHROPIC_API_KEY: REPLAYING recorded model output (examples/recorded/) "
                f"through the fake Anthropic server tests/fake_anthropic.py at {url}. "
                "Everything else is the real pipeline.")
        say(f"An OpenClaw home with two agents (2026.2 JSONL and 2026.9 SQLite) in {state}")
        for path in sorted((state / "agents").rglob("*")):
            if path.is_file():
                print(f"  {path.relative_to(state)}")

        say("1. Sweep: extract every main session (cron and subagent sessions are skipped)")
        status = run("sweep")
        say("Sweeping again finds nothing new")
        run("sweep")

        say("2. Search the log")
        run("search", "SAML")
        run("search", "--subject", "auth-migration", "--type", "decision")
        run("search", "--type", "task", "--status", "open")

        say("3. The handoff the next session starts with")
        run("handoff")

        log = state / "zettelclaw" / "log.jsonl"
        corrected = [e for e in map(json.loads, log.read_text().splitlines())
                     if e.get("replaces")] if log.exists() else []
        if corrected:
            say("4. A correction: the second Acme conversation replaced the deadline")
            run("get", corrected[0]["id"], "--history")

        say("5. The nightly briefing: the generated half of MEMORY.md")
        live = fake is None
        run("brief", *([] if live else ["--no-llm"]))
        if not live:
            print("(replaying: --no-llm, the contradiction check needs the real model)")
        print((state / "workspace" / "MEMORY.md").read_text(encoding="utf-8"))

        say("6. Stats")
        run("stats")
        return status
    finally:
        if fake is not None:
            fake.terminate()
            fake.wait(timeout=10)
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

"""``make demo``: zettelclaw's main job, from an OpenClaw conversation to the briefing.

1. copies ``examples/openclaw-home/`` (two agents: the 2026.2 JSONL layout and the 2026.9
   SQLite layout) into the output folder and points zettelclaw at it;
2. shows one conversation as OpenClaw stored it (a 2026.2 transcript, reset with /new) and as
   zettelclaw reads it (``get session:ID``);
3. ``zettelclaw extract`` turns it into log entries: live against Anthropic when
   ANTHROPIC_API_KEY is set, otherwise against ``tests/fake_anthropic.py`` replaying the model
   output recorded for exactly these conversations (``examples/recorded/<sessionId>.<n>.jsonl``),
   and says which; ``sweep`` does the same for every other session, as the gateway does;
4. the nightly ``brief`` writes the generated half of the workspace's MEMORY.md;
5. ``handoff``, what the next session starts with, and ``search``;
6. ``vault build`` renders the log as an Obsidian vault: daily journals and a page
   per subject, each agent's in its own folder.

The result stays in the folder it names at the end (``demo-output/`` in the repository unless
``--out DIR``); running the demo again replaces it (only a folder an earlier demo made).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE_HOME = ROOT / "examples" / "openclaw-home"
RECORDED = ROOT / "examples" / "recorded"
DEFAULT_OUT = ROOT / "demo-output"
MARK = ".zettelclaw-demo"  # what makes a folder the demo's own, to replace on the next run
# the conversation shown and extracted by hand: the main agent's, ended by /new
SHOWN = "6f1c2a9e-3b4d-4e5f-8a6b-7c8d9e0f1a2b"


# what the commands the demo runs (and prints) need to find its OpenClaw home and log
SHOWN_ENV = ("OPENCLAW_STATE_DIR", "OPENCLAW_WORKSPACE_DIR", "ZETTELCLAW_HOME")


def zettelclaw_cmd() -> list[str]:
    exe = Path(sys.executable).parent / "zettelclaw"
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "zettelclaw"]


def shown_cmd() -> str:
    """The executable as a person types it where `make demo` ran: ``.venv/bin/zettelclaw``
    from the repository (a clone has no `zettelclaw` on PATH), else its whole path."""
    parts = zettelclaw_cmd()
    here = Path.cwd().resolve()
    first = Path(parts[0])
    if first.is_relative_to(here):
        parts[0] = str(first.relative_to(here))
    return shlex.join(parts)


def say(text: str) -> None:
    print(f"\n\033[1m{text}\033[0m" if sys.stdout.isatty() else f"\n{text}", flush=True)


def run(*args: str) -> int:
    """Run zettelclaw, printed first as it can be typed (after the `export` line printed at
    the start)."""
    print(f"$ {shown_cmd()} {shlex.join(args)}", flush=True)
    return subprocess.run(zettelclaw_cmd() + list(args), env=os.environ).returncode


def export_line() -> str:
    return "export " + " ".join(f"{name}={shlex.quote(os.environ[name])}" for name in SHOWN_ENV)


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


def fresh_folder(out: Path) -> Path:
    """``out``, empty: made, or emptied when an earlier demo made it; anything else refused."""
    out = out.expanduser().absolute()
    if out.exists():
        if not (out / MARK).is_file():
            raise SystemExit(f"{out} exists and is not a demo folder: give --out another one")
        shutil.rmtree(out)
    out.mkdir(parents=True)
    (out / MARK).write_text("made by `make demo`; the next run replaces this folder\n")
    return out


def show_transcript(path: Path, state: Path) -> None:
    """The first events of an OpenClaw transcript, as stored: one JSON object a line."""
    lines = path.read_text(encoding="utf-8").splitlines()
    print(f"  {path.relative_to(state)} ({len(lines)} events; the first four, cut at 150 "
          "characters):")
    for line in lines[:4]:
        print("  " + (line if len(line) <= 150 else line[:147] + "..."))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT,
                        help="Where the result stays (default: demo-output/ in the repository).")
    out = fresh_folder(parser.parse_args(argv).out)
    state = out / "openclaw"
    shutil.copytree(EXAMPLE_HOME, state)
    (state / "workspace-work").mkdir()  # the work agent's (OpenClaw makes it on its first run)
    os.environ.update({
        "HOME": str(out),
        "OPENCLAW_STATE_DIR": str(state),
        "OPENCLAW_CONFIG_PATH": str(state / "openclaw.json"),
        "OPENCLAW_WORKSPACE_DIR": str(state / "workspace"),
        "ZETTELCLAW_HOME": str(state / "zettelclaw"),
        "NO_COLOR": "1",
    })
    fake = None
    try:
        if os.environ.get("ANTHROPIC_API_KEY"):
            say("ANTHROPIC_API_KEY is set: extracting LIVE with the Anthropic API "
                "(model from the example's openclaw.json: claude-sonnet-4-6).")
        else:
            fake, url = start_fake(out)
            os.environ.update({"ANTHROPIC_API_KEY": "sk-ant-demo-replay",
                               "ANTHROPIC_BASE_URL": url, "ZETTELCLAW_MODEL_RETRIES": "0"})
            say("No ANTHROPIC_API_KEY: REPLAYING recorded model output (examples/recorded/) "
                f"through the fake Anthropic server tests/fake_anthropic.py at {url}. "
                "Everything else is the real pipeline; no key, no network.")
        say("Every command below runs in this environment (paste the line into a shell to run "
            "them yourself):")
        print(f"$ {export_line()}")
        say(f"An OpenClaw home with two agents (2026.2 JSONL and 2026.9 SQLite) in {state}")
        for path in sorted((state / "agents").rglob("*")):
            if path.is_file():
                print(f"  {path.relative_to(state)}")

        say("1. A conversation, as OpenClaw stored it (reset with /new, so renamed .reset.*)")
        [transcript] = (state / "agents" / "main" / "sessions").glob(f"{SHOWN}.jsonl.reset.*")
        show_transcript(transcript, state)
        say("... and as zettelclaw reads it: the messages, without tool noise or bootstrap")
        run("get", f"session:{SHOWN}")

        say("2. Extract: the model turns the conversation into typed log entries")
        status = run("extract", "--session-id", SHOWN, "--reason", "demo")
        say("Extracting it again finds nothing new")
        run("extract", "--session-id", SHOWN)
        say("The gateway's sweep extracts every other main session the same way "
            "(cron and subagent sessions are skipped)")
        status = run("sweep") or status

        say("3. The nightly briefing: the generated half of MEMORY.md")
        live = fake is None
        run("brief", *([] if live else ["--no-llm"]))
        if not live:
            print("(replaying: --no-llm, the contradiction check needs the real model)")
        memory = state / "workspace" / "MEMORY.md"
        print(memory.read_text(encoding="utf-8"))

        say("4. The handoff the next session starts with (injected before its first prompt)")
        run("handoff")

        say("5. Search the log")
        run("search", "webhook retries")
        run("search", "--type", "task", "--status", "open")

        log = state / "zettelclaw" / "log.jsonl"
        corrected = [e for e in map(json.loads, log.read_text().splitlines())
                     if e.get("replaces")] if log.exists() else []
        if corrected:
            say("6. A correction: a later conversation replaced an earlier entry")
            run("get", corrected[0]["id"], "--history", "--agent", corrected[0]["agent"])

        say("7. The Obsidian vault: daily journals and a page per subject, one vault per agent "
            "(built after each nightly brief when the plugin config sets vault.path)")
        vault = out / "vault"
        status = run("vault", "build", "--vault", str(vault)) or status
        journal, topic = _vault_examples(vault / "main")
        for page in (journal, topic):
            if page is not None:
                print(f"--- {page.relative_to(out)}")
                print(page.read_text(encoding="utf-8"))

        say(f"The result stays in {out}:")
        print(f"  {log.relative_to(out)}  the log (JSON Lines, append-only)")
        print(f"  {memory.relative_to(out)}  MEMORY.md with the briefing (the work agent's: "
              "openclaw/workspace-work/MEMORY.md)")
        print(f"  {(state / 'agents').relative_to(out)}/  the OpenClaw transcripts it came from")
        print(f"  {vault.relative_to(out)}/  the Obsidian vault, one per agent (open "
              f"{(vault / 'main').relative_to(out)} in Obsidian):")
        for page in (journal, topic):
            if page is not None:
                print(f"    {page.relative_to(out)}")
        print("Look around with:")
        print(f"$ {export_line()}")
        print(f"$ {shown_cmd()} log")
        print("`make demo` again replaces this folder.")
        return status
    finally:
        if fake is not None:
            fake.terminate()
            fake.wait(timeout=10)


def _vault_examples(vault: Path) -> tuple[Path | None, Path | None]:
    """The main agent's first journal and its busiest topic page."""
    journals = sorted((vault / "03 Journal").glob("*.md"))
    topics = sorted((vault / "01 Notes").glob("*.md"), key=lambda p: -len(p.read_bytes()))
    return (journals[0] if journals else None), (topics[0] if topics else None)


if __name__ == "__main__":
    sys.exit(main())

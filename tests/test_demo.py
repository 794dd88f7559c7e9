"""`make demo` shows the main job (a transcript, extract, brief, handoff, search) without a
key or the network, and leaves its result in the folder it names."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "examples" / "demo.py"


def _demo_module():
    spec = importlib.util.spec_from_file_location("zettelclaw_demo", DEMO)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items()
            if not k.startswith(("ANTHROPIC_", "OPENCLAW_", "ZETTELCLAW_"))}


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> tuple[Path, str]:
    """`make demo` run once (from the repository, as make runs it): its folder and output."""
    out = tmp_path_factory.mktemp("made") / "demo"
    proc = subprocess.run([sys.executable, str(DEMO), "--out", str(out)], cwd=ROOT,
                          env=_clean_env(), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return out, proc.stdout


def test_the_demo_goes_from_a_transcript_to_the_briefing_and_keeps_the_result(demo):
    out, said = demo
    assert "REPLAYING recorded model output" in said
    steps = ["zettelclaw get session:", "zettelclaw extract --session-id", "zettelclaw brief",
             "zettelclaw handoff", "zettelclaw search"]
    at = [said.index(step) for step in steps]
    assert at == sorted(at), "in the order of the job"
    assert '{"type": "session", "version": 4' in said  # the transcript as OpenClaw stored it
    assert f"The result stays in {out}" in said

    # the result is there to look at: the log, MEMORY.md with the briefing
    log = [json.loads(line) for line in
           (out / "openclaw" / "zettelclaw" / "log.jsonl").read_text().splitlines()]
    shown = _demo_module().SHOWN
    assert any(e["session"] == shown and e["type"] == "handoff" for e in log)
    memory = (out / "openclaw" / "workspace" / "MEMORY.md").read_text()
    assert "## Active" in memory.split("<!-- BEGIN GENERATED BRIEFING -->")[1]

    # and the Obsidian vault (issue 16): the closing note names a journal and a topic page
    assert "zettelclaw vault build --vault" in said
    closing = said[said.index(f"The result stays in {out}"):]
    journals = sorted((out / "vault" / "main" / "03 Journal").glob("*.md"))
    topics = sorted((out / "vault" / "main" / "01 Notes").glob("*.md"))
    assert journals and topics
    assert any(str(p.relative_to(out)) in closing for p in journals)
    assert any(str(p.relative_to(out)) in closing for p in topics)
    assert "## Sessions" in journals[0].read_text()
    assert (out / "vault" / "work" / "03 Journal").is_dir()  # the other agent's: its own vault


def test_every_command_the_demo_prints_works_as_printed(demo, tmp_path):
    """Each `$ ...` line, typed into a shell in the repository where `make demo` ran (after
    the `export` line it prints), with no zettelclaw on PATH: exit 0, never "command not
    found"."""
    _, said = demo
    printed = [line[2:] for line in said.splitlines() if line.startswith("$ ")]
    exports = [line for line in printed if line.startswith("export ")]
    commands = [line for line in printed if not line.startswith("export ")]
    assert exports and len(set(exports)) == 1
    assert len(commands) >= 10 and commands[-1].endswith(" log")
    env = {**_clean_env(), "HOME": str(tmp_path),
           "PATH": os.pathsep.join(p for p in os.environ.get("PATH", "").split(os.pathsep)
                                   if Path(p).resolve() != Path(sys.executable).parent.resolve())}
    for command in commands:
        ran = subprocess.run(["bash", "-c", f"{exports[0]}\n{command}"], cwd=ROOT, env=env,
                             capture_output=True, text=True, timeout=120)
        assert ran.returncode == 0, (command, ran.stderr[-2000:])


def test_a_second_run_replaces_only_a_folder_the_demo_made(tmp_path):
    demo = _demo_module()
    made = demo.fresh_folder(tmp_path / "demo")
    (made / "old-result.txt").write_text("from the last run\n")
    again = demo.fresh_folder(tmp_path / "demo")
    assert sorted(p.name for p in again.iterdir()) == [demo.MARK]

    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me\n")
    with pytest.raises(SystemExit, match="not a demo folder"):
        demo.fresh_folder(mine)
    assert (mine / "notes.txt").read_text() == "keep me\n"

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


def _readme_every_day() -> list[str]:
    """The commands of the README's "Every day" block, as a person pastes them."""
    text = (ROOT / "README.md").read_text()
    block = text.split("## Every day", 1)[1].split("```bash\n", 1)[1].split("```", 1)[0]
    return [line for line in block.splitlines() if line.strip()]


def _in_a_terminal(script: str, env: dict, cwd: Path, answers: dict[str, str]) -> str:
    """Run ``script`` in bash on a pseudo-terminal (stdin, stdout and stderr: a person's
    shell), answering each prompt that ends with a key of ``answers``; the whole output."""
    import pty
    import select

    main, child = pty.openpty()
    proc = subprocess.Popen(["bash", "-c", script], stdin=child, stdout=child, stderr=child,
                            cwd=cwd, env={**env, "COLUMNS": "200", "TERM": "xterm"},
                            start_new_session=True)
    os.close(child)
    out, answered = b"", 0
    while True:
        ready, _, _ = select.select([main], [], [], 120)
        if not ready:
            proc.kill()
            break
        try:
            chunk = os.read(main, 65536)
        except OSError:  # EIO: the shell closed the terminal
            break
        if not chunk:
            break
        out += chunk
        tail = out[answered:].decode("utf-8", "replace").rstrip()
        for prompt, answer in answers.items():
            if tail.endswith(prompt):
                os.write(main, answer.encode() + b"\n")
                answered = len(out)
    os.close(main)
    proc.wait(timeout=60)
    return out.decode("utf-8", "replace").replace("\r\n", "\n")


def test_every_command_of_the_readme_works_pasted_into_a_shell_on_the_demo_home(demo, tmp_path):
    """The README's "Every day" block pasted, line by line, into a fresh shell in the
    repository after `make demo`'s export line, zettelclaw on PATH as `source
    .venv/bin/activate` puts it: each command exits 0 (doctor: 1, saying this home is not
    wired into an OpenClaw and how to wire one), never "no entry with id"."""
    out, said = demo
    home = tmp_path / "demo"
    import shutil

    shutil.copytree(out, home, symlinks=True)  # the fixture's folder stays as made
    [export] = {line[2:] for line in said.splitlines() if line.startswith("$ export ")}
    export = export.replace(str(out), str(home))
    commands = _readme_every_day()
    assert any(c.startswith("zettelclaw get ") for c in commands)
    env = {**_clean_env(), "HOME": str(tmp_path),
           "PATH": os.pathsep.join([str(Path(sys.executable).parent),
                                    os.environ.get("PATH", "")])}
    script = "\n".join([export, *(f'{c}\necho "[rc=$? of line {n}]"'
                                  for n, c in enumerate(commands))])
    shown = _in_a_terminal(script, env, ROOT, {"[y/N]:": "y", "[s]top:": "s"})
    codes = {int(n): int(rc) for rc, n in
             __import__("re").findall(r"\[rc=(\d+) of line (\d+)\]", shown)}
    assert sorted(codes) == list(range(len(commands))), shown[-3000:]
    doctor = next(n for n, c in enumerate(commands) if c.startswith("zettelclaw doctor"))
    failed = {commands[n]: rc for n, rc in codes.items() if rc != 0 and n != doctor}
    assert not failed, (failed, shown[-4000:])
    assert "no entry with id" not in shown and "Traceback" not in shown
    assert codes[doctor] == 1
    assert "This OpenClaw home is not wired into zettelclaw: `zettelclaw init` wires it" \
        in shown
    assert "plugins.slots.memory" not in shown  # one line for it, not a failure per setting
    assert "## Last Session Handoff" in shown  # handoff on a terminal: the block
    forgotten = [line for line in (home / "openclaw" / "zettelclaw" / "log.jsonl")
                 .read_text().splitlines() if '"forgotten"' in line or '"forget"' in line]
    assert forgotten, "forget \"$id\" hid the entry get showed"

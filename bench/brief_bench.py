"""Briefing benchmark: ``zettelclaw brief --no-llm`` on a 100k-entry log (target ≤ 1 s).

The log is ``bench/synth.py``'s (deterministic: same size and seed, same bytes); the night is
an hour after its last entry, so every window has entries in it. The reference is a bare
``python3 -c pass`` (the same interpreter) timed in the same run, so the ratio means the same on
a fast laptop and on a loaded 2-core box.

    python bench/brief_bench.py [--size 100000] [--repeat 5]

Each run is a real subprocess of the installed ``zettelclaw`` executable writing MEMORY.md in a
scratch workspace (the first run writes the block, the others find it unchanged and read the
same log); best of ``--repeat`` runs.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from datetime import datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))

import synth  # noqa: E402
from common import best  # noqa: E402

TARGET = 1.0
MANUAL = "## Goals\n- Keep the briefing fast\n\n"


def executable() -> list[str]:
    found = Path(sys.executable).parent / "zettelclaw"
    return [str(found)] if found.exists() else [sys.executable, "-m", "zettelclaw"]


def night_after(log: Path) -> str:
    with open(log, "rb") as fh:
        fh.seek(max(0, log.stat().st_size - 4096))
        last = fh.read().splitlines()[-1]
    stamp = last.split(b'"timestamp":"', 1)[1][:20].decode()
    moment = datetime.fromisoformat(stamp.replace("Z", "+00:00")) + timedelta(hours=1)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    log = synth.ensure(args.size)
    night = night_after(log)
    with tempfile.TemporaryDirectory(prefix="brief-bench-") as tmp:
        scratch = Path(tmp)
        home = scratch / "zettelclaw"
        workspace = scratch / "workspace"
        home.mkdir()
        workspace.mkdir()
        try:  # zettelclaw refuses a symlinked log.jsonl: a hard link costs nothing
            os.link(log, home / "log.jsonl")
        except OSError:  # another file system
            shutil.copyfile(log, home / "log.jsonl")
        (workspace / "MEMORY.md").write_text(MANUAL)
        env = {**os.environ, "HOME": str(scratch), "OPENCLAW_STATE_DIR": str(scratch / "oc"),
               "OPENCLAW_CONFIG_PATH": str(scratch / "oc" / "openclaw.json"),
               "ZETTELCLAW_HOME": str(home), "OPENCLAW_WORKSPACE_DIR": str(workspace)}
        env.pop("ANTHROPIC_API_KEY", None)

        command = executable() + ["brief", "--no-llm", "--now", night]
        python = best([sys.executable, "-c", "pass"], repeat=args.repeat, env=env)
        brief = best(command, repeat=args.repeat, env=env)
        python_again = best([sys.executable, "-c", "pass"], repeat=args.repeat, env=env)
        reference = min(python, python_again)
        block = (workspace / "MEMORY.md").read_text().split("-->", 1)[1]
        lines = block.strip("\n").count("\n")

    verdict = "ok" if brief <= TARGET else "OVER TARGET"
    print(f"log: {log.name} ({args.size:,} entries), night {night}")
    print(f"zettelclaw brief --no-llm     {brief * 1000:7.0f} ms  (best of {args.repeat}; "
          f"target ≤ {TARGET * 1000:.0f} ms: {verdict}; {lines} lines between the markers)")
    print(f"python3 -c pass               {reference * 1000:7.0f} ms  ({sys.executable})")
    print(f"ratio brief / python3 -c pass {brief / reference:7.1f}×")


if __name__ == "__main__":
    main()

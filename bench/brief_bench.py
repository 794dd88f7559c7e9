"""Briefing benchmark: ``zettelclaw brief --no-llm`` on a 100k-entry log (target ≤ 1 s), with
the whole log read and after one new entry (the rows of the log kept by the brief before).

The log is ``bench/synth.py``'s (deterministic: same size and seed, same bytes); the night is
an hour after its last entry, so every window has entries in it. The reference is a bare
``python3 -c pass`` (the same interpreter) timed in the same rounds, so the ratio means the
same on a fast laptop and on a loaded 2-core box.

    python bench/brief_bench.py [--size 100000] [--repeat 5]

Each run is a real subprocess of the installed ``zettelclaw`` executable writing MEMORY.md in a
scratch workspace. Each round: ``python3 -c pass``; the brief with ``brief-rows.json`` and
``brief-digest.json`` deleted first (every line parsed, the rows and digest kept again); one
``zettelclaw write`` (untimed), then the brief again (the digest plus the new line). Best of
``--repeat`` rounds, wall and CPU.
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
from common import in_turns  # noqa: E402

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
        shutil.copyfile(log, home / "log.jsonl")  # (a copy: the rounds append to it)
        (workspace / "MEMORY.md").write_text(MANUAL)
        env = {**os.environ, "HOME": str(scratch), "OPENCLAW_STATE_DIR": str(scratch / "oc"),
               "OPENCLAW_CONFIG_PATH": str(scratch / "oc" / "openclaw.json"),
               "ZETTELCLAW_HOME": str(home), "OPENCLAW_WORKSPACE_DIR": str(workspace),
               "ZETTELCLAW_NOW": night}
        env.pop("ANTHROPIC_API_KEY", None)

        zettelclaw = executable()
        brief = zettelclaw + ["brief", "--no-llm", "--now", night]
        write = zettelclaw + ["write", "fact", "A bench probe, number {}.", "-s", "bench"]
        runs = in_turns(
            {"python3 -c pass": [sys.executable, "-c", "pass"], "whole log": brief,
             "after one new entry": brief},
            env, args.repeat,
            before={"whole log": lambda _: ["rm", "-f", str(home / "brief-rows.json"),
                                            str(home / "brief-digest.json")],
                    "after one new entry": lambda n: [a.format(n + 1) for a in write]})
        block = (workspace / "MEMORY.md").read_text().split("-->", 1)[1]
        lines = block.strip("\n").count("\n")

    (reference, reference_cpu, _), (whole, whole_cpu, _), (new, new_cpu, _) = (
        runs["python3 -c pass"], runs["whole log"], runs["after one new entry"])
    verdict = "ok" if whole <= TARGET else "OVER TARGET"
    print(f"log: {log.name} ({args.size:,} entries), night {night}; best of {args.repeat}")
    print(f"brief --no-llm, whole log      {whole * 1000:7.0f} ms  {whole / reference:5.1f}x  "
          f"CPU {whole_cpu * 1000:5.0f} ms  (target ≤ {TARGET * 1000:.0f} ms: {verdict}; "
          f"{lines} lines between the markers)")
    print(f"brief --no-llm, one new entry  {new * 1000:7.0f} ms  {new / reference:5.1f}x  "
          f"CPU {new_cpu * 1000:5.0f} ms  (the digest kept by the brief before)")
    print(f"python3 -c pass                {reference * 1000:7.0f} ms         "
          f"CPU {reference_cpu * 1000:5.0f} ms  ({sys.executable})")


if __name__ == "__main__":
    main()

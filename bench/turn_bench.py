"""What each turn costs: ``zettelclaw recall`` (and ``recall --handoff``, the plugin's one
process per prompt) on a small log against bare Python's start, and on the 1M-entry log against
ripgrep reading the same file, each reference timed in the same run:

    recall, 200-entry log: a relevant message, small talk, --handoff  vs  python -c pass  (≤ 3×)
    recall, 1M log: three words (frequent, medium, rare: synth.query_words()), --handoff,
        and a message of common words only        vs  rg -c -i -e w1 -e w2 -e w3 log.jsonl  (≤ 3×)

    python bench/turn_bench.py [--size 1000000] [--repeat 3]

Real subprocesses (the installed ``zettelclaw``, the ``rg`` next to it), best wall time of
``--repeat`` runs (at least 10 for the small log), in a scratch copy of bench/synth.py's log.
Each recall must print something (except for small talk and the common words, where recall
must be silent), or the row says so.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))

import synth  # noqa: E402
from common import size_and_repeat, tool  # noqa: E402

TARGET = 3.0
SMALL = 200


def timed(argv: list[str], env: dict, repeat: int) -> tuple[float, bytes]:
    """Best wall time of ``repeat`` runs, and the output of the last."""
    times, out = [], b""
    for _ in range(repeat):
        start = time.perf_counter()
        done = subprocess.run(argv, env=env, check=True, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
        out = done.stdout
    return min(times), out


def row(name: str, ours: float, ref: float, output: str) -> dict:
    ratio = ours / ref if ref else float("inf")
    verdict = "ok" if ratio <= TARGET else "OVER"
    print(f"{name:<48} {ours * 1000:8.1f} ms  ref {ref * 1000:8.1f} ms  {ratio:5.2f}×  "
          f"(target ≤ {TARGET}×) {verdict}  {output}", flush=True)
    return {"name": name, "ms": ours * 1000, "ref_ms": ref * 1000, "ratio": ratio,
            "ok": ratio <= TARGET}


def said(out: bytes, silent: bool = False) -> str:
    recalled = out.count(b"\n- [") if b"## Recalled memories" in out else 0
    if silent:
        return "silent" if not recalled else f"NOT SILENT ({recalled} entries)"
    return f"{recalled} entries" if recalled else "NOTHING RECALLED"


def main(argv: list[str] | None = None) -> list[dict]:
    args = size_and_repeat(__doc__, argv, repeat=3)

    source = synth.ensure(args.size)
    zc, rg = tool("zettelclaw"), tool("rg")
    results = []
    with tempfile.TemporaryDirectory(prefix="zc-bench-") as tmp:
        env = {**os.environ, "HOME": tmp, "OPENCLAW_STATE_DIR": str(Path(tmp) / "openclaw"),
               "OPENCLAW_WORKSPACE_DIR": str(Path(tmp) / "workspace"),
               # bytecode as an installed zettelclaw has it, kept out of the tree
               "PYTHONPYCACHEPREFIX": str(Path(tmp) / "pycache")}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        for var in ("ZETTELCLAW_RG", "OPENCLAW_CONFIG_PATH"):
            env.pop(var, None)

        small = Path(tmp) / "small"
        small.mkdir(mode=0o700)
        with open(source, "rb") as fh, open(small / "log.jsonl", "wb") as out:
            lines = [fh.readline() for _ in range(SMALL)]
            out.writelines(lines)
        import json

        # a relevant message: the words of an entry in the middle of the small log
        entry = json.loads(lines[SMALL // 2])
        message = "what about " + " ".join(entry["content"].split()[:6]) + "?"
        small_env = {**env, "ZETTELCLAW_HOME": str(small)}
        repeat = max(args.repeat, 10)
        subprocess.run([zc, "handoff"], env=small_env, check=True, stdout=subprocess.DEVNULL)
        ref, _ = timed([sys.executable, "-c", "pass"], small_env, repeat)
        print(f"small log: {SMALL} entries; message {message!r}; best of {repeat}")
        for name, argv, silent in [
            ("recall, relevant message", [zc, "recall", "--text", "--", message], False),
            ("recall, small talk", [zc, "recall", "--text", "--", "thanks!"], True),
            ("recall --handoff, relevant message",
             [zc, "recall", "--handoff", "--text", "--", message], False),
        ]:
            ours, out = timed(argv, small_env, repeat)
            results.append(row(f"{name} ({SMALL})", ours, ref, said(out, silent)))

        home = Path(tmp) / "zc"
        home.mkdir(mode=0o700)
        log = home / "log.jsonl"
        shutil.copyfile(source, log)
        big_env = {**env, "ZETTELCLAW_HOME": str(home)}
        words = synth.query_words()
        common = synth.vocabulary(synth.random.Random(7))[:3]
        print(f"\nlog: {args.size:,} entries, {log.stat().st_size / 1e6:.0f} MB; best of "
              f"{args.repeat}; words {words} (frequent to rare), common {common}")
        subprocess.run([zc, "handoff"], env=big_env, check=True, stdout=subprocess.DEVNULL)
        ask = f"what did we decide about the {' '.join(words)}?"
        ref, _ = timed([rg, "-c", "-i", *[a for w in words for a in ("-e", w)], str(log)],
                       big_env, args.repeat)
        for name, argv in [("recall, three words", [zc, "recall", "--text", "--", ask]),
                           ("recall --handoff, three words",
                            [zc, "recall", "--handoff", "--text", "--", ask])]:
            ours, out = timed(argv, big_env, args.repeat)
            results.append(row(f"{name} ({args.size:,})", ours, ref, said(out)))
        ref, _ = timed([rg, "-c", "-i", *[a for w in common for a in ("-e", w)], str(log)],
                       big_env, args.repeat)
        ours, out = timed([zc, "recall", "--text", "--", f"the {' and '.join(common)}"],
                          big_env, args.repeat)
        results.append(row(f"recall, common words only ({args.size:,})", ours, ref,
                           said(out, silent=True)))
    return results


if __name__ == "__main__":
    main()

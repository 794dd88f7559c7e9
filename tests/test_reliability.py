"""Reliability of the core under concurrency and crashes (issue 7).

The quick versions run in `make test`; `make stress` runs the same tests at full size
(ZC_STRESS=1): 8 processes x 500 appends, 50 SIGKILL trials per command.
"""

from __future__ import annotations

import os
import random
import signal
import stat
import subprocess
import sys
import time

import orjson
import pytest

from tests.conftest import DESIGN_LINES, write_log

FULL = os.environ.get("ZC_STRESS") == "1"


def valid_lines(path) -> tuple[list[dict], int]:
    """(entries, torn) where torn counts lines that are not whole entries."""
    good, torn = [], 0
    for line in path.read_bytes().splitlines():
        try:
            obj = orjson.loads(line)
        except orjson.JSONDecodeError:
            torn += 1
            continue
        good.append(obj)
    return good, torn


APPENDER = """
import sys
from zettelclaw.entries import make_entry
from zettelclaw.log import Log
log = Log()
proc, count = sys.argv[1], int(sys.argv[2])
for n in range(count):
    log.append([make_entry("fact", f"process {proc} entry {n} " + "z" * (n % 7) * 700, "s")])
"""


def test_parallel_appends_keep_every_line_whole(log_dir):
    procs, each = (8, 500) if FULL else (4, 60)
    workers = [subprocess.Popen([sys.executable, "-c", APPENDER, str(p), str(each)])
               for p in range(procs)]
    assert all(w.wait(timeout=600) == 0 for w in workers)
    entries, torn = valid_lines(log_dir / "log.jsonl")
    assert torn == 0
    assert len(entries) == procs * each
    assert len({e["id"] for e in entries}) == procs * each
    for p in range(procs):
        mine = [int(e["content"].split()[3]) for e in entries
                if e["content"].startswith(f"process {p} ")]
        assert mine == list(range(each))  # each writer's lines in its own order


def big_log(log_dir, n=3000):
    lines = []
    for i in range(n):
        base = DESIGN_LINES[i % len(DESIGN_LINES)]
        lines.append({**base, "id": f"id{i:010d}", "content": f"{base['content']} #{i}",
                      "replaces": None} if "replaces" in base else
                     {**base, "id": f"id{i:010d}", "content": f"{base['content']} #{i}"})
    lines = [{k: v for k, v in e.items() if v is not None} for e in lines]
    return write_log(log_dir, lines)


@pytest.mark.parametrize("trial", range(50 if FULL else 5))
def test_sigkill_during_rename_leaves_a_whole_log(log_dir, trial, zc):
    path = big_log(log_dir)
    before, _ = valid_lines(path)
    rng = random.Random(trial)
    exe = [sys.executable, "-m", "zettelclaw", "subjects", "rename", "auth-migration", "auth-v2",
           "--yes"]
    proc = subprocess.Popen(exe, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(rng.uniform(0.0, 0.4))
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    after, torn = valid_lines(path)
    assert torn == 0
    assert [e["id"] for e in after] == [e["id"] for e in before]
    subjects = {e.get("subject") for e in after}
    # all or nothing: the rename is a temp file and one rename(2)
    assert subjects in ({"auth-migration", None}, {"auth-v2", None})
    # a rerun finishes the job and sweeps away the killed writer's temp file
    assert zc("subjects", "rename", "auth-migration", "auth-v2", "--yes").returncode in (0, 1)
    final, torn = valid_lines(path)
    assert torn == 0 and {e.get("subject") for e in final} == {"auth-v2", None}
    assert sorted(p.name for p in log_dir.iterdir()) == [
        "log.jsonl", "state.json", "subjects.json"]


def test_file_modes_after_write_and_rename(log_dir, cli):
    cli("write", "fact", "Max prefers tea", "--subject", "max")
    cli("subjects", "rename", "max", "max-mustermann", "--yes")
    assert stat.S_IMODE(os.stat(log_dir).st_mode) == 0o700
    for name in ("log.jsonl", "subjects.json"):
        assert stat.S_IMODE(os.stat(log_dir / name).st_mode) == 0o600, name


def test_a_temp_file_left_by_a_killed_writer_is_cleared_by_the_next_write(tmp_path):
    """SIGKILL between an atomic write's temp file and its rename leaves the temp file; the
    next write of the same file removes it, but never the temp file of a writer still running."""
    from zettelclaw.fsutil import atomic_write

    target = tmp_path / "MEMORY.md"
    dead = subprocess.Popen(["true"])
    dead.wait()  # a pid whose process is gone
    orphan = tmp_path / f".MEMORY.md.{dead.pid}.abc123.tmp"
    orphan.write_text("half a briefing")
    running = tmp_path / f".MEMORY.md.{os.getpid()}.def456.tmp"
    running.write_text("another writer's, mid-write")
    atomic_write(target, "whole\n")
    assert target.read_text() == "whole\n"
    assert not orphan.exists()
    assert running.exists()

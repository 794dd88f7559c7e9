"""The torture suite for ``zettelclaw purge`` (issue 15): SIGKILL at any moment leaves the old
log or the fully purged one, never half of one, and every reader still works; a purge while
extraction appends loses none of the appended entries.

`make test` runs it at a quick size; `make stress` (ZC_STRESS=1) at full size.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest

from tests.conftest import DESIGN_LINES, run_zettelclaw, write_log

FULL = os.environ.get("ZC_STRESS") == "1"
EXE = Path(sys.executable).parent / "zettelclaw"
SECRET = "Orchid-Lantern"  # in every 7th entry's content, in state.json and hooks.log


def big_log(log_dir: Path, n: int = 3000) -> list[dict]:
    entries = []
    for i in range(n):
        base = DESIGN_LINES[i % len(DESIGN_LINES)]
        entry = {k: v for k, v in base.items() if k != "replaces"}
        entry["id"] = f"id{i:010d}"
        entry["content"] = f"{base['content']} #{i}" + (f" ({SECRET} {i})" if i % 7 == 3 else "")
        if i % 7 == 5 and i >= 2:  # corrections: of an entry with the secret, now and then
            entry["replaces"] = f"id{i - 2:010d}"
        entries.append(entry)
    write_log(log_dir, entries)
    return entries


def read_lines(path: Path) -> tuple[list[dict], int]:
    good, torn = [], 0
    for line in path.read_bytes().splitlines():
        try:
            good.append(orjson.loads(line))
        except orjson.JSONDecodeError:
            torn += 1
    return good, torn


def around(log_dir: Path, zc_env, entries: list[dict]) -> None:
    """The other files that quote content: state.json, hooks.log, MEMORY.md's block."""
    (log_dir / "state.json").write_text(json.dumps({"version": 1, "failedSessions": {"s": {
        "at": "2026-11-20T09:00:00Z", "error": f"bad output: {entries[3]['content']}",
        "retries": 0}}}))
    (log_dir / "hooks.log").write_bytes(b"Extracted:\n" + orjson.dumps(entries[10]) + b"\n")
    (zc_env["workspace"] / "MEMORY.md").write_text(
        f"# Mine\n\n<!-- BEGIN GENERATED BRIEFING -->\n- {entries[17]['content']}\n"
        "<!-- END GENERATED BRIEFING -->\n")


def grep_r(text: str, *places: Path) -> list[str]:
    found = []
    for place in places:
        walk = os.walk(place) if place.is_dir() else [(place.parent, [], [place.name])]
        for root, _, names in walk:
            for name in names:
                if text.lower().encode() in (Path(root) / name).read_bytes().lower():
                    found.append(str(Path(root) / name))
    return found


@pytest.mark.parametrize("by", ["match", "ids"])
@pytest.mark.parametrize("trial", range(50 if FULL else 4))
def test_sigkill_during_purge_leaves_the_old_log_or_the_purged_one(trial, by, log_dir, zc_env):
    entries = big_log(log_dir)
    around(log_dir, zc_env, entries)
    path = log_dir / "log.jsonl"
    old = path.read_bytes()
    rng = random.Random(trial)
    # by ids: those that say it (their corrections go with them as their chains)
    what = ["--match", SECRET] if by == "match" else [
        e["id"] for e in entries if SECRET in e["content"]]
    proc = subprocess.Popen([str(EXE), "purge", *what, "--yes"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(rng.uniform(0.0, 1.0))
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    after, torn = read_lines(path)
    assert torn == 0
    assert [e["id"] for e in after] == [e["id"] for e in entries]  # every line in its place
    purged = [e for e in after if "purged" in e]
    if not purged:
        assert path.read_bytes() == old  # nothing happened to the log ...
    else:  # ... or all of it: every entry that said it, and its chain, is a tombstone
        assert SECRET not in path.read_text()
        assert all("content" not in e for e in purged)
        kept = [e for e in after if "purged" not in e]
        assert kept == [e for e in entries if e["id"] in {k["id"] for k in kept}]
    # every reader still works
    for args in (["search", "retries"], ["log", "-n", "5"], ["stats"], ["handoff"],
                 ["brief", "--no-llm"], ["recall", "--", "webhook retries backoff"],
                 ["get", "id0000000001"]):
        result = run_zettelclaw(*args)
        assert result.returncode == 0, (args, result.stderr)
        assert b"Traceback" not in result.stderr
    # running it again finishes the job (by ids, with what the killed run left in
    # state.json): nothing left for a grep, no temp file behind
    result = run_zettelclaw("purge", *what, "--yes")
    assert result.returncode == 0, result.stderr
    assert grep_r(SECRET, log_dir, zc_env["workspace"] / "MEMORY.md") == []
    assert sorted(p.name for p in log_dir.iterdir()) == [
        "hooks.log", "log.jsonl", "state.json"]


APPENDER = """
import sys
from zettelclaw.entries import make_entry
from zettelclaw.subjects import append_entries
proc, count = sys.argv[1], int(sys.argv[2])
for n in range(count):
    append_entries([make_entry("fact", f"process {proc} entry {n}", "s", subject="load")])
"""


@pytest.mark.parametrize("trial", range(10 if FULL else 2))
def test_a_purge_while_extraction_appends_loses_no_appended_entry(trial, log_dir, zc_env):
    entries = big_log(log_dir)
    procs, each = (4, 200) if FULL else (3, 40)
    writers = [subprocess.Popen([sys.executable, "-c", APPENDER, str(p), str(each)])
               for p in range(procs)]
    purge = run_zettelclaw("purge", "--match", SECRET, "--yes", timeout=300)
    assert all(w.wait(timeout=300) == 0 for w in writers)
    assert purge.returncode == 0, purge.stderr
    after, torn = read_lines(log_dir / "log.jsonl")
    assert torn == 0
    assert [e["id"] for e in after[:len(entries)]] == [e["id"] for e in entries]
    appended = [e["content"] for e in after[len(entries):]]
    assert len(appended) == procs * each
    for p in range(procs):
        assert [c for c in appended if c.startswith(f"process {p} ")] == [
            f"process {p} entry {n}" for n in range(each)]
    assert SECRET not in (log_dir / "log.jsonl").read_text()

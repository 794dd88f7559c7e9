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


# -- purge and forget racing the writers (issue 23) ------------------------------------------

SID = "4b1d7c2e-8f3a-4e6b-9d0c-1a2b3c4d5e6f"


def _conversation(home) -> None:
    from datetime import datetime, timezone

    home.jsonl_session("main", SID, [("user", "The retries and the canary, once more."),
                                     ("assistant", "Noted.")], key="agent:main:main",
                       start=datetime(2026, 11, 20, 9, 0, tzinfo=timezone.utc))


def _reply(*corrected: str) -> str:
    """The model's answer: a correction of each of ``corrected``, and a handoff."""
    lines = [{"type": "fact", "content": f"Corrected by the model: {target}",
              "replaces": target} for target in corrected]
    lines.append({"type": "handoff", "content": "Retries and canary settled"})
    return "\n".join(json.dumps(line) for line in lines)


def never_revived(path: Path) -> None:
    """No entry left with words corrects a purged entry, or one whose forget came first: a
    forgotten or purged entry is never a `replaces` target."""
    lines, torn = read_lines(path)
    assert torn == 0
    at = {line["id"]: n for n, line in enumerate(lines)}
    stones = {line["id"] for line in lines if "purged" in line and "content" not in line}
    undone = {line["replaces"] for line in lines if line.get("type") == "unforget"}
    forgot = {}
    for n, line in enumerate(lines):
        if line.get("type") == "forget" and line["id"] not in undone:
            forgot.setdefault(line["replaces"], n)
    for line in lines:
        target = line.get("replaces")
        if "content" not in line or target is None:
            continue
        assert target not in stones, line
        assert forgot.get(target, len(lines)) > at[line["id"]], line


def finished(proc: subprocess.Popen) -> tuple[int, bytes, bytes]:
    out, err = proc.communicate(timeout=300)
    assert b"Traceback" not in err, err
    if proc.returncode != 0:  # a clear refusal (a target purged or forgotten meanwhile)
        assert err.strip().splitlines()[-1].startswith(b"Error: "), err  # (after notes)
    return proc.returncode, out, err


@pytest.mark.parametrize("trial", range(10 if FULL else 2))
def test_purge_racing_write_extract_and_forget_leaves_nothing_revived_or_lost(
        trial, log_dir, zc_env, home, fake_anthropic):
    from tests.fake_anthropic import Reply

    rng = random.Random(trial)
    entries = big_log(log_dir, 700)
    said = [e["id"] for e in entries if SECRET in e["content"]]
    plain = [e["id"] for e in entries if SECRET not in e["content"] and "replaces" not in e]
    _conversation(home)
    fake_anthropic.latency = rng.uniform(0.0, 0.5)
    fake_anthropic.default = Reply(text=_reply(said[2], plain[5]))
    runs = [
        ["purge", "--match", SECRET, "--yes"],
        ["write", "fact", "Written meanwhile 1"],
        ["write", "fact", "Written meanwhile 2", "--replaces", said[1]],
        ["write", "fact", "Written meanwhile 3", "--replaces", plain[5]],
        ["forget", plain[5], "--yes"],
        ["forget", said[3], "--yes"],
        ["extract", "--session-id", SID],
    ]
    rng.shuffle(runs)
    procs = []
    for args in runs:
        procs.append((args, subprocess.Popen([str(EXE), *args], stdout=subprocess.PIPE,
                                             stderr=subprocess.PIPE, env=os.environ)))
        time.sleep(rng.uniform(0.0, 0.3))
    results = {tuple(args): finished(proc) for args, proc in procs}
    assert results[("purge", "--match", SECRET, "--yes")][0] == 0
    assert results[("extract", "--session-id", SID)][0] == 0
    path = log_dir / "log.jsonl"
    lines, _ = read_lines(path)
    assert [line["id"] for line in lines[:len(entries)]] == [e["id"] for e in entries]
    assert SECRET not in path.read_text()
    never_revived(path)
    for args, (code, out, _) in results.items():  # every write that succeeded is there
        if args[0] == "write" and code == 0:
            assert orjson.loads(out)["id"] in {line["id"] for line in lines}
    for args in (["search", "retries"], ["get", plain[0]], ["log", "-n", "5"], ["handoff"]):
        result = run_zettelclaw(*args)
        assert result.returncode == 0 and b"Traceback" not in result.stderr, (args, result)


@pytest.mark.parametrize("trial", range(20 if FULL else 3))
def test_a_forget_landing_while_an_extraction_waits_on_the_model_stays(
        trial, log_dir, zc_env, home, fake_anthropic):
    from tests.fake_anthropic import Reply

    rng = random.Random(trial)
    entries = big_log(log_dir, 200)
    target = next(e["id"] for e in entries if "replaces" not in e and SECRET not in e["content"])
    _conversation(home)
    fake_anthropic.latency = rng.uniform(0.1, 0.8)
    fake_anthropic.default = Reply(text=_reply(target))
    extract = subprocess.Popen([str(EXE), "extract", "--session-id", SID],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=os.environ)
    time.sleep(rng.uniform(0.0, 1.0))
    forget = run_zettelclaw("forget", target, "--yes")
    assert forget.returncode == 0, forget.stderr
    assert finished(extract)[0] == 0
    never_revived(log_dir / "log.jsonl")
    got = run_zettelclaw("get", target, "--history")
    assert got.returncode == 1 and b"was forgotten" in got.stderr
    assert f"#{int(target[2:])}".encode() not in run_zettelclaw("export").stdout

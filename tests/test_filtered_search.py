"""Filtered search (`search --subject X --type decision`, no words): ripgrep's single pass gives
exactly what the pure-Python reading gives: current versions only, in the log's order."""

from __future__ import annotations

import random

import orjson
import pytest

from tests.conftest import write_log
from zettelclaw import ripgrep as ripgrep_module

if ripgrep_module.ripgrep() is None:
    pytest.skip("ripgrep not installed", allow_module_level=True)


def entry(i, type_="decision", subject="webhooks", **fields):
    out = {"id": f"e{i:04d}", "timestamp": f"2026-03-{1 + i % 28:02d}T10:{i % 60:02d}:00Z",
           "type": type_, "content": f"entry {i} about {subject}", "subject": subject,
           "session": f"s{i % 3}"}
    if type_ == "task":
        out["status"] = "open" if i % 2 else "done"
    out.update(fields)
    return out


# replacements of every kind: a chain (1 <- 2 <- 3), a correction that moves to another subject
# (4 <- 5) or type (6 <- 7), one replaced twice (a fork: 8 <- 9, 8 <- 10), a cycle (11 <- 12,
# 12 <- 11: only the later replacement counts), an id nobody has, a replaces written by hand
# with spaces, a self-replacement and an entry replaced before it was written (hides nothing)
LINES = [
    entry(1), entry(2, replaces="e0001"), entry(3, replaces="e0002"),
    entry(4), entry(5, subject="queues", replaces="e0004"),
    entry(6, type_="fact", subject="webhooks"), entry(7, replaces="e0006"),
    entry(8), entry(9, replaces="e0008"), entry(10, replaces="e0008"),
    entry(11, replaces="e0012"), entry(12, replaces="e0011"),
    entry(13, replaces="nobody-here"), entry(14), entry(15, replaces="e0015"),
    entry(16, replaces="e0017"), entry(17), entry(18, type_="task"),
    entry(19, subject="queues"), entry(20, type_="fact", subject="webhooks", agent="ops"),
]
HAND_WRITTEN = (b'{"id": "e0021", "timestamp": "2026-03-22T10:00:00Z", "type": "decision", '
                b'"content": "by hand", "subject": "webhooks", "replaces" : "e0014"}\n')
TORN = b'{"id":"e0022","type":"decision","subject":"webhooks","content":"torn\n'
COLON = entry(23, id="e:0023")
TAIL = [COLON, entry(24, replaces="e:0023"), entry(25, subject="replaces"),
        entry(26, type_="question", subject="webhooks")]

FILTERS = [
    ["--subject", "webhooks"], ["--subject", "webhooks", "--type", "decision"],
    ["--type", "decision"], ["--type", "fact"], ["--subject", "queues", "--all"],
    ["--subject", "webhooks", "--type", "decision", "--all"],
    ["--subject", "webhooks", "--limit", "3"], ["--type", "task", "--status", "open"],
    ["--session", "s1", "--type", "decision"], ["--subject", "replaces"],
    ["--agent", "ops"], ["--subject", "webhooks", "--agent", "ops"], ["--subject", "nothing"],
]


@pytest.fixture
def full_log(log_dir):
    write_log(log_dir, LINES, raw_tail=HAND_WRITTEN + TORN)
    return write_log(log_dir, TAIL)


def both(zc, args):
    """The executable's answer with ripgrep and with the pure-Python reading."""
    fast = zc("search", *args, "--json")
    plain = zc("search", *args, "--json", env={"ZETTELCLAW_RG": "0"})
    assert fast.returncode == plain.returncode == 0, (fast.stderr, plain.stderr)
    return fast, plain


@pytest.mark.parametrize("args", FILTERS, ids=" ".join)
def test_ripgrep_and_python_give_the_same_results(full_log, zc, args):
    fast, plain = both(zc, args)
    assert fast.stdout == plain.stdout
    assert fast.stderr == plain.stderr  # the same warning about the torn line, if any


def ids(result) -> list[str]:
    return [orjson.loads(line)["id"] for line in result.stdout.splitlines()]


def test_only_current_versions_in_log_order(full_log, zc, cli):
    fast, plain = both(zc, ["--subject", "webhooks", "--type", "decision"])
    # 1, 2 replaced along the chain; 4 moved to queues; 8 replaced (twice); 11 replaced by
    # 12 (the later line of the cycle); 14 replaced by the hand-written line; e:0023 by 24
    expected = ["e0003", "e0007", "e0009", "e0010", "e0012", "e0013", "e0015", "e0016",
                "e0017", "e0021", "e0024"]
    assert ids(fast) == ids(plain) == expected
    assert "skipped 1 invalid line" in fast.stderr.decode()
    # the in-process CLI (Typer) takes the same way
    assert [e["id"] for e in cli.lines("search", "--subject", "webhooks", "--type",
                                        "decision", "--json")] == expected
    replaced = {e["id"]: e.get("replacedBy") for e in cli.lines(
        "search", "--subject", "webhooks", "--type", "decision", "--all", "--json")}
    assert replaced["e0001"] == "e0002" and replaced["e0002"] == "e0003"
    assert replaced["e0008"] == "e0010" and replaced["e0011"] == "e0012"
    assert replaced["e0014"] == "e0021" and replaced["e0003"] is None


def test_the_fast_path_is_the_one_taken(full_log, cli, monkeypatch):
    calls = []
    real = ripgrep_module.Filtered.resolution

    def spy(self):
        found = real(self)
        calls.append(found is not None)
        return found

    monkeypatch.setattr(ripgrep_module.Filtered, "resolution", spy)
    cli.lines("search", "--subject", "webhooks", "--type", "decision", "--json")
    assert calls == [True]


@pytest.mark.parametrize("failing", ["replaces", "fixed-strings"])
def test_a_failing_ripgrep_pass_falls_back_to_python(full_log, zc, tmp_path, failing):
    """rg failing in either pass (the "replaces" one, or the lines'): the search reads the log
    in Python and answers the same, rather than trusting half an answer."""
    fake = tmp_path / "rg"
    fake.write_text(f'#!/bin/sh\ncase "$*" in *{failing}*) exit 2;; esac\n'
                    f'exec {ripgrep_module.ripgrep()} "$@"\n')
    fake.chmod(0o755)
    for args in (["--subject", "webhooks", "--type", "decision"], ["--type", "fact", "--all"]):
        fast = zc("search", *args, "--json", env={"ZETTELCLAW_RG": str(fake)})
        plain = zc("search", *args, "--json", env={"ZETTELCLAW_RG": "0"})
        assert fast.returncode == plain.returncode == 0, fast.stderr
        assert fast.stdout == plain.stdout and fast.stdout
        assert fast.stderr == plain.stderr


def test_a_log_renamed_over_while_ripgrep_reads_is_read_again(full_log, zc, tmp_path):
    """`subjects rename` renames a new log over the old one while rg reads: the search never
    mixes rg's offsets in one file with the lines of the other; it reads the new log."""
    swap = tmp_path / "new-log.jsonl"
    swap.write_bytes(orjson.dumps(entry(0, subject="elsewhere", content="x" * 500)) + b"\n"
                     + full_log.read_bytes())
    fake = tmp_path / "rg"
    fake.write_text(f'#!/bin/sh\ncase "$*" in *replaces*) [ -f {swap} ] && mv {swap} '
                    f'{full_log};; esac\nexec {ripgrep_module.ripgrep()} "$@"\n')
    fake.chmod(0o755)
    args = ["search", "--subject", "webhooks", "--type", "decision", "--json"]
    fast = zc(*args, env={"ZETTELCLAW_RG": str(fake)})
    assert not swap.exists()  # the log was renamed over during the search
    plain = zc(*args, env={"ZETTELCLAW_RG": "0"})
    assert fast.returncode == plain.returncode == 0, fast.stderr
    assert ids(fast) == ids(plain) == ["e0003", "e0007", "e0009", "e0010", "e0012", "e0013",
                                       "e0015", "e0016", "e0017", "e0021", "e0024"]


SPAWN_FIRST = """
import io, sys, contextlib
events = []

def hook(event, args):
    if event == "import" and args[0] in ("orjson", "zettelclaw.query"):
        events.append(args[0])
    elif event == "os.posix_spawn":
        events.append("rg " + " ".join(map(str, args[1][1:])))

sys.addaudithook(hook)
sys.argv = ["zettelclaw", "search", "--subject", "webhooks", "--type", "decision", "--json"]
from zettelclaw.__main__ import main
with contextlib.redirect_stdout(io.StringIO()) as out:
    main()
assert out.getvalue().count("\\n") == 11, out.getvalue()
print("\\n".join(dict.fromkeys(events)))
"""


def test_ripgrep_starts_before_the_imports(full_log):
    """The hot path starts rg's passes first: Python imports what it needs while rg reads."""
    import os
    import subprocess
    import sys

    result = subprocess.run([sys.executable, "-c", SPAWN_FIRST], capture_output=True,
                            text=True, env=os.environ)
    assert result.returncode == 0, result.stderr
    events = result.stdout.splitlines()
    spawned = [i for i, e in enumerate(events) if e.startswith("rg ")]
    # the "replaces" pass, the lines holding one value, then those holding the other too
    assert len(spawned) == 3, events
    assert "replaces" in events[spawned[0]]
    assert {events[spawned[1]].split(" -- ")[0].split()[-1], events[spawned[2]].split()[-2]
            } == {'"webhooks"', '"decision"'}, events
    assert spawned[-1] < events.index("orjson") and spawned[-1] < events.index(
        "zettelclaw.query"), events


@pytest.mark.parametrize("forks", [False, True], ids=["chains", "forks"])
@pytest.mark.parametrize("seed", range(4))
def test_random_logs_agree(log_dir, zc, seed, forks):
    rng = random.Random(seed)
    subjects, types = ["alpha", "beta", "gamma"], ["decision", "fact", "task", "question"]
    lines, named = [], set()
    for i in range(400):
        fields = {}
        if lines and rng.random() < 0.3:
            target = rng.choice(lines)["id"] if rng.random() < 0.9 else f"e{i + 3:04d}"
            if forks or target not in named:  # without forks, every id is replaced once
                fields["replaces"] = target
                named.add(target)
        lines.append(entry(i, type_=rng.choice(types), subject=rng.choice(subjects), **fields))
    write_log(log_dir, lines)
    for args in (["--subject", "alpha", "--type", "decision"], ["--subject", "beta", "--all"],
                 ["--type", "fact", "--limit", "7"], ["--subject", "gamma", "--type", "task",
                                                      "--status", "open"]):
        fast, plain = both(zc, args)
        assert fast.stdout == plain.stdout, args

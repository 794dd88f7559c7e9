"""What doctor, stats, sweep and get say to a person (issue 14): exit statuses that hold
through a pipe, counted nouns that agree, and hints that name the command to run."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import DESIGN_LINES, write_log
from zettelclaw.counts import count


def _exe() -> list[str]:
    exe = Path(sys.executable).parent / "zettelclaw"
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "zettelclaw"]


@pytest.mark.parametrize("args", [("doctor",), ("doctor", "--json")])
def test_doctor_exits_1_on_problems_even_when_the_reader_stops_early(args, zc_env):
    # `zettelclaw doctor | head -1`: the reader is gone before doctor writes its first line
    proc = subprocess.Popen([*_exe(), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL)
    proc.stdout.close()
    stderr = proc.stderr.read().decode()
    assert proc.wait(120) == 1  # nothing is set up: problems
    assert stderr == ""  # quietly: no traceback, no "Exception ignored"


def test_doctor_exit_status_under_pipefail_with_head(zc_env):
    proc = subprocess.run(["bash", "-o", "pipefail", "-c",
                           " ".join(_exe()) + " doctor | head -1"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    assert len(proc.stdout.splitlines()) == 1 and proc.stderr == ""


def test_counted_nouns_agree():
    assert [count(n, "open questions") for n in (0, 1, 2)] == [
        "0 open questions", "1 open question", "2 open questions"]
    assert [count(n, "entry") for n in (1, 3)] == ["1 entry", "3 entries"]
    assert count(1, "session") == "1 session" and count(4, "problem") == "4 problems"


def test_doctor_stats_and_sweep_say_no_counted_noun_with_an_s_in_brackets(cli, log_dir):
    write_log(log_dir, DESIGN_LINES)
    doctor = cli("doctor", "--text")
    assert doctor.exit_code == 1
    # (a home init never wired: "... not wired into zettelclaw: ...; 2 warnings.")
    counted = re.findall(r"\d+ (?:other )?(?:problem|warning)s?",
                         doctor.stdout.splitlines()[-1])
    assert counted, doctor.stdout
    for said in counted:
        assert said.startswith("1 ") != said.endswith("s"), said
    for result in (doctor, cli("stats"), cli("sweep", "--text")):
        assert "(s)" not in result.stdout + result.stderr, result.stdout


def test_a_mistyped_id_is_no_entry_not_a_refused_file(cli, log_dir):
    write_log(log_dir, DESIGN_LINES)
    eleven = DESIGN_LINES[0]["id"][:11]
    result = cli("get", eleven)
    assert result.exit_code == 1
    assert result.stderr == (f"Error: no entry with id {eleven} (ids are 12 characters; "
                             "this is 11)\n")
    assert "refused" in cli("get", "notes.txt").stderr  # a file name is still a file name


def test_doctor_names_the_command_that_retries_each_kind_of_failure(cli, log_dir):
    from zettelclaw.state import State

    write_log(log_dir, DESIGN_LINES)
    state = State.load()
    state.failedSessions["s-hook"] = {"error": "HTTP 500", "retries": 1, "permanent": True}
    state.save()

    def extraction() -> dict:
        report = json.loads(cli("doctor", "--json").stdout)
        return next(c for c in report["checks"] if c["name"] == "extraction")

    check = extraction()
    assert check["detail"] == "1 session failed to extract"
    assert check["fix"] == "zettelclaw sweep --retry-failed"

    state = State.load()
    del state.failedSessions["s-hook"]
    state.failedSessions["s-old"] = {"error": "HTTP 500", "retries": 1, "permanent": True,
                                     "history": True}
    state.save()
    check = extraction()
    assert check["detail"] == "1 session of the history failed to import"
    assert check["fix"] == "zettelclaw import"

    state = State.load()
    state.failedSessions["s-hook"] = {"error": "HTTP 500", "retries": 0, "permanent": False}
    state.failedSessions["s-hook-2"] = {"error": "HTTP 500", "retries": 0, "permanent": False}
    state.save()
    check = extraction()
    assert check["detail"] == ("2 sessions failed to extract; "
                               "1 session of the history failed to import")
    assert "zettelclaw sweep --retry-failed" in check["fix"]
    assert "zettelclaw import" in check["fix"]


def test_sweep_without_openclaw_says_so(cli, zc_env, tmp_path, monkeypatch):
    missing = tmp_path / "no-openclaw-here"
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(missing))
    result = cli("sweep", "--text")
    assert result.exit_code == 1
    assert result.stderr == (f"Error: no OpenClaw state directory at {missing}, so no sessions "
                             "to sweep; set OPENCLAW_STATE_DIR if OpenClaw keeps it elsewhere\n")
    assert not missing.exists()


def test_sweep_of_an_unknown_agent_lists_the_known_ones(cli, zc_env):
    for agent in ("main", "work"):
        (zc_env["state"] / "agents" / agent / "sessions").mkdir(parents=True)
    result = cli("sweep", "--text", "--agent", "wrok")
    assert result.exit_code == 2
    assert result.stderr == (f"Error: OpenClaw has no agent 'wrok' (in {zc_env['state']}); "
                             "its agents: main, work\n")
    assert cli("sweep", "--text", "--agent", "work").exit_code == 0

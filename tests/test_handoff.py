"""The last handoff (design §6): what `zettelclaw handoff` prints before every prompt."""

from __future__ import annotations

import subprocess
import sys

import orjson

from tests.conftest import DESIGN_LINES, write_log


def test_handoff_prints_the_design_block_and_the_sessions_open_tasks(design_log, zc):
    result = zc("handoff")
    assert result.returncode == 0
    text = result.stdout.decode()
    assert text.splitlines()[:4] == [
        "## Last Session Handoff",
        "Session: abc12345 (2026-02-20T15:30:00Z)",
        "Auth migration — retry logic implementation, backfill script not started",
        "Detail: Exponential backoff working in staging. Still need backfill script for 47 "
        "failed jobs, then canary deploy. Load testing not done yet.",
    ]
    assert "- Write backfill script for 47 failed webhook jobs from last week" in text
    # the session's decision was replaced later, so it is not offered as current
    assert "Queue-based retries for webhook delivery" not in text


def test_handoff_json(design_log, zc):
    found = orjson.loads(zc("handoff", "--json").stdout)
    assert found["handoff"]["id"] == "Ym8kP_3wNx5Q"
    assert [t["id"] for t in found["openTasks"]] == ["Ht4vL_9qRx2D"]


def test_no_handoff_prints_nothing_and_exits_0(log_dir, zc):
    assert zc("handoff").stdout == b"" and zc("handoff").returncode == 0
    write_log(log_dir, DESIGN_LINES[:2])
    result = zc("handoff")
    assert result.returncode == 0 and result.stdout == b""


def test_the_latest_handoff_wins_and_a_corrected_handoff_is_skipped(log_dir, zc):
    h1 = {**DESIGN_LINES[4]}
    h2 = {**DESIGN_LINES[4], "id": "Zz9yX_8wVu7T", "timestamp": "2026-02-21T09:00:00Z",
          "content": "Backfill script written", "session": "later001"}
    fix = {**h2, "id": "Fx1xF_2xF3xF", "content": "Backfill script written and run",
           "replaces": "Zz9yX_8wVu7T"}
    write_log(log_dir, [h1, h2])
    assert "Backfill script written" in zc("handoff").stdout.decode()
    write_log(log_dir, [fix])
    assert orjson.loads(zc("handoff", "--json").stdout)["handoff"]["id"] == "Fx1xF_2xF3xF"


def test_home_option_works_on_the_fast_path(tmp_path, zc):
    other = tmp_path / "elsewhere"
    write_log(other, DESIGN_LINES)
    assert b"abc12345" in zc("--home", str(other), "handoff").stdout
    assert b"abc12345" in zc(f"--home={other}", "handoff", "--json").stdout


def test_handoff_does_not_import_the_sdk_typer_rich_or_pydantic(design_log):
    code = (
        "import sys, io, contextlib\n"
        "sys.argv = ['zettelclaw', 'handoff']\n"
        "from zettelclaw.__main__ import main\n"
        "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
        "    main()\n"
        "assert 'abc12345' in out.getvalue()\n"
        "heavy = [m for m in ('anthropic', 'typer', 'rich', 'pydantic', 'httpx') "
        "if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ""


def test_handoff_help_goes_through_the_full_cli(zc):
    result = zc("handoff", "--help")
    assert result.returncode == 0
    assert b"last handoff" in result.stdout

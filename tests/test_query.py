"""Queries: the design's ripgrep one-liners (§3.4) and `zettelclaw search` agree."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from tests.conftest import DESIGN_LINES, write_log
from zettelclaw.errors import UsageError
from zettelclaw.query import parse_when

MORE = [
    {"id": "Qa1bC_2dEf3G", "timestamp": "2026-02-27T09:00:00Z", "type": "task",
     "content": "Canary deploy with 24h monitoring", "status": "done",
     "subject": "auth-migration", "session": "ghi11111"},
    {"id": "Wh1sP_3rStT4", "timestamp": "2026-01-08T09:00:00Z", "type": "fact",
     "content": "Whisper STT runs on the GPU box", "subject": "whisper-stt",
     "session": "old00001"},
]


def rg(pattern: str, path: Path) -> list[dict]:
    """The design's one-liner, run with ripgrep when installed, else an equivalent regex."""
    exe = shutil.which("rg") or str(Path(sys.executable).parent / "rg")
    if Path(exe).exists():
        out = subprocess.run([exe, "--no-filename", pattern, str(path)], capture_output=True)
        lines = out.stdout.splitlines()
    else:
        lines = [ln for ln in path.read_bytes().splitlines() if re.search(pattern.encode(), ln)]
    return [orjson.loads(line) for line in lines]


def ids(entries):
    return [e["id"] for e in entries]


@pytest.fixture
def full_log(log_dir):
    return write_log(log_dir, DESIGN_LINES + MORE)


@pytest.mark.parametrize("pattern,args", [
    ('"type":"decision"', ["--type", "decision"]),
    ('"subject":"auth-migration"', ["--subject", "auth-migration"]),
    ('"status":"open"', ["--status", "open"]),
    ('"type":"question"', ["--type", "question"]),
    ('"session":"abc12345"', ["--session", "abc12345"]),
    ("webhook", ["webhook"]),
])
def test_design_one_liners_match_search_with_all(full_log, cli, pattern, args):
    # rg sees every line, replaced or not: compare with --all
    expected = rg(pattern, full_log)
    got = cli.lines("search", *args, "--all", "--json")
    assert ids(got) == ids(expected)
    assert got and all("replacedBy" not in e or e["replacedBy"] for e in got)


def test_last_handoff_one_liner_matches_handoff_command(full_log, cli):
    last = rg('"type":"handoff"', full_log)[-1]
    result = cli("handoff", "--json")
    assert orjson.loads(result.stdout)["handoff"] == last


def test_search_lines_are_the_stored_objects_unchanged(full_log, cli):
    stored = {e["id"]: e for e in (orjson.loads(ln) for ln in full_log.read_bytes().splitlines())}
    for entry in cli.lines("search", "--json"):
        assert entry == stored[entry["id"]]


def test_filters_combine_and_hide_replaced_entries(full_log, cli):
    assert ids(cli.lines("search", "--type", "decision", "--subject", "auth-migration",
                         "--json")) == ["Cx6tM_1pWn8Y"]
    assert ids(cli.lines("search", "--type", "task", "--status", "done")) == ["Qa1bC_2dEf3G"]


def test_keywords_are_case_insensitive_over_content_and_detail(full_log, cli):
    assert ids(cli.lines("search", "DLQ")) == ["Cx6tM_1pWn8Y"]  # only in detail
    assert ids(cli.lines("search", "WHISPER", "gpu")) == ["Wh1sP_3rStT4"]
    # a query ranks: entries with either word come back, best first, and nothing else does
    got = [e for e in cli.lines("search", "whisper", "webhook") if "id" in e]
    assert got and [e["score"] for e in got] == sorted((e["score"] for e in got), reverse=True)
    for e in got:
        text = (e["content"] + " " + e.get("detail", "")).lower()
        assert "whisper" in text or "webhook" in text


def test_since_and_until_take_dates_and_relative_forms(full_log, cli):
    assert ids(cli.lines("search", "--since", "2026-02-26", "--until", "2026-02-26")) == [
        "Cx6tM_1pWn8Y", "Dw9sN_2qXk7Z"]
    assert ids(cli.lines("search", "--until", "2026-01-31")) == ["Wh1sP_3rStT4"]
    recent = cli.lines("search", "--since", "7d")
    assert recent == []  # every fixture entry is older than a week


def test_limit_keeps_the_latest_dated(full_log, cli):
    # the January whisper fact is the last line, not one of the two latest entries
    assert ids(cli.lines("search", "--limit", "2")) == ["Dw9sN_2qXk7Z", "Qa1bC_2dEf3G"]


def test_bad_filter_values_are_usage_errors(full_log, cli):
    for args in (["--type", "note"], ["--status", "blocked"], ["--since", "last tuesday-ish"]):
        result = cli("search", *args)
        assert result.exit_code == 2
        assert result.stderr.startswith("Error: ")
        # a bad value of --type or --status: and the Try line, as Click's own (issue 41)
        tries = ["Try 'zettelclaw search --help'."] if args[0] != "--since" else []
        assert result.stderr.strip().splitlines()[1:] == tries


def test_parse_when_forms():
    from datetime import datetime, timezone

    now = datetime(2026, 3, 1, 12, tzinfo=timezone.utc)
    assert parse_when("7d", now=now) == datetime(2026, 2, 22, 12, tzinfo=timezone.utc)
    assert parse_when("12h", now=now) == datetime(2026, 3, 1, 0, tzinfo=timezone.utc)
    assert parse_when("2w", now=now) == datetime(2026, 2, 15, 12, tzinfo=timezone.utc)
    assert parse_when("2026-02-20") == datetime(2026, 2, 20, tzinfo=timezone.utc)
    assert parse_when("2026-02-20", end_of_day=True) == datetime(2026, 2, 21, tzinfo=timezone.utc)
    assert parse_when("2026-02-20T15:30:00Z").hour == 15
    with pytest.raises(UsageError):
        parse_when("soonish")


def test_table_output_for_people(full_log, cli, monkeypatch):
    import zettelclaw.render as render

    monkeypatch.setattr(render, "want_json", lambda as_json: bool(as_json))
    monkeypatch.setenv("COLUMNS", "200")
    result = cli("search", "--type", "decision")
    assert "Queue-based retries with dead-letter" in result.stdout
    assert "Cx6tM_1pWn8Y" in result.stdout

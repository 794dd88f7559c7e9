"""A time whose offset takes it out of the years 1-9999 in UTC (issue 41 §1):
``9999-12-31T23:59:59-12:00`` is 10000-01-01 in UTC, ``0001-01-01T00:00:00+14:00`` is year 0.
On a log line, in ``ZETTELCLAW_NOW`` or in ``--since``, it is taken as the last or first
moment there is; every reader still answers, the other entries too."""

from __future__ import annotations

import orjson
import pytest

from tests.conftest import write_log
from zettelclaw.clock import format_ts, parse_ts

LATEST = "9999-12-31T23:59:59-12:00"
EARLIEST = "0001-01-01T00:00:00+14:00"

ENTRIES = [
    {"id": "Webhook00001", "timestamp": "2026-03-01T10:00:00Z", "type": "fact",
     "content": "Webhook retries back off exponentially", "session": "s1"},
    {"id": "Backfill0001", "timestamp": "2026-03-01T10:05:00Z", "type": "task",
     "status": "open", "content": "Write the webhook backfill script", "session": "s1"},
    {"id": "FarLater0001", "timestamp": LATEST, "type": "fact",
     "content": "The webhook queue is drained at the end of time", "session": "s2"},
    {"id": "FarEarly0001", "timestamp": EARLIEST, "type": "handoff",
     "content": "Webhook work handed over before time began", "session": "s3"},
]


def test_an_offset_past_the_years_is_read_as_the_last_or_first_moment_there_is():
    assert format_ts(parse_ts(LATEST)) == "9999-12-31T23:59:59Z"
    assert format_ts(parse_ts(EARLIEST)) == "0001-01-01T00:00:00Z"
    assert format_ts(parse_ts("2026-03-01T10:00:00+02:00")) == "2026-03-01T08:00:00Z"


READERS = [
    ("search", "webhook"),
    ("search", "--type", "fact"),
    ("log",),
    ("recall", "--", "how do webhook retries work"),
    ("handoff", "--text"),
    ("review",),
    ("brief", "--dry-run", "--no-llm"),
    ("stats",),
]


@pytest.mark.parametrize("args", READERS, ids=[" ".join(a) for a in READERS])
def test_a_log_line_dated_past_the_years_leaves_every_reader_answering(log_dir, zc, args):
    write_log(log_dir, ENTRIES)
    result = zc(*args)
    err = result.stderr.decode()
    assert result.returncode == 0, err
    assert "Traceback" not in err and "OverflowError" not in err
    if args[0] in ("search", "log", "recall"):
        assert b"Webhook00001" in result.stdout, result.stdout  # the other entries are there


def test_search_and_log_list_the_far_lines_at_their_ends_with_the_rest(cli, log_dir):
    write_log(log_dir, ENTRIES)
    found = {e["id"] for e in cli.lines("search", "--json", "webhook")}
    latest = [e["id"] for e in cli.lines("log", "--json")]
    assert found == {"Webhook00001", "Backfill0001", "FarLater0001", "FarEarly0001"}
    assert latest[0] == "FarEarly0001" and latest[-1] == "FarLater0001"


def test_the_vault_is_built_with_a_far_dated_line_in_it(log_dir, tmp_path, zc):
    write_log(log_dir, ENTRIES)
    vault = tmp_path / "vault"
    result = zc("vault", "build", "--vault", str(vault))
    assert result.returncode == 0, result.stderr.decode()
    journal = "\n".join(p.read_text() for p in vault.rglob("03 Journal/*.md"))
    assert "Webhook retries back off exponentially" in journal
    assert "end of time" in journal


@pytest.mark.parametrize("now", [LATEST, EARLIEST])
@pytest.mark.parametrize("args", [("recall", "--", "how do webhook retries work"),
                                  ("brief", "--dry-run", "--no-llm"), ("review",),
                                  ("search", "webhook"), ("handoff", "--text")],
                         ids=["recall", "brief", "review", "search", "handoff"])
def test_a_now_past_the_years_is_no_crash(log_dir, zc, now, args):
    write_log(log_dir, ENTRIES[:2])
    result = zc(*args, env={"ZETTELCLAW_NOW": now})
    err = result.stderr.decode()
    assert result.returncode == 0, err
    assert "Traceback" not in err


@pytest.mark.parametrize("window", [("--since", LATEST), ("--until", EARLIEST)])
def test_a_window_past_the_years_is_no_crash(cli, log_dir, window):
    write_log(log_dir, ENTRIES)
    found = [e["id"] for e in cli.lines("search", "--json", *window)]
    # from the last moment on: the line dated then; before the first moment: nothing
    assert found == (["FarLater0001"] if window[0] == "--since" else [])


def test_the_far_line_is_kept_as_written(cli, log_dir):
    write_log(log_dir, ENTRIES)
    [got] = cli.lines("get", "--json", "FarLater0001")
    assert got["timestamp"] == LATEST  # the log is never rewritten by a reader
    assert orjson.loads((log_dir / "log.jsonl").read_bytes().splitlines()[2])["timestamp"] \
        == LATEST

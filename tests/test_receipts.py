"""Receipts (issue 42): every time memory is put before the model, one line beside the log
saying when, for which turn, session and person, and which entries and why; ids and reasons,
never an entry's text; kept for a bounded time; never extracted or injected."""

from __future__ import annotations

import orjson
import pytest

from tests.conftest import DESIGN_LINES, write_log
from tests.hotpath import imports_of

HANDOFF_ID = "Ym8kP_3wNx5Q"
BACKOFF = "backoff intervals for webhook bursts?"
KEY = "agent:main:main"


def receipts(log_dir) -> list[dict]:
    folder = log_dir / "receipts"
    if not folder.is_dir():
        return []
    return [orjson.loads(line) for path in sorted(folder.glob("*.jsonl"))
            for line in path.read_bytes().splitlines()]


@pytest.fixture
def turn_log(log_dir):
    return write_log(log_dir, DESIGN_LINES)


def _turn(zc, *args, turn="msg-1", message=BACKOFF):
    result = zc("recall", "--handoff", "--text", "--session-key", KEY, "--turn", turn,
                "--session-id", "s-1", *args, "--", message)
    assert result.returncode == 0, result.stderr
    return result.stdout.decode()


def test_the_receipt_of_a_turn_lists_the_handoff_and_the_two_recalled_entries_with_their_words(
        turn_log, log_dir, zc):
    said = _turn(zc)
    [receipt] = receipts(log_dir)
    assert receipt["turn"] == "msg-1" and receipt["session"] == "s-1"
    assert receipt["session_key"] == KEY and receipt["person"] == "owner"
    assert receipt["agent"] == "main" and receipt["by"] == "recall"
    whys = [(e["id"], e["why"]) for e in receipt["entries"]]
    # the handoff block: the handoff, its session's open task and decision (the current one)
    assert whys[:3] == [(HANDOFF_ID, "handoff"), ("Ht4vL_9qRx2D", "handoff open task"),
                        ("Cx6tM_1pWn8Y", "handoff decision")]
    recalled = [e for e in receipt["entries"] if e["why"] == "recall"]
    # the two entries the block shows after the handoff, in its order, with their words
    assert [e["id"] for e in recalled] == ["Dw9sN_2qXk7Z", "Jn2fR_7vKw4X"]
    assert "2s, 10s, 30s" in said and "10k/min" in said
    assert recalled[0]["words"] == ["backoff", "intervals"]
    assert recalled[1]["words"] == ["webhook", "bursts"]
    assert all(isinstance(e["score"], float) and e["score"] > 0 for e in recalled)


def test_a_turn_the_plugin_does_not_name_writes_no_receipt(turn_log, log_dir, zc):
    assert zc("recall", "--handoff", "--text", "--", BACKOFF).returncode == 0
    assert zc("search", "--json", "webhook").returncode == 0
    assert receipts(log_dir) == []


def test_a_turn_that_puts_nothing_before_the_model_writes_no_receipt(log_dir, zc):
    write_log(log_dir, [e for e in DESIGN_LINES if e["type"] != "handoff"])
    _turn(zc, message="thanks!")
    assert receipts(log_dir) == []


def test_a_forgotten_entrys_receipts_hold_no_text(turn_log, log_dir, zc, cli):
    _turn(zc)
    result = cli("forget", "--yes", "Dw9sN_2qXk7Z")
    assert result.exit_code == 0, result.stderr
    raw = b"".join(p.read_bytes() for p in (log_dir / "receipts").iterdir())
    assert b"Dw9sN_2qXk7Z" in raw  # the id and why stay, as they were written
    for entry in DESIGN_LINES:
        for field in ("content", "detail"):
            if entry.get(field):
                assert entry[field].encode() not in raw
    assert b"2s, 10s" not in raw and b"Previous entry" not in raw


def test_the_receipts_are_never_searched_recalled_or_shown_to_extraction(turn_log, log_dir, zc):
    before = _turn(zc, turn="msg-1")
    assert _turn(zc, turn="msg-2") == before, "a turn's answer is the same with receipts kept"
    found = zc("search", "--json", "msg-1 recall handoff")
    assert b"msg-1" not in found.stdout
    assert (log_dir / "log.jsonl").read_bytes().count(b"\n") == len(DESIGN_LINES)


def test_memory_search_and_memory_get_answers_are_receipted_with_the_tool_call(
        turn_log, log_dir, zc):
    search = zc("search", "--json", "--session-key", KEY, "--turn", "msg-3", "--session-id",
                "s-1", "--tool-call", "call-1", "--limit", "2", "--", "dead-letter queue")
    assert search.returncode == 0, search.stderr
    got = zc("get", "--json", "--session-key", KEY, "--turn", "msg-3", "--tool-call", "call-2",
             "--", "Cx6tM_1pWn8Y")
    assert got.returncode == 0, got.stderr
    by_search, by_get = receipts(log_dir)
    assert (by_search["by"], by_search["call"], by_search["turn"]) == (
        "memory_search", "call-1", "msg-3")
    assert by_search["entries"][0]["id"] == "Cx6tM_1pWn8Y"
    assert by_search["entries"][0]["words"] == ["dead", "letter", "queue"]
    assert (by_get["by"], by_get["call"]) == ("memory_get", "call-2")
    assert by_get["entries"] == [{"id": "Cx6tM_1pWn8Y", "why": "memory_get"}]


def test_the_search_the_full_cli_answers_writes_the_same_receipt(turn_log, log_dir, cli, zc):
    args = ["search", "--json", "--session-key", KEY, "--turn", "msg-4", "--tool-call", "c",
            "--", "webhook retries"]
    assert zc(*args).returncode == 0
    assert cli(*args).exit_code == 0
    hot, full = receipts(log_dir)
    assert {**hot, "at": ""} == {**full, "at": ""}


def test_another_persons_turn_is_receipted_as_theirs(log_dir, zc):
    write_log(log_dir, [{"id": "Tg0aa_000001", "timestamp": "2026-02-20T14:20:00Z",
                         "type": "fact", "content": "Alice's gate code is 4417",
                         "session": "tg1", "person": "telegram:123", "origin": "owner"}])
    key = "agent:main:telegram:direct:123"
    result = zc("recall", "--text", "--session-key", key, "--turn", "m", "--", "gate code?")
    assert "4417" in result.stdout.decode()
    [receipt] = receipts(log_dir)
    assert receipt["person"] == "telegram:123" and receipt["session_key"] == key


def test_receipts_older_than_keep_days_go_when_a_new_days_first_receipt_is_written(
        turn_log, log_dir, zc, zc_env):
    (zc_env["state"] / "openclaw.json").write_text(orjson.dumps(
        {"plugins": {"entries": {"zettelclaw": {"config": {"receipts": {"keepDays": 3}}}}}}
    ).decode())
    for day in ("2026-03-01", "2026-03-02", "2026-03-04", "2026-03-05"):
        result = zc("recall", "--handoff", "--text", "--turn", day, "--", BACKOFF,
                    env={"ZETTELCLAW_NOW": f"{day}T12:00:00Z"})
        assert result.returncode == 0, result.stderr
    kept = sorted(p.name for p in (log_dir / "receipts").iterdir())
    # the 5th keeps the 3 days up to it: the 3rd (none written), 4th and 5th
    assert kept == ["2026-03-04.jsonl", "2026-03-05.jsonl"]


def test_keep_days_zero_keeps_no_receipts(turn_log, log_dir, zc, zc_env):
    (zc_env["state"] / "openclaw.json").write_text(orjson.dumps(
        {"plugins": {"entries": {"zettelclaw": {"config": {"receipts": {"keepDays": 0}}}}}}
    ).decode())
    _turn(zc)
    assert receipts(log_dir) == []


def test_by_default_receipts_are_kept_90_days(turn_log, log_dir, zc):
    for day in ("2026-01-01", "2026-03-31", "2026-04-01"):
        zc("recall", "--handoff", "--text", "--turn", day, "--", BACKOFF,
           env={"ZETTELCLAW_NOW": f"{day}T12:00:00Z"})
    kept = sorted(p.name for p in (log_dir / "receipts").iterdir())
    assert kept == ["2026-03-31.jsonl", "2026-04-01.jsonl"]  # Jan 1 is 90 days before Apr 1


def test_a_receipted_turn_imports_nothing_more_than_a_turn(turn_log, log_dir, zc):
    _turn(zc)  # today's first receipt (which prunes) was written: this is every other turn
    assert imports_of(["recall", "--handoff", "--text", "--turn", "m2", "--session-key", KEY,
                       "--", BACKOFF], "2s, 10s, 30s",
                      ("anthropic", "typer", "rich", "pydantic", "orjson", "json", "re",
                       "datetime", "dataclasses", "pathlib", "subprocess", "fcntl")) == []
    assert len(receipts(log_dir)) == 2

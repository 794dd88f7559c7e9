"""``zettelclaw why`` (issue 42): what memory was put before the model, and why, from the
receipts: for a turn or a session in order, for an entry every turn it was shown."""

from __future__ import annotations

import orjson
import pytest

from tests.conftest import DESIGN_LINES, write_log

KEY = "agent:main:main"
ASK = "backoff intervals for webhook bursts?"


@pytest.fixture
def turns(log_dir, zc):
    write_log(log_dir, DESIGN_LINES)

    def turn(turn_id, message=ASK, session="6f1c0d2e"):
        result = zc("recall", "--handoff", "--text", "--session-key", KEY, "--turn", turn_id,
                    "--session-id", session, "--", message)
        assert result.returncode == 0, result.stderr

    return turn


def _why(cli, *args) -> list[dict]:
    result = cli("why", *args)
    assert result.exit_code == 0, result.stderr
    return [orjson.loads(line) for line in result.stdout.splitlines()]


def test_why_of_a_turn_lists_the_handoff_then_the_recalled_entries_with_their_words(turns, cli):
    turns("msg-1")
    rows = _why(cli, "--turn", "msg-1")
    assert [(r["id"], r["why"]) for r in rows] == [
        ("Ym8kP_3wNx5Q", "handoff"), ("Ht4vL_9qRx2D", "handoff open task"),
        ("Cx6tM_1pWn8Y", "handoff decision"), ("Dw9sN_2qXk7Z", "recall"),
        ("Jn2fR_7vKw4X", "recall")]
    backoff = rows[3]
    assert backoff["words"] == ["backoff", "intervals"]
    assert backoff["content"] == "Exponential backoff intervals: 2s, 10s, 30s"
    assert backoff["session"] == "6f1c0d2e" and backoff["person"] == "owner"


def test_why_alone_is_the_last_turn(turns, cli):
    turns("msg-1")
    turns("msg-2", message="is the retry strategy enough for webhook bursts?")
    rows = _why(cli)
    assert {r["turn"] for r in rows} == {"msg-2"}
    assert [r["id"] for r in rows if r["why"] == "recall"] == ["Jn2fR_7vKw4X"]


def test_why_of_an_entry_lists_every_turn_it_was_put_before_the_model(turns, cli):
    turns("msg-1")
    turns("msg-2", message="the weather today")  # recalls nothing: the handoff alone
    turns("msg-3", message="is the retry strategy enough for webhook bursts?", session="s-2")
    rows = _why(cli, "Jn2fR_7vKw4X")
    assert [(r["turn"], r["session"]) for r in rows] == [("msg-1", "6f1c0d2e"),
                                                        ("msg-3", "s-2")]


def test_why_of_a_session_takes_its_id_a_start_of_it_or_its_key(turns, cli):
    turns("msg-1")
    turns("msg-2", session="s-2")
    for asked in ("6f1c0d2e", "6f1c", ):
        assert {r["turn"] for r in _why(cli, "--session", asked)} == {"msg-1"}
    assert {r["turn"] for r in _why(cli, "--session", KEY)} == {"msg-1", "msg-2"}


def test_a_forgotten_entry_shows_as_forgotten_without_its_text(turns, cli):
    turns("msg-1")
    assert cli("forget", "--yes", "Dw9sN_2qXk7Z").exit_code == 0
    [row] = _why(cli, "Dw9sN_2qXk7Z")
    assert row["forgotten"] and row["type"] == "fact"
    assert "content" not in row and "2s, 10s" not in orjson.dumps(row).decode()


def test_a_turn_the_plugin_answered_from_its_cache_shows_the_entries_of_the_turn_it_repeats(
        turns, cli, log_dir):
    turns("msg-1")
    [day] = (log_dir / "receipts").iterdir()
    with open(day, "ab") as fh:  # what the plugin appends for msg-2 (its cache of msg-1's run)
        fh.write(orjson.dumps({"at": "2026-11-29T10:00:00Z", "turn": "msg-2", "by": "plugin",
                               "part": "recall", "repeats": "msg-1", "agent": "main",
                               "session": "6f1c0d2e", "session_key": KEY}) + b"\n")
    rows = _why(cli, "--turn", "msg-2")
    assert [(r["id"], r["why"], r["repeats"]) for r in rows] == [
        ("Dw9sN_2qXk7Z", "recall", "msg-1"), ("Jn2fR_7vKw4X", "recall", "msg-1")]
    assert rows[0]["person"] == "owner"


def test_why_with_no_receipt_prints_no_row_and_exits_0(log_dir, cli):
    write_log(log_dir, DESIGN_LINES)
    result = cli("why", "--turn", "nope")
    assert result.exit_code == 0 and result.stdout == ""
    assert _why(cli, "--turn", "nope") == []


def test_why_on_a_terminal_is_a_table(turns, cli, monkeypatch):
    turns("msg-1")
    from zettelclaw import why

    rendered = why.table(why.rows(turn="msg-1"))
    from rich.console import Console

    console = Console(width=200, record=True)
    console.print(rendered)
    text = console.export_text()
    assert "recall: backoff, intervals" in text and "Exponential backoff intervals" in text
    assert "handoff open task" in text

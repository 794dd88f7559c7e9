"""Forgotten stays forgotten (issue 23, section 1): no path brings a forgotten entry back, not
an extraction of an older conversation, not one whose model answer comes after the forget; and
a forget says which current entries still quote what it hid, or forgets them by text."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from tests.conftest import write_log
from tests.test_corrections import _entry
from tests.test_extract import held_extraction, read_log

SID = "11111111-2222-4333-8444-555555555555"
GATE, NEWER = "gateCode0001", "gateCode0002"
OLD_WORDS, DETAIL = "The gate code is 4471", "Told by the landlord"


@pytest.fixture
def corrected_then_forgotten(log_dir, cli):
    """A fact corrected on the 25th, the whole chain then forgotten."""
    write_log(log_dir, [
        _entry(GATE, "fact", OLD_WORDS, stamp="2026-11-10T09:00:00Z", detail=DETAIL,
               subject="flat"),
        _entry(NEWER, "fact", "The gate code is 5582", stamp="2026-11-25T09:00:00Z",
               replaces=GATE, subject="flat")])
    assert cli("forget", GATE, "--yes").exit_code == 0


def conversation(home, day: int, text: str = "The gate code changed to 6693.") -> None:
    start = datetime(2026, 11, day, 9, 0, tzinfo=timezone.utc)
    home.jsonl_session("main", SID, [("user", text), ("assistant", "Noted.")],
                       key="agent:main:main", start=start)


def still_forgotten(cli) -> None:
    """What `get ID`, `get --history`, the agent's memory_get and `export --all` show of the
    forgotten chain: nothing of its words, every version still marked forgotten."""
    for args in (["get", GATE], ["get", "--history", GATE], ["get", "--json", GATE]):
        got = cli(*args)
        assert got.exit_code == 1 and "was forgotten" in got.stderr, (args, got.stdout)
        assert OLD_WORDS not in got.stdout and DETAIL not in got.stdout
    assert OLD_WORDS not in cli("export").stdout
    rows = [json.loads(line) for line in cli("export", "--all").stdout.splitlines()]
    assert [r["id"] for r in rows if r.get("replaces") == GATE] == [NEWER]  # no new version
    assert "forgotten" in next(r for r in rows if r["id"] == NEWER)


def test_an_older_conversation_never_sees_nor_revives_a_forgotten_chain(
        corrected_then_forgotten, cli, home, fake_anthropic, log_dir):
    """Extracted late (an import, a late sweep), a conversation dated before the correction
    saw the log as it stood then: the old version, the forget gone with the correction it
    named. The model's correction of that id brought it back everywhere."""
    conversation(home, 15)  # between the first version and its correction
    fake_anthropic.entries({"type": "fact", "content": "The gate code is 6693",
                            "replaces": GATE},
                           {"type": "handoff", "content": "Gate code noted"})
    result = cli("extract", "--session-id", SID)
    assert result.exit_code == 0, result.stderr
    shown = fake_anthropic.message_requests[-1].user_text
    assert "4471" not in shown and "5582" not in shown and GATE not in shown
    assert f"dropped replaces={GATE}: that entry was forgotten" in result.stderr
    still_forgotten(cli)
    kept = [e for e in read_log(log_dir) if e.get("content") == "The gate code is 6693"]
    assert len(kept) == 1 and "replaces" not in kept[0]  # kept, as a new entry


def test_a_forget_landing_while_the_model_answers_is_not_undone_by_its_answer(
        log_dir, cli, home, fake_anthropic):
    """The extraction showed the entry to the model; the person forgot it while the model
    was answering; the answer corrects it: the correction comes without its `replaces`."""
    write_log(log_dir, [_entry(GATE, "fact", OLD_WORDS, stamp="2026-11-10T09:00:00Z",
                               detail=DETAIL, subject="flat")])
    conversation(home, 15)
    reply = "\n".join(json.dumps(e) for e in [
        {"type": "fact", "content": "The gate code is 6693", "replaces": GATE},
        {"type": "handoff", "content": "Gate code noted"}])
    with held_extraction(fake_anthropic, SID, reply) as run:
        assert OLD_WORDS in fake_anthropic.message_requests[-1].user_text  # shown: not yet gone
        assert cli("forget", GATE, "--yes").exit_code == 0
    assert run.returncode == 0, run.err
    assert f"dropped replaces={GATE}: that entry was forgotten meanwhile".encode() in run.err
    for args in (["get", GATE], ["get", "--history", GATE]):
        got = cli(*args)
        assert got.exit_code == 1 and OLD_WORDS not in got.stdout
    assert [e["content"] for e in json.loads("[" + ",".join(
        cli("export").stdout.splitlines()) + "]")] == ["The gate code is 6693", "Gate code noted"]


def test_a_purged_entry_is_no_replaces_target_for_the_model(log_dir, cli, home, fake_anthropic):
    write_log(log_dir, [_entry(GATE, "fact", OLD_WORDS, stamp="2026-11-10T09:00:00Z")])
    assert cli("purge", GATE, "--yes").exit_code == 0
    conversation(home, 15)
    fake_anthropic.entries({"type": "fact", "content": "The gate code is 6693",
                            "replaces": GATE},
                           {"type": "handoff", "content": "Gate code noted"})
    result = cli("extract", "--session-id", SID)
    assert f"dropped replaces={GATE}: that entry was purged" in result.stderr
    assert "replaces" not in next(e for e in read_log(log_dir) if e.get("content"))
    assert "was purged" in cli("get", GATE).stderr


# -- what still quotes it -----------------------------------------------------------------------


@pytest.fixture
def quoted(log_dir):
    """A fact, the handoff that left off at it, a decision whose detail quotes it."""
    write_log(log_dir, [
        _entry(GATE, "fact", OLD_WORDS, stamp="2026-11-10T09:00:00Z", subject="flat"),
        _entry("handoff00001", "handoff", f"Left off at: {OLD_WORDS}",
               stamp="2026-11-10T09:30:00Z"),
        _entry("decision0001", "decision", "Change the gate code monthly",
               stamp="2026-11-11T09:00:00Z", detail=f"Because {OLD_WORDS} leaked")])


def test_forget_names_the_current_entries_that_still_quote_it(quoted, cli):
    result = cli("forget", GATE, "--yes")
    assert result.exit_code == 0, result.stderr
    assert "note: still quoted by handoff00001" in result.stderr
    assert "note: still quoted by decision0001" in result.stderr


def test_forget_match_forgets_by_text_as_purge_match_purges(quoted, cli, zc):
    dry = cli("forget", "--match", "gate code is 4471", "--dry-run", "--json")
    assert dry.exit_code == 0, dry.stderr
    assert [json.loads(line)["id"] for line in dry.stdout.splitlines()] == [
        GATE, "handoff00001", "decision0001"]
    assert cli("search", "4471").stdout.strip()  # the dry run changed nothing
    refused = cli("forget", "--match", "gate code is 4471")  # off a terminal: needs --yes
    assert refused.exit_code != 0 and cli("search", "4471").stdout.strip()
    assert cli("forget", "--match", "gt", "--yes").exit_code == 2  # as purge: 3 characters
    done = cli("forget", "--match", "gate code is 4471", "--yes")
    assert done.exit_code == 0, done.stderr
    assert len(done.stdout.splitlines()) == 3 and "still quoted" not in done.stderr
    assert cli("search", "4471").stdout.strip() == ""
    assert "4471" not in zc("handoff", "--text").stdout.decode()
    assert cli("forget", "--undo", GATE, "handoff00001", "decision0001", "--yes").exit_code == 0
    assert cli("search", "4471").stdout.strip()

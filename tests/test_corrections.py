"""One current version per correction chain, corrections that keep their subject and status,
and the same thing stored once (issue 10, points 3 and 7)."""

from __future__ import annotations

import orjson
import pytest

from tests.conftest import write_log
from tests.test_extract import read_log
from zettelclaw.corrections import normalise


def _write(cli, *args):
    result = cli("write", *args, "--json")
    assert result.exit_code == 0, result.stderr
    return orjson.loads(result.stdout), result.stderr


def _current_ids(cli, *filters) -> list[str]:
    return [e["id"] for e in cli.lines("search", "--json", *filters)]


# -- write --replaces ---------------------------------------------------------------------------


def test_write_replaces_on_an_old_id_corrects_the_current_head(log_dir, cli):
    first, _ = _write(cli, "fact", "Backoff is 1s", "--subject", "auth")
    second, _ = _write(cli, "fact", "Backoff is 2s", "--replaces", first["id"])
    third, note = _write(cli, "fact", "Backoff is 3s", "--replaces", first["id"])
    assert third["replaces"] == second["id"]
    assert first["id"] in note and second["id"] in note and "already replaced" in note
    assert _current_ids(cli, "--type", "fact") == [third["id"]]
    for member in (first, second, third):
        chain = cli.lines("get", member["id"], "--history", "--json")
        assert [e["id"] for e in chain] == [first["id"], second["id"], third["id"]]


def test_marking_a_task_done_keeps_its_subject(log_dir, cli):
    task, _ = _write(cli, "task", "Write the backfill script", "--subject", "auth-migration")
    done, _ = _write(cli, "task", "Write the backfill script", "--status", "done",
                     "--replaces", task["id"])
    assert done["subject"] == "auth-migration" and done["status"] == "done"
    assert _current_ids(cli, "--subject", "auth-migration") == [done["id"]]


def test_a_reworded_task_stays_done_and_a_given_subject_wins(log_dir, cli):
    task, _ = _write(cli, "task", "Backfill", "--subject", "auth", "--status", "done")
    reworded, _ = _write(cli, "task", "Backfill the 47 jobs", "--replaces", task["id"])
    assert reworded["status"] == "done" and reworded["subject"] == "auth"
    moved, _ = _write(cli, "fact", "Backfill ran", "--subject", "ops",
                      "--replaces", reworded["id"])
    assert moved["subject"] == "ops" and "status" not in moved


# -- the same thing stored once -----------------------------------------------------------------


def test_the_same_fact_written_twice_is_stored_once(log_dir, cli):
    first, _ = _write(cli, "fact", "Max owns the canary deploy", "--subject", "max")
    again, note = _write(cli, "fact", "  max owns the   CANARY deploy.", "--subject", "max")
    assert again == first
    assert f"already in the log as {first['id']}" in note
    assert len(read_log(log_dir)) == 1
    third, _ = _write(cli, "fact", "Max owns the canary deploy!", "--subject", "max")
    assert third == first and len(read_log(log_dir)) == 1


def test_the_same_fact_without_a_latin_word_is_stored_once(log_dir, cli):
    first, _ = _write(cli, "fact", "Ölçüm günlüğü İstanbul’da", "--subject", "ops")
    again, _ = _write(cli, "fact", "ölçüm  günlüğü i̇stanbul’da.", "--subject", "ops")
    kana, _ = _write(cli, "fact", "デプロイは金曜日")
    assert again == first and _write(cli, "fact", "デプロイは金曜日。")[0] == kana
    assert len(read_log(log_dir)) == 2


def test_what_is_not_the_same_is_stored(log_dir, cli):
    fact, _ = _write(cli, "fact", "Max owns the canary deploy", "--subject", "max")
    _write(cli, "fact", "Max owns the canary deploy", "--subject", "ops")  # another subject
    _write(cli, "decision", "Max owns the canary deploy", "--subject", "max")  # another type
    task, _ = _write(cli, "task", "Deploy the canary")
    _write(cli, "task", "Deploy the canary", "--status", "done")  # another status
    _write(cli, "handoff", "Canary waits on Max")
    _write(cli, "handoff", "Canary waits on Max")  # each conversation has its own
    # restating a fact that was corrected since is not a duplicate of anything current
    _write(cli, "fact", "Alice owns the canary deploy", "--replaces", fact["id"])
    _write(cli, "fact", "Max owns the canary deploy", "--subject", "max")
    assert len(read_log(log_dir)) == 9


def test_normalised_content():
    assert normalise("  Queue-based   RETRIES.\n") == "queue-based retries"
    assert normalise("Is it 10k/min?") == "is it 10k/min"
    assert normalise("v1.2") == "v1.2"


def _entry(id, type, content, stamp="2026-01-10T10:00:00Z", **extra):
    return {"id": id, "timestamp": stamp, "type": type, "content": content, "session": "s",
            **extra}


# -- a log forked before this rule --------------------------------------------------------------


@pytest.fixture
def forked_log(log_dir):
    return write_log(log_dir, [
        _entry("rootFact0001", "fact", "Backoff 1s", subject="auth"),
        _entry("forkAfact001", "fact", "Backoff 2s", replaces="rootFact0001", subject="auth"),
        _entry("forkBfact001", "fact", "Backoff 3s", replaces="rootFact0001", subject="auth"),
    ])


def test_a_forked_log_shows_both_heads_each_with_its_own_history(forked_log, cli):
    assert sorted(_current_ids(cli)) == ["forkAfact001", "forkBfact001"]
    history = {i: [e["id"] for e in cli.lines("get", i, "--history", "--json")]
               for i in ("rootFact0001", "forkAfact001", "forkBfact001")}
    assert history == {"rootFact0001": ["rootFact0001", "forkBfact001"],
                       "forkAfact001": ["rootFact0001", "forkAfact001"],
                       "forkBfact001": ["rootFact0001", "forkBfact001"]}
    stats = orjson.loads(cli("stats", "--json").stdout)["entries"]
    assert stats["current"] == 2 and stats["replaced"] == 1
    # a correction of the root now corrects the latest head only
    fixed, note = _write(cli, "fact", "Backoff 4s", "--replaces", "rootFact0001")
    assert fixed["replaces"] == "forkBfact001" and "already replaced" in note
    assert sorted(_current_ids(cli)) == sorted(["forkAfact001", fixed["id"]])

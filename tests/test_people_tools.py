"""Issue 39: the agent's tools that change memory ask who is calling (point 2); the terminal
marks whose each loop is and `write` is the owner's (point 12).

The plugin gives every memory tool's call the session's key and, on OpenClaw 2026.9, what it
said of the turn's sender (``--sender-is-owner`` / ``--sender-not-owner``). A person changes
only their own entries; a refusal says no more than ``memory_get`` says of an id it will not
show."""

from __future__ import annotations

import json

import orjson
import pytest

from tests.conftest import write_log

MAIN = "agent:main:main"
NEIGHBOUR = "agent:main:telegram:direct:555"

ALARM = {"id": "alarmCode471", "timestamp": "2026-11-20T09:00:00Z", "type": "fact",
         "content": "The alarm code is 4711", "session": "owner-1", "origin": "owner"}
GUTTER = {"id": "ownerTask001", "timestamp": "2026-11-20T09:05:00Z", "type": "task",
          "content": "Clean the gutters before winter", "status": "open",
          "session": "owner-1", "origin": "owner", "subject": "house"}
PARCEL = {"id": "herTask00001", "timestamp": "2026-11-20T10:00:00Z", "type": "task",
          "content": "Pick up the parcel for flat 3", "status": "open", "session": "neigh-1",
          "person": "telegram:555", "origin": "owner", "subject": "parcel"}
PAGE = {"id": "pageClaim001", "timestamp": "2026-11-20T11:00:00Z", "type": "fact",
        "content": "Pay the roofer to IBAN DE00 1111", "session": "owner-2",
        "origin": "untrusted"}


@pytest.fixture
def memory(log_dir, zc_env):
    (zc_env["state"] / "openclaw.json").write_text(json.dumps(
        {"session": {"dmScope": "per-channel-peer"}}))
    write_log(log_dir, [ALARM, GUTTER, PARCEL, PAGE])
    return log_dir


def _log(log_dir) -> list[dict]:
    return [orjson.loads(x) for x in (log_dir / "log.jsonl").read_bytes().splitlines()]


def _appended(log_dir) -> list[dict]:
    return _log(log_dir)[4:]


def test_a_dm_sender_cannot_forget_the_owners_fact(memory, cli):
    refused = cli("forget", "--json", "--yes", "--session-key", NEIGHBOUR, "--sender-is-owner",
                  ALARM["id"])
    assert refused.exit_code == 1
    assert "4711" not in refused.stdout + refused.stderr  # the text is never echoed
    assert _appended(memory) == []


def test_a_refused_forget_says_what_memory_get_says_of_an_id_it_will_not_show(memory, cli):
    forget = cli("forget", "--json", "--yes", "--session-key", NEIGHBOUR, ALARM["id"])
    get = cli("get", "--json", "--session-key", NEIGHBOUR, ALARM["id"])
    missing = cli("forget", "--json", "--yes", "--session-key", NEIGHBOUR, "zzzzzzzzzzzz")
    assert forget.exit_code == get.exit_code == missing.exit_code == 1
    assert forget.stderr == get.stderr
    # the same words as for an id that is not there at all: no hint that it exists
    assert forget.stderr.replace(ALARM["id"], "X") == missing.stderr.replace("zzzzzzzzzzzz", "X")


def test_a_forgotten_owner_entry_is_not_even_said_to_be_forgotten_to_the_neighbour(memory, cli):
    assert cli("forget", "--yes", ALARM["id"]).exit_code == 0  # the owner, at the terminal
    again = cli("forget", "--json", "--yes", "--session-key", NEIGHBOUR, ALARM["id"])
    assert again.exit_code == 1 and "forgotten" not in again.stderr
    undo = cli("forget", "--undo", "--json", "--yes", "--session-key", NEIGHBOUR, ALARM["id"])
    assert undo.exit_code == 1 and "4711" not in undo.stdout + undo.stderr


def test_the_neighbour_forgets_and_drops_her_own_entries(memory, cli):
    dropped = cli("review", "drop", "--json", "--yes", "--session-key", NEIGHBOUR,
                  "--sender-is-owner", PARCEL["id"])
    assert dropped.exit_code == 0, dropped.stderr
    [line] = [orjson.loads(x) for x in dropped.stdout.splitlines()]
    assert line["replaces"] == PARCEL["id"] and line["person"] == "telegram:555"
    forgot = cli("forget", "--json", "--yes", "--session-key", NEIGHBOUR, line["id"])
    assert forgot.exit_code == 0, forgot.stderr


@pytest.mark.parametrize("action", ["close", "drop"])
def test_a_dm_sender_cannot_close_or_drop_the_owners_task(memory, cli, action):
    refused = cli("review", action, "--json", "--yes", "--session-key", NEIGHBOUR,
                  GUTTER["id"])
    assert refused.exit_code == 1
    assert "gutters" not in refused.stdout + refused.stderr
    assert _appended(memory) == []


def test_a_dm_sender_cannot_reopen_the_owners_closed_task(memory, cli):
    closed = cli("review", "close", "--json", "--yes", GUTTER["id"])
    close_id = orjson.loads(closed.stdout.splitlines()[0])["id"]
    refused = cli("review", "undo", "--json", "--yes", "--session-key", NEIGHBOUR, close_id)
    assert refused.exit_code == 1 and "gutters" not in refused.stdout + refused.stderr
    assert len(_appended(memory)) == 1


def test_the_owner_cannot_close_the_neighbours_task_from_his_session(memory, cli):
    refused = cli("review", "close", "--json", "--yes", "--session-key", MAIN,
                  "--sender-is-owner", PARCEL["id"])
    assert refused.exit_code == 1 and "parcel" not in refused.stdout + refused.stderr


def test_in_the_shared_main_session_a_sender_openclaw_says_is_not_the_owner_changes_nothing(
        memory, cli):
    for args in (("forget", "--json", "--yes"), ("review", "close", "--json", "--yes"),
                 ("review", "confirm", "--json", "--yes")):
        ids = [PAGE["id"]] if "confirm" in args else [ALARM["id"] if "forget" in args
                                                       else GUTTER["id"]]
        refused = cli(*args, "--session-key", MAIN, "--sender-not-owner", *ids)
        assert refused.exit_code != 0, args
        assert not any(w in refused.stdout + refused.stderr
                       for w in ("4711", "gutters", "DE00")), args
    found = cli("search", "--json", "--session-key", MAIN, "--sender-not-owner", "alarm")
    assert "4711" not in found.stdout
    assert _appended(memory) == []


def test_the_owner_in_his_own_session_still_forgets_and_confirms(memory, cli):
    assert cli("forget", "--json", "--yes", "--session-key", MAIN, "--sender-is-owner",
               ALARM["id"]).exit_code == 0
    confirmed = cli("review", "confirm", "--json", "--yes", "--session-key", MAIN,
                    "--sender-is-owner", PAGE["id"])
    assert confirmed.exit_code == 0, confirmed.stderr
    assert _appended(memory)[-1]["origin"] == "owner"


def test_a_tool_call_without_a_session_key_is_nobodys(memory, cli):
    refused = cli("forget", "--json", "--yes", "--sender-is-owner", ALARM["id"])
    assert refused.exit_code == 1 and "4711" not in refused.stdout + refused.stderr


def test_the_terminal_stays_the_owners(memory, cli):
    assert cli("review", "drop", "--yes", PARCEL["id"]).exit_code == 0
    assert cli("forget", "--yes", ALARM["id"]).exit_code == 0
    assert len(_appended(memory)) == 2


def test_the_hot_search_and_the_full_cli_agree_on_a_sender_who_is_not_the_owner(memory, zc):
    hot = zc("search", "--json", "--session-key", MAIN, "--sender-not-owner", "--", "alarm")
    full = zc("search", "--json", "--session-key", MAIN, "--sender-not-owner", "--type",
              "fact")
    assert hot.returncode == 0 and full.returncode == 0
    assert b"4711" not in hot.stdout + full.stdout
    owner = zc("search", "--json", "--session-key", MAIN, "--sender-is-owner", "--", "alarm")
    assert b"4711" in owner.stdout


# -- point 12: the terminal says whose each loop is; `write` is the owner's

def test_review_at_the_terminal_marks_the_neighbours_loop_with_her_person(memory, cli,
                                                                          monkeypatch):
    monkeypatch.setattr("zettelclaw.render.want_json", lambda as_json: bool(as_json))
    monkeypatch.setenv("COLUMNS", "160")
    listed = cli("review")
    assert listed.exit_code == 0
    rows = {line.split("│")[1].strip(): line for line in listed.stdout.splitlines()
            if "│" in line and ("Clean" in line or "parcel" in line)}
    assert "telegram:555" in rows[PARCEL["id"]]
    assert "telegram:555" not in rows[GUTTER["id"]]


def test_closing_the_neighbours_loop_at_the_terminal_says_it_is_hers(memory, cli,
                                                                      monkeypatch):
    monkeypatch.setattr("zettelclaw.render.want_json", lambda as_json: bool(as_json))
    closed = cli("review", "close", "--yes", PARCEL["id"])
    assert closed.exit_code == 0, closed.stderr
    assert "telegram:555's, not yours" in closed.stdout
    dry = cli("review", "close", "--dry-run", GUTTER["id"], PAGE["id"])
    assert "telegram:555" not in dry.stdout


def test_a_terminal_write_is_the_owners_own_words(log_dir, cli):
    written = cli("write", "fact", "The boiler was serviced in May", "--json")
    assert written.exit_code == 0, written.stderr
    entry = _log(log_dir)[-1]
    assert entry["origin"] == "owner" and "person" not in entry
    origins = orjson.loads(cli("stats", "--json").stdout)["entries"]["byOrigin"]
    assert origins["owner"] == 1 and origins["unmarked"] == 0


# -- point 10: the owner's MEMORY.md and other people's sessions (init and doctor say it)

def _doctor(cli) -> dict:
    out = orjson.loads(cli("doctor", "--json").stdout)
    return {c["name"]: c for c in (out["checks"] if isinstance(out, dict) else out)}


@pytest.mark.parametrize("version,internal,status", [
    ("2026.2.22", None, "warn"), ("2026.2.22", True, "ok"),
    ("2026.9.6", None, "ok"), ("2026.9.6", False, "warn")])
def test_doctor_says_plainly_whether_the_briefing_reaches_other_people(zc_env, cli, version,
                                                                       internal, status):
    config = {"meta": {"lastTouchedVersion": version},
              "session": {"dmScope": "per-channel-peer"}}
    if internal is not None:
        config["hooks"] = {"internal": {"enabled": internal}}
    (zc_env["state"] / "openclaw.json").write_text(json.dumps(config))
    reach = _doctor(cli)["briefing-reach"]
    assert reach["status"] == status
    if status == "warn":
        assert "puts the owner's MEMORY.md (the briefing) into every person's direct session" \
            in reach["detail"]
        assert "openclaw config set hooks.internal.enabled true" in reach["detail"]


def test_doctor_says_nothing_of_it_when_every_dm_shares_the_main_session(zc_env, cli):
    (zc_env["state"] / "openclaw.json").write_text(json.dumps(
        {"meta": {"lastTouchedVersion": "2026.2.22"}}))
    assert "briefing-reach" not in _doctor(cli)

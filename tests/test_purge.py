"""``zettelclaw purge`` (issue 15): the content leaves the disk, a tombstone keeps the id.

The tombstone format is agreed with the readers' side (forget, F): these tests check what purge
writes and scrubs, not how readers show a tombstone.
"""

from __future__ import annotations

import json
import os
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import orjson
import pytest

from tests.conftest import DESIGN_LINES, write_log
from zettelclaw.entries import make_entry

BEGIN, END = "<!-- BEGIN GENERATED BRIEFING -->", "<!-- END GENERATED BRIEFING -->"
SID = "4b1d7c2e-8f3a-4e6b-9d0c-1a2b3c4d5e6f"
START = datetime(2026, 11, 20, 9, 0, tzinfo=timezone.utc)
TOMBSTONE_KEYS = ("id", "timestamp", "type", "replaces", "session", "agent", "purged")


def lines(log_dir: Path) -> list[dict]:
    return [orjson.loads(line) for line in (log_dir / "log.jsonl").read_bytes().splitlines()]


def files(*dirs: Path) -> dict[str, bytes]:
    """Every file under ``dirs`` (names relative to their dir) with its bytes."""
    out = {}
    for base in dirs:
        for root, _, names in os.walk(base):
            for name in names:
                path = Path(root) / name
                out[str(path.relative_to(base.parent))] = path.read_bytes()
    return out


def grep_r(text: str, *places: Path) -> list[str]:
    """What ``grep -ri TEXT`` over ``places`` (directories, recursively, and files) finds."""
    found = []
    for place in places:
        for name, data in (files(place).items() if place.is_dir()
                           else [(str(place), place.read_bytes())]):
            if text.lower().encode() in data.lower():
                found.append(name)
    return found


def now_iso(minutes_ago: int = 0) -> str:
    moment = datetime.now(timezone.utc) - timedelta(minutes=minutes_ago)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def test_an_id_purges_its_whole_chain_into_tombstones_in_place(log_dir, cli):
    write_log(log_dir, DESIGN_LINES)
    before = (log_dir / "log.jsonl").read_bytes().splitlines()
    # the correction's id: the original (a3k9x_BmQ2yT) goes with it
    result = cli("purge", "Cx6tM_1pWn8Y", "--yes")
    assert result.exit_code == 0, result.stderr
    after = (log_dir / "log.jsonl").read_bytes().splitlines()
    assert len(after) == len(before)
    for n, (old, new) in enumerate(zip(before, after, strict=True)):
        if n not in (0, 5):
            assert new == old  # every other line byte for byte
    first, correction = orjson.loads(after[0]), orjson.loads(after[5])
    assert tuple(first) == ("id", "timestamp", "type", "session", "purged")
    assert {k: first[k] for k in ("id", "timestamp", "type", "session")} == {
        "id": "a3k9x_BmQ2yT", "timestamp": "2026-02-20T14:20:00Z", "type": "decision",
        "session": "abc12345"}
    assert tuple(correction) == ("id", "timestamp", "type", "replaces", "session", "purged")
    assert correction["replaces"] == "a3k9x_BmQ2yT" and correction["id"] == "Cx6tM_1pWn8Y"
    purged_at = datetime.strptime(first["purged"], "%Y-%m-%dT%H:%M:%SZ").replace(
        tzinfo=timezone.utc)
    assert abs((datetime.now(timezone.utc) - purged_at).total_seconds()) < 3600
    raw = b"\n".join(after)
    assert b"Queue-based retries" not in raw and b"Cascading failure" not in raw
    assert b"dead-letter" not in raw and b"non-retryable" not in raw
    report = orjson.loads(result.stdout)  # data when piped
    assert report["purged"] == ["Cx6tM_1pWn8Y", "a3k9x_BmQ2yT"] and report["tombstones"] == 2


def test_the_tombstone_keeps_the_agent_and_nothing_else(log_dir, cli):
    entry = make_entry("task", "Call the bank about the loan", "s1", status="open",
                       subject="money", agent="ops", detail="account 12")
    write_log(log_dir, [entry])
    assert cli("purge", entry["id"], "--agent", "ops", "--yes").exit_code == 0
    [stone] = lines(log_dir)
    assert set(stone) == {"id", "timestamp", "type", "session", "agent", "purged"}
    assert stone["agent"] == "ops" and stone["type"] == "task"
    assert set(stone) <= set(TOMBSTONE_KEYS)


def test_another_agents_entry_is_not_found_without_its_agent(log_dir, cli):
    entry = make_entry("fact", "Ops knows the door code", "s1", agent="ops")
    write_log(log_dir, [entry])
    before = files(log_dir)
    result = cli("purge", entry["id"], "--yes")
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: no entry") and "nothing purged" in result.stderr
    assert files(log_dir) == before


def test_off_a_terminal_it_needs_yes_and_changes_nothing(log_dir, cli):
    write_log(log_dir, DESIGN_LINES)
    (log_dir / "hooks.log").write_text("Error: Queue-based retries for webhook delivery\n")
    before = files(log_dir)
    result = cli("purge", "a3k9x_BmQ2yT")
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("Error: not on a terminal")
    assert files(log_dir) == before


@pytest.mark.parametrize("answer", ["n\n", "\n", ""])
def test_on_a_terminal_it_asks_and_no_is_the_default(log_dir, cli, monkeypatch, answer):
    from zettelclaw.commands import subjects as command

    monkeypatch.setattr(command, "_on_terminal", lambda: True)
    write_log(log_dir, DESIGN_LINES)
    before = files(log_dir)
    result = cli("purge", "r7Wp3nKx_mZe", input=answer)
    assert result.exit_code == 1
    assert "Would purge 2 entries" in result.stderr and "cannot be undone" in result.stderr
    assert "Nothing changed." in result.stderr
    assert files(log_dir) == before
    result = cli("purge", "r7Wp3nKx_mZe", input="y\n")
    assert result.exit_code == 0, result.stderr
    assert [bool(line.get("purged")) for line in lines(log_dir)] == [
        False, True, False, False, False, False, True]


def test_dry_run_lists_what_would_go_and_changes_nothing(log_dir, cli):
    write_log(log_dir, DESIGN_LINES)
    before = files(log_dir)
    result = cli("purge", "--match", "BACKOFF", "--dry-run")
    assert result.exit_code == 0, result.stderr
    listed = [orjson.loads(line) for line in result.stdout.splitlines()]
    assert [e["id"] for e in listed] == ["r7Wp3nKx_mZe", "Ym8kP_3wNx5Q", "Dw9sN_2qXk7Z"]
    assert files(log_dir) == before


def test_filters_apply_together(log_dir, cli):
    write_log(log_dir, DESIGN_LINES)
    result = cli("purge", "--session", "def67890", "--subject", "auth-migration", "--dry-run",
                 "--json")
    # only Cx6tM_1pWn8Y is both; its chain brings a3k9x_BmQ2yT (Dw9sN_2qXk7Z has no subject)
    assert sorted(orjson.loads(line)["id"] for line in result.stdout.splitlines()) == [
        "Cx6tM_1pWn8Y", "a3k9x_BmQ2yT"]


@pytest.mark.parametrize("args", [[], ["--match", "ab"], ["a3k9x_BmQ2yT", "--match", "retry"],
                                  ["--subject", "Auth Migration"]])
def test_a_purge_that_names_nothing_clear_is_a_usage_error(log_dir, cli, args):
    write_log(log_dir, DESIGN_LINES)
    before = files(log_dir)
    result = cli("purge", *args, "--yes")
    assert result.exit_code == 2 and result.stderr.startswith("Error: ")
    assert files(log_dir) == before


def test_an_unknown_id_changes_nothing(log_dir, cli):
    write_log(log_dir, DESIGN_LINES)
    before = files(log_dir)
    result = cli("purge", "a3k9x_BmQ2yT", "nope_nope_no", "--yes")
    assert result.exit_code == 1 and "'nope_nope_no'" in result.stderr
    assert files(log_dir) == before


def test_a_tombstone_is_a_known_id_purged_already(log_dir, cli):
    """A hand-made tombstone line (the agreed format): purging it again is no error."""
    stone = {"id": "a3k9x_BmQ2yT", "timestamp": "2026-02-20T14:20:00Z", "type": "decision",
             "session": "abc12345", "purged": "2026-11-01T00:00:00Z"}
    write_log(log_dir, [stone, *DESIGN_LINES[1:]])
    result = cli("purge", "a3k9x_BmQ2yT", "--yes")
    assert result.exit_code == 0, result.stderr
    assert orjson.loads(result.stdout)["already"] == ["a3k9x_BmQ2yT"]
    # its correction still goes when named: the tombstone's `replaces` link is followed too
    result = cli("purge", "a3k9x_BmQ2yT", "--dry-run", "--json")
    assert result.stdout == ""
    result = cli("purge", "Cx6tM_1pWn8Y", "--yes")
    assert result.exit_code == 0 and lines(log_dir)[0] == stone  # untouched
    assert lines(log_dir)[5]["purged"]


@pytest.fixture
def everywhere(log_dir, zc_env):
    """A secret phrase in every file zettelclaw (or its plugin) writes content to."""
    phrase = "Aunt Mildred's PIN is 4417"
    mine = [make_entry("fact", phrase, SID, subject="family"),
            make_entry("task", "Ask aunt mildred's pin again", SID, status="open",
                       detail=f'she said "{phrase}" twice')]
    other = make_entry("decision", "Use Postgres for the ledger", SID, subject="ledger")
    waiting = make_entry("question", f"Should {phrase} change?", SID)
    write_log(log_dir, [mine[0], other, mine[1]])
    state = {
        "version": 1,
        "extractedSessions": {SID: {"at": now_iso(), "entries": 3, "agent": "main"}},
        "failedSessions": {"other-session": {
            "at": now_iso(), "error": f"model output not JSON: {{'content': '{phrase}'}}",
            "retries": 1, "agent": "main", "key": "agent:main:main"}},
        "pending": {SID: {"token": "dead", "entries": [mine[0], waiting, other],
                          "cursor": {"event": "e1"}, "agent": "main"}},
        "usage": {"input": 10, "output": 5},
    }
    (log_dir / "state.json").write_text(json.dumps(state, indent=2))
    extract_out = b"".join(orjson.dumps(e) + b"\n" for e in mine)  # extract's JSON Lines
    (log_dir / "hooks.log").write_bytes(b"Extracted 2 entries\n" + extract_out)
    (log_dir / "hooks.log.1").write_text("warning: about AUNT MILDRED'S PIN\n")
    (log_dir / "brief.log").write_text(f"note: {phrase}\n")
    # what killed writers leave: a log rewrite's and an atomic write's temp files, the
    # plugin's stdin directory of a dead gateway
    (log_dir / ".log.abc123.tmp").write_bytes(extract_out)
    (log_dir / ".state.json.999999.x1.tmp").write_text(phrase)
    stdin_dir = log_dir / ".zettelclaw-stdin-999999-Ab3dEf"
    stdin_dir.mkdir()
    (stdin_dir / "input").write_text(f"user: {phrase}")
    memory = zc_env["workspace"] / "MEMORY.md"
    memory.write_text(f"# Notes\n\n{BEGIN}\nold\n{END}\n")
    return {"phrase": phrase, "mine": mine, "other": other, "waiting": waiting,
            "memory": memory}


def test_match_leaves_nothing_a_grep_finds(everywhere, log_dir, cli):
    memory = everywhere["memory"]
    assert cli("brief", "--no-llm").exit_code == 0
    assert "PIN is 4417" in memory.read_text()  # the block quoted it
    assert grep_r("mildred's pin", log_dir, memory)
    result = cli("purge", "--match", "Mildred's PIN", "--yes")
    assert result.exit_code == 0, result.stderr
    assert grep_r("mildred's pin", log_dir, memory) == []
    assert grep_r("4417", log_dir, memory) == []  # the rest of the content went too
    # what is not about it stays, and every file is still what it was
    assert lines(log_dir)[1] == everywhere["other"]
    assert [bool(line.get("purged")) for line in lines(log_dir)] == [True, False, True]
    state = json.loads((log_dir / "state.json").read_text())
    assert [e["id"] for e in state["pending"][SID]["entries"]] == [everywhere["other"]["id"]]
    assert state["failedSessions"]["other-session"]["key"] == "agent:main:main"
    assert "[purged]" in state["failedSessions"]["other-session"]["error"]
    assert state["extractedSessions"] == {SID: {"at": state["extractedSessions"][SID]["at"],
                                                "entries": 3, "agent": "main"}}
    assert (log_dir / "hooks.log").read_text().startswith("Extracted 2 entries\n")
    assert memory.read_text().startswith(f"# Notes\n\n{BEGIN}\n## Active\n")
    assert "ledger" in memory.read_text()
    assert not (log_dir / ".zettelclaw-stdin-999999-Ab3dEf").exists()
    assert cli("search", "ledger").exit_code == 0


def test_an_id_takes_its_text_out_of_state_hooks_log_and_the_briefing(everywhere, log_dir,
                                                                     cli):
    memory = everywhere["memory"]
    assert cli("brief", "--no-llm").exit_code == 0
    target = everywhere["mine"][0]
    result = cli("purge", target["id"], "--yes")
    assert result.exit_code == 0, result.stderr
    # (an id purges its entry's own words, not the other entries that say them too)
    assert grep_r(everywhere["phrase"], log_dir, memory) == ["zettelclaw/log.jsonl"]
    [says] = [line for line in lines(log_dir) if everywhere["phrase"] in json.dumps(line)]
    assert says == everywhere["mine"][1]
    state = json.loads((log_dir / "state.json").read_text())
    assert target["id"] not in {e["id"] for e in state["pending"][SID]["entries"]}


def test_a_killed_runs_pending_entry_is_not_appended_again(
        log_dir, cli, home, fake_anthropic):
    """A run killed between writing `pending` and its append: the next extraction finishes
    the append, but never with an entry purged meanwhile."""
    home.jsonl_session("main", SID, [("user", "remember: the gate code is 5521"),
                                     ("assistant", "noted")], key="agent:main:main",
                       start=START)
    sessions = Path(os.environ["OPENCLAW_STATE_DIR"]) / "agents/main/sessions"
    last = [json.loads(line) for line in (sessions / f"{SID}.jsonl").read_text().splitlines()]
    made = [make_entry("fact", "The gate code is 5521", SID),
            make_entry("fact", "Gate code 5521 works at night too", SID),
            make_entry("fact", "The garden gate is green", SID)]
    write_log(log_dir, made[:1])  # the first was appended, the rest were not
    (log_dir / "state.json").write_text(json.dumps({"pending": {SID: {
        "token": "dead", "entries": made, "cursor": {"event": last[-1]["id"]},
        "tokens": {"input": 10, "output": 5}}}}))
    assert cli("purge", "--match", "5521", "--yes").exit_code == 0
    result = cli("extract", "--session-id", SID)
    assert result.exit_code == 0, result.stderr
    assert [line["id"] for line in lines(log_dir)] == [made[0]["id"], made[2]["id"]]
    assert "5521" not in (log_dir / "log.jsonl").read_text()
    assert "5521" not in (log_dir / "state.json").read_text()


def test_the_persons_part_of_memory_md_is_theirs(everywhere, log_dir, cli):
    memory = everywhere["memory"]
    human = f"# Notes\n- {everywhere['phrase']} (mine)\n\n{BEGIN}\nold\n{END}\n\n## Later\n"
    memory.write_text(human)
    result = cli("purge", "--match", "4417", "--yes")
    assert result.exit_code == 0, result.stderr
    text = memory.read_text()
    assert text.startswith(human.split(BEGIN)[0] + BEGIN) and text.endswith(END + "\n\n## Later\n")
    assert f"{memory}:2: in your part of MEMORY.md, not changed" in result.stderr
    assert grep_r("4417", log_dir) == []


def test_a_subject_slug_left_in_the_registry_is_named(log_dir, cli):
    entry = make_entry("fact", "The surprise party is on Friday", "s1", subject="surprise-party")
    cli("subjects", "add", "surprise-party")
    write_log(log_dir, [entry])
    result = cli("purge", "--match", "surprise party", "--yes")
    assert result.exit_code == 0
    assert "surprise party" not in (log_dir / "log.jsonl").read_text().replace("-", " ")
    # the slug is structure, not content: purge names where it is, `subjects remove` takes it
    result = cli("purge", "--match", "surprise-party", "--yes")
    assert "subjects.json: still mentions it" in result.stderr


def test_a_purged_handoff_is_not_handed_off(log_dir, cli):
    made = make_entry("handoff", "Left the safe open, combination 31-7-22", "s1")
    write_log(log_dir, [make_entry("task", "Close the safe", "s0", status="open"), made])
    assert "31-7-22" in cli("handoff", "--text").stdout  # (stores its pointer in state.json)
    assert cli("purge", made["id"], "--yes").exit_code == 0
    result = cli("handoff", "--text")
    assert result.exit_code == 0 and "31-7-22" not in result.stdout
    assert "31-7-22" not in (log_dir / "state.json").read_text()


def test_a_purge_waits_for_the_lock_and_keeps_what_was_appended(log_dir, cli):
    """A writer holding the lock (an extraction's append) goes first; its lines survive."""
    import threading

    from zettelclaw.fsutil import dir_lock
    from zettelclaw.log import Log

    write_log(log_dir, DESIGN_LINES)
    late = make_entry("fact", "Appended while the purge waited", "s9")
    held, done = threading.Event(), threading.Event()

    def writer():
        with dir_lock(log_dir):
            held.set()
            time.sleep(0.3)
            Log().append([late], locked=True)
        done.set()

    thread = threading.Thread(target=writer)
    thread.start()
    held.wait()
    result = cli("purge", "--match", "webhook", "--yes")
    thread.join()
    assert result.exit_code == 0, result.stderr
    final = lines(log_dir)
    assert final[-1] == late
    assert len(final) == len(DESIGN_LINES) + 1


def test_a_purge_killed_after_its_rewrite_is_finished_by_purge_finish(
        everywhere, log_dir, cli, monkeypatch):
    """Killed between the log's rename and MEMORY.md's new briefing: hooks.log went first
    (while the log still had the words), the entries are tombstones, the block still quotes
    them. state.json's `purging` record says what is owed (never the words); `doctor` and
    `stats` name the command that finishes it, and it does (issue 23)."""
    from zettelclaw import purge

    memory = everywhere["memory"]
    assert cli("brief", "--no-llm").exit_code == 0
    target = everywhere["mine"][0]

    class Killed(BaseException):  # what SIGKILL leaves, short of the process
        pass

    def killed(*args, **kwargs):
        raise Killed

    with monkeypatch.context() as patch, pytest.raises(Killed):
        patch.setattr(purge, "_rebrief", killed)
        cli("purge", target["id"], "--yes")
    assert lines(log_dir)[0]["purged"]
    assert everywhere["phrase"] not in (log_dir / "hooks.log").read_text()
    assert everywhere["phrase"] in memory.read_text()
    state = (log_dir / "state.json").read_text()
    assert "purging" in json.loads(state) and "4417" not in state
    stats = json.loads(cli("stats", "--json").stdout)
    assert stats["unfinishedPurge"]["fix"] == "zettelclaw purge --finish"
    doctor = cli("doctor", "--json")
    assert doctor.exit_code == 1
    [check] = [c for c in json.loads(doctor.stdout)["checks"] if c["name"] == "purge"]
    assert check["status"] == "fail" and check["fix"] == "zettelclaw purge --finish"
    result = cli("purge", "--finish")
    assert result.exit_code == 0, result.stderr
    assert everywhere["phrase"] not in memory.read_text()
    assert "purging" not in json.loads((log_dir / "state.json").read_text())
    assert "unfinishedPurge" not in json.loads(cli("stats", "--json").stdout)


def test_a_first_line_after_a_byte_order_mark_is_purged_too(log_dir, cli):
    write_log(log_dir, DESIGN_LINES)
    path = log_dir / "log.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())  # an editor saved it so
    assert cli("purge", "Cx6tM_1pWn8Y", "--yes").exit_code == 0
    assert b"Queue-based retries" not in path.read_bytes()
    assert orjson.loads(path.read_bytes().splitlines()[0])["purged"]


def test_a_running_extraction_is_named(log_dir, cli):
    """An extraction waiting on the model may append the same words again after the purge."""
    import socket

    write_log(log_dir, DESIGN_LINES)
    (log_dir / "state.json").write_text(json.dumps({"claims": {SID: {
        "token": "t", "pid": os.getpid(), "host": socket.gethostname(), "at": now_iso()}}}))
    result = cli("purge", "--match", "webhook", "--yes")
    assert result.exit_code == 0, result.stderr
    assert f"session {SID}: an extraction is running" in result.stderr
    assert json.loads((log_dir / "state.json").read_text())["claims"][SID]["token"] == "t"


def test_a_match_in_what_a_tombstone_keeps_is_named(log_dir, cli):
    entry = make_entry("fact", "The session-zebra notes", "session-zebra")
    write_log(log_dir, [entry])
    result = cli("purge", "--match", "session-zebra", "--yes")
    assert result.exit_code == 0
    assert "log.jsonl: still holds it in what lines keep of themselves" in result.stderr

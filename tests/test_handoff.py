"""The last handoff (design §6): what `zettelclaw handoff` prints before every prompt."""

from __future__ import annotations

import orjson

from tests.conftest import DESIGN_LINES, write_log
from tests.hotpath import heavy_imports


def test_handoff_prints_the_design_block_and_the_sessions_open_tasks(design_log, zc):
    result = zc("handoff", "--text")
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
    assert zc("handoff", "--text").stdout == b"" and zc("handoff", "--text").returncode == 0
    write_log(log_dir, DESIGN_LINES[:2])
    result = zc("handoff", "--text")
    assert result.returncode == 0 and result.stdout == b""


def test_the_latest_handoff_wins_and_a_corrected_handoff_is_skipped(log_dir, zc):
    h1 = {**DESIGN_LINES[4]}
    h2 = {**DESIGN_LINES[4], "id": "Zz9yX_8wVu7T", "timestamp": "2026-02-21T09:00:00Z",
          "content": "Backfill script written", "session": "later001"}
    fix = {**h2, "id": "Fx1xF_2xF3xF", "content": "Backfill script written and run",
           "replaces": "Zz9yX_8wVu7T"}
    write_log(log_dir, [h1, h2])
    assert "Backfill script written" in zc("handoff", "--text").stdout.decode()
    write_log(log_dir, [fix])
    assert orjson.loads(zc("handoff", "--json").stdout)["handoff"]["id"] == "Fx1xF_2xF3xF"


def test_home_option_works_on_the_fast_path(tmp_path, zc):
    other = tmp_path / "elsewhere"
    write_log(other, DESIGN_LINES)
    assert b"abc12345" in zc("--home", str(other), "handoff").stdout
    assert b"abc12345" in zc(f"--home={other}", "handoff", "--json").stdout


def test_handoff_does_not_import_the_sdk_typer_rich_or_pydantic(design_log):
    assert heavy_imports(["handoff"], "abc12345") == []


def test_handoff_help_goes_through_the_full_cli(zc):
    result = zc("handoff", "--help")
    assert result.returncode == 0
    assert b"last handoff" in result.stdout


def _handoff(id, stamp, session, content="where things stand", **extra):
    return {"id": id, "timestamp": stamp, "type": "handoff", "content": content,
            "session": session, **extra}


def _task(id, stamp, session, content, status="open", **extra):
    return {"id": id, "timestamp": stamp, "type": "task", "content": content,
            "status": status, "session": session, **extra}


def _shown(zc) -> dict:
    result = zc("handoff", "--json")
    assert result.returncode == 0, result.stderr
    return orjson.loads(result.stdout)


def test_a_handoff_swept_late_from_an_older_conversation_does_not_replace_the_latest(
        log_dir, zc):
    write_log(log_dir, [_task("jan18task001", "2026-01-18T10:00:00Z", "jan18", "Ship it"),
                        _handoff("jan18hand001", "2026-01-18T11:00:00Z", "jan18")])
    assert _shown(zc)["handoff"]["id"] == "jan18hand001"  # also stores the pointer
    write_log(log_dir, [_task("jan16task001", "2026-01-16T10:00:00Z", "jan16", "Old work"),
                        _handoff("jan16hand001", "2026-01-16T11:00:00Z", "jan16")])
    found = _shown(zc)
    assert found["handoff"]["id"] == "jan18hand001"
    assert [t["id"] for t in found["openTasks"]] == ["jan18task001"]
    # a newer conversation extracted after both takes over
    write_log(log_dir, [_handoff("jan19hand001", "2026-01-19T08:00:00Z", "jan19")])
    assert _shown(zc)["handoff"]["id"] == "jan19hand001"


def test_the_latest_handoff_is_found_with_or_without_the_pointer_in_state_json(log_dir, zc):
    lines = [_handoff(f"hand{n:08d}", f"2026-01-{10 + n % 7:02d}T09:00:00Z", f"s{n}")
             for n in range(40)]
    write_log(log_dir, lines)
    # the latest timestamp; among equal ones, the later line
    expected = max(lines, key=lambda e: (e["timestamp"], lines.index(e)))["id"]
    assert expected != lines[-1]["id"] and _shown(zc)["handoff"]["id"] == expected
    state = orjson.loads((log_dir / "state.json").read_bytes())
    assert state["lastHandoff"]["main"]["id"] == expected
    # a pointer that no longer matches the log (here: a stale offset) is not trusted
    state["lastHandoff"]["main"]["offset"] = 0
    (log_dir / "state.json").write_bytes(orjson.dumps(state))
    assert _shown(zc)["handoff"]["id"] == expected
    # the pointed handoff corrected later: the correction counts, the original is gone
    write_log(log_dir, [_handoff("fixedHand001", "2026-01-01T00:00:00Z", "s0",
                                 replaces=expected)])
    second = max((e for e in lines if e["id"] != expected),
                 key=lambda e: (e["timestamp"], lines.index(e)))["id"]
    assert _shown(zc)["handoff"]["id"] == second


def test_the_answer_survives_subjects_rename_rewriting_the_log(log_dir, zc, cli):
    write_log(log_dir, [_handoff("early0000001", "2026-03-01T09:00:00Z", "a",
                                 subject="old-name"),
                        _handoff("late00000001", "2026-03-02T09:00:00Z", "b",
                                 subject="old-name"),
                        _handoff("early0000002", "2026-02-28T09:00:00Z", "c",
                                 subject="old-name")])
    assert _shown(zc)["handoff"]["id"] == "late00000001"
    assert cli("subjects", "add", "old-name").exit_code == 0
    assert cli("subjects", "rename", "old-name", "a-much-longer-new-name", "--yes").exit_code == 0
    # the rename moved the lines and made a new file; it moved the pointer with them
    assert _pointed_at(log_dir) == "late00000001"
    found = _shown(zc)
    assert found["handoff"]["id"] == "late00000001"
    assert found["handoff"]["subject"] == "a-much-longer-new-name"


def test_the_answer_survives_a_purge_rewriting_the_log(log_dir, zc, cli):
    secret = {"id": "secretFact01", "timestamp": "2026-03-01T08:00:00Z", "type": "fact",
              "content": "A long fact that has to go " * 20, "session": "a"}
    write_log(log_dir, [secret, _handoff("late00000001", "2026-03-02T09:00:00Z", "b"),
                        _handoff("early0000001", "2026-02-28T09:00:00Z", "c")])
    assert _shown(zc)["handoff"]["id"] == "late00000001"
    assert cli("purge", "secretFact01", "--yes").exit_code == 0
    # the tombstone is shorter than the fact: the purge moved the pointer with the lines
    assert _pointed_at(log_dir) == "late00000001"
    assert _shown(zc)["handoff"]["id"] == "late00000001"


def _pointed_at(log_dir) -> str | None:
    """The id of the handoff state.json's pointer names, if the pointer holds for the log."""
    log = log_dir / "log.jsonl"
    pointer = orjson.loads((log_dir / "state.json").read_bytes())["lastHandoff"]["main"]
    if pointer["inode"] != log.stat().st_ino or pointer["size"] != log.stat().st_size:
        return None
    with open(log, "rb") as fh:
        fh.seek(pointer["offset"])
        return orjson.loads(fh.readline())["id"]


def test_a_task_marked_done_twice_over_in_one_session_is_not_shown_as_open(log_dir, zc):
    write_log(log_dir, [
        _task("taskversion1", "2026-02-01T10:00:00Z", "s1", "Write the script"),
        _task("taskversion2", "2026-02-01T10:05:00Z", "s1", "Write the backfill script",
              replaces="taskversion1"),
        _task("taskversion3", "2026-02-01T10:10:00Z", "s1", "Write the backfill script",
              status="done", replaces="taskversion2"),
        _handoff("handoff00001", "2026-02-01T11:00:00Z", "s1"),
    ])
    assert _shown(zc)["openTasks"] == []


def test_a_task_corrected_in_a_later_session_is_shown_in_its_current_version(log_dir, zc):
    write_log(log_dir, [
        _task("taskversion1", "2026-02-01T10:00:00Z", "s1", "Write the script"),
        {"id": "decision0001", "timestamp": "2026-02-01T10:01:00Z", "type": "decision",
         "content": "Use cron", "session": "s1"},
        _handoff("handoff00001", "2026-02-03T11:00:00Z", "s1"),
        _task("taskversion2", "2026-02-02T10:00:00Z", "s0", "Write the backfill script",
              replaces="taskversion1"),
        {"id": "decision0002", "timestamp": "2026-02-02T10:01:00Z", "type": "decision",
         "content": "Use a systemd timer", "replaces": "decision0001", "session": "s0"},
    ])
    found = _shown(zc)
    assert found["handoff"]["id"] == "handoff00001"
    assert [t["content"] for t in found["openTasks"]] == ["Write the backfill script"]
    assert [d["content"] for d in found["decisions"]] == ["Use a systemd timer"]


def test_a_long_chain_shows_only_its_current_version(log_dir, zc):
    chain = [_task("chain0000000", "2026-02-01T10:00:00Z", "s1", "Step 0")]
    for n in range(1, 2000):
        chain.append(_task(f"chain{n:07d}", "2026-02-01T10:00:00Z", "s1", f"Step {n}",
                           replaces=chain[-1]["id"]))
    write_log(log_dir, chain + [_handoff("handoff00001", "2026-02-01T11:00:00Z", "s1")])
    assert [t["id"] for t in _shown(zc)["openTasks"]] == ["chain0001999"]


def test_the_session_s_tasks_are_found_among_other_sessions_lines_however_they_are_spelled(
        log_dir, zc):
    """Lines of other sessions sit between a session's entries (a sweep appends several
    conversations); only those that name the session, a handoff or a correction matter, and a
    line spelling them with JSON escapes counts as well."""
    other = [_task(f"other{n:07d}", "2026-02-01T09:00:00Z", "s0", f"Other work {n}")
             for n in range(40)]
    write_log(log_dir, [_task("taskversion1", "2026-02-01T10:00:00Z", "s1", "Write the script"),
                        *other[:20]])
    with open(log_dir / "log.jsonl", "ab") as fh:  # written by hand: the session escaped
        fh.write(b'{"id":"escapedtask1","timestamp":"2026-02-01T10:01:00Z","type":"task",'
                 b'"content":"Rotate the keys","status":"open","session":"\\u00731"}\n')
        fh.write(b'{"id":"escapedfix01","timestamp":"2026-02-01T10:02:00Z","type":"task",'
                 b'"content":"Write the backfill script","status":"open","session":"s0",'
                 b'"\\u0072eplaces":"taskversion1"}\n')
    write_log(log_dir, [*other[20:], _handoff("handoff00001", "2026-02-01T11:00:00Z", "s1")])
    found = _shown(zc)
    assert found["handoff"]["id"] == "handoff00001"
    assert [t["content"] for t in found["openTasks"]] == ["Write the backfill script",
                                                          "Rotate the keys"]


# -- bounded (issue 11 §5) --------------------------------------------------------------------


def _session_with(tasks: int, decisions: int, text: str = "x" * 250) -> list[dict]:
    lines = []
    for i in range(tasks):
        lines.append({"id": f"Tk{i:04d}_abcde", "timestamp": "2026-03-01T10:00:00Z",
                      "type": "task", "status": "open", "content": f"task {i} {text}",
                      "session": "big00001"})
    for i in range(decisions):
        lines.append({"id": f"Dc{i:04d}_abcde", "timestamp": "2026-03-01T10:00:00Z",
                      "type": "decision", "content": f"decision {i} {text}",
                      "session": "big00001"})
    lines.append({"id": "Hd0000_abcde", "timestamp": "2026-03-01T10:00:00Z", "type": "handoff",
                  "content": "Big session " + "c" * 120_000, "detail": "d" * 50_000,
                  "session": "big00001"})
    return lines


def test_the_handoff_block_is_at_most_4000_characters_and_says_what_it_left_out(log_dir, zc):
    write_log(log_dir, _session_with(tasks=40, decisions=30))
    text = zc("handoff", "--text").stdout.decode().rstrip("\n")
    assert len(text) <= 4000
    assert text.startswith("## Last Session Handoff\nSession: big00001")
    assert "- task 0 " in text  # the first tasks are there
    last = text.splitlines()[-1]
    assert last.startswith("… ") and "more open tasks" in last and "30 more decisions" in last
    assert last.endswith("zettelclaw search --session big00001")
    shown = sum(line.startswith("- task ") for line in text.splitlines())
    assert f"… {40 - shown} more open tasks" in last
    # the same log gives the same bytes (the prompt prefix stays cached), pointer or not
    assert zc("handoff", "--text").stdout.decode().rstrip("\n") == text
    (log_dir / "state.json").unlink()
    assert zc("handoff", "--text").stdout.decode().rstrip("\n") == text


def test_a_small_handoff_is_whole_and_names_nothing_left_out(design_log, zc):
    assert "… " not in zc("handoff", "--text").stdout.decode()


def test_handoff_with_a_20_mb_last_line_answers(log_dir, zc):
    write_log(log_dir, DESIGN_LINES)
    huge = {"id": "Hg0000_abcde", "timestamp": "2026-03-01T10:00:00Z", "type": "fact",
            "content": "y" * 20_000_000, "session": "abc12345"}
    with open(log_dir / "log.jsonl", "ab") as fh:
        fh.write(orjson.dumps(huge) + b"\n")
    for _ in range(2):  # without and with the pointer in state.json
        text = zc("handoff", "--text").stdout.decode()
        assert text.startswith("## Last Session Handoff\nSession: abc12345")
        assert "Write backfill script" in text


def test_a_20_mb_line_among_the_session_s_entries_is_left_out(log_dir, zc):
    lines = DESIGN_LINES[:4] + [
        {"id": "Hg0000_abcde", "timestamp": "2026-02-20T15:20:00Z", "type": "task",
         "status": "open", "content": "y" * 20_000_000, "session": "abc12345"},
        DESIGN_LINES[4]]
    write_log(log_dir, lines)
    text = zc("handoff", "--text").stdout.decode()
    assert "Write backfill script" in text and "yyyy" not in text
    assert len(text) < 4000


def test_a_20_mb_handoff_is_not_shown(log_dir, zc):
    write_log(log_dir, DESIGN_LINES + [{**DESIGN_LINES[4], "id": "Hg0000_abcde",
                                        "timestamp": "2026-03-01T10:00:00Z",
                                        "content": "z" * 20_000_000}])
    text = zc("handoff", "--text").stdout.decode()
    assert "zzzz" not in text and "Session: abc12345" in text  # the one before it


def test_write_refuses_a_120_kb_handoff_with_one_error_line(log_dir, zc):
    result = zc("write", "handoff", "h" * 120_000)
    assert result.returncode == 2
    assert result.stderr.decode().splitlines() == [
        "Error: content is 120,000 characters: at most 4,000 (split it, or keep the long text "
        "in a file and write where it is)"]
    assert zc("write", "fact", "short", "--detail", "d" * 4001).returncode == 2
    assert zc("write", "fact", "f" * 4000).returncode == 0

"""No traceback, ever: whatever the arguments and whatever lies in the log directory, every
command ends with exit code 0, 1 or 2 and at most one ``Error:`` line on stderr.

First the cases found by hand, one test each; then a fuzz test over every command's options
and corrupted state files (a few dozen examples in `make test`, many more with ZC_STRESS=1).
"""

from __future__ import annotations

import errno
import json
import os
import shutil

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import DESIGN_LINES, run_zettelclaw, write_log

FULL = os.environ.get("ZC_STRESS") == "1"


def assert_clean(result) -> None:
    """Exit 0, 1 or 2, no traceback, at most one Error: line (CliRunner or subprocess)."""
    if hasattr(result, "returncode"):
        code, stderr = result.returncode, result.stderr.decode(errors="replace")
    else:
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise result.exception  # the traceback the user would have seen
        code, stderr = result.exit_code, result.stderr
    assert code in (0, 1, 2), (code, stderr)
    assert "Traceback" not in stderr, stderr
    assert sum(line.startswith("Error:") for line in stderr.splitlines()) <= 1, stderr


def one_error(result, *words: str) -> str:
    assert_clean(result)
    assert result.exit_code in (1, 2), result.stdout
    (line,) = [x for x in result.stderr.splitlines() if x.startswith("Error:")]
    for word in words:
        assert word in line, line
    return line


ENTRY = {"id": "a1b2c3d4e5f6", "timestamp": "2026-02-20T14:20:00Z", "type": "fact",
         "content": "Webhook retries use exponential backoff", "subject": "auth-migration",
         "session": "abc12345"}


# -- state.json -------------------------------------------------------------------------------


@pytest.mark.parametrize("body", [b"\xff\xfe{\x00}", b"[1, 2]", b'{"version": "one"}',
                                  b'{"extractedSessions": [1]}',
                                  b'{"extractedSessions": {"s1": 5}}'])
@pytest.mark.parametrize("command", [("stats",), ("sweep",), ("brief", "--no-llm")])
def test_an_unreadable_state_json_is_one_error(body, command, cli, log_dir):
    write_log(log_dir, [ENTRY])
    (log_dir / "state.json").write_bytes(body)

    one_error(cli(*command), "state.json")
    assert (log_dir / "state.json").read_bytes() == body


def test_a_directory_in_place_of_state_json_is_one_error(cli, log_dir):
    write_log(log_dir, [ENTRY])
    (log_dir / "state.json").mkdir()

    one_error(cli("stats"), "state.json is a directory")


def test_counters_of_the_wrong_type_in_state_json_count_as_zero(cli, log_dir):
    write_log(log_dir, [ENTRY])
    (log_dir / "state.json").write_text(json.dumps(
        {"usage": {"input": "lots", "extractions": [1], "briefings": -3}}))

    result = cli("stats", "--json")

    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["tokens"]["input"] == 0


# -- subjects.json and the log's lines --------------------------------------------------------


def test_a_subject_record_that_is_not_an_object_is_one_error(cli, log_dir):
    write_log(log_dir, [ENTRY])
    (log_dir / "subjects.json").write_text('{"auth-migration": "Auth"}')

    one_error(cli("subjects", "list"), "subjects.json", "auth-migration")
    one_error(cli("subjects", "add", "billing"), "subjects.json")


def test_stats_counts_only_slug_subjects(cli, log_dir):
    write_log(log_dir, [ENTRY, {**ENTRY, "id": "b1b2c3d4e5f6", "subject": {"a": 1}}])

    result = cli("stats", "--json")

    assert result.exit_code == 0, result.stderr
    stats = json.loads(result.stdout)
    assert stats["entries"]["total"] == 2
    assert stats["entries"]["bySubject"] == {"auth-migration": 1}


def test_a_byte_order_mark_before_the_first_line_hides_no_entry(cli, zc, log_dir):
    handoff = {**ENTRY, "id": "h1b2c3d4e5f6", "type": "handoff", "content": "Next: canary"}
    (log_dir).mkdir(parents=True)
    (log_dir / "log.jsonl").write_bytes(
        b"\xef\xbb\xbf" + json.dumps(handoff, separators=(",", ":")).encode() + b"\n")

    assert [e["id"] for e in cli.lines("log", "--json")] == ["h1b2c3d4e5f6"]
    assert "h1b2c3d4e5f6" in cli("get", "h1b2c3d4e5f6", "--json").stdout
    assert b"Next: canary" in zc("handoff", "--text").stdout
    assert b"h1b2c3d4e5f6" in zc("search", "canary", "--json").stdout


def test_an_impossible_timestamp_does_not_sort_as_newest(cli, zc, log_dir):
    broken = {**ENTRY, "id": "x1b2c3d4e5f6", "timestamp": "9999-99-99T99:99:99Z",
              "content": "broken date", "type": "handoff"}
    real = {**ENTRY, "id": "r1b2c3d4e5f6", "timestamp": "2026-02-21T09:00:00Z",
            "content": "real date", "type": "handoff"}
    write_log(log_dir, [broken, real])

    assert cli.lines("log", "-n", "1", "--json")[0]["id"] == "r1b2c3d4e5f6"
    assert b"real date" in zc("handoff", "--text").stdout


# -- arguments --------------------------------------------------------------------------------


@pytest.mark.parametrize("args", [
    ("search", "webhook", "--since", "3000y"),
    ("search", "--since", "99999999999999999999d"),
    ("search", "--until", "9999-12-31"),
    ("brief", "--no-llm", "--active-window", "740000"),
    ("brief", "--no-llm", "--max-lines", "99999999999999999999"),
])
def test_out_of_range_numbers_and_dates_are_usage_errors(args, cli, log_dir):
    write_log(log_dir, [ENTRY])
    line = one_error(cli(*args))
    assert cli(*args).exit_code == 2, line


def test_a_huge_count_is_just_everything(cli, log_dir):
    write_log(log_dir, [ENTRY])
    assert len(cli.lines("log", "-n", "99999999999999999999", "--json")) == 1
    assert len(cli.lines("search", "webhook", "-n", "99999999999999999999", "--json")) == 1


@pytest.mark.parametrize("args", [("log",), ("search", "foo", "--json"), ("handoff",),
                                  ("stats",), ("subjects", "list"), ("write", "fact", "x"),
                                  ("brief", "--no-llm"), ("sweep",)])
def test_home_pointing_at_a_file_is_one_error_for_every_command(args, zc, tmp_path):
    not_a_dir = tmp_path / "notes.txt"
    not_a_dir.write_text("mine\n")

    result = zc("--home", str(not_a_dir), *args)

    assert_clean(result)
    assert result.returncode == 1 and str(not_a_dir) in result.stderr.decode()
    assert not_a_dir.read_text() == "mine\n"


def test_a_dangling_symlinked_home_is_one_error(cli, tmp_path):
    link = tmp_path / "memory"
    link.symlink_to(tmp_path / "gone")

    one_error(cli("--home", str(link), "write", "fact", "x"), str(link), "symlink")
    assert not (tmp_path / "gone").exists()


# -- a read-only or full disk ------------------------------------------------------------------


def test_a_full_disk_is_one_error_and_the_log_keeps_its_lines(cli, log_dir, monkeypatch):
    write_log(log_dir, [ENTRY])
    before = (log_dir / "log.jsonl").read_bytes()

    def full(fd, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "write", full)
    result = cli("write", "fact", "one more fact")
    monkeypatch.undo()

    assert one_error(result, "No space left on device")
    assert (log_dir / "log.jsonl").read_bytes() == before


def test_a_disk_that_fills_mid_line_leaves_no_torn_line_behind(cli, log_dir, monkeypatch):
    write_log(log_dir, [ENTRY])
    before = (log_dir / "log.jsonl").read_bytes()
    real_write = os.write
    room = [40]  # the disk takes 40 bytes of the new line, then is full

    def filling(fd, data):
        if not room[0]:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        taken = real_write(fd, bytes(data[:room[0]]))
        room[0] -= taken
        return taken

    monkeypatch.setattr(os, "write", filling)
    result = cli("write", "fact", "one more fact that does not fit on the disk")
    monkeypatch.undo()

    assert one_error(result, "No space left on device")
    assert (log_dir / "log.jsonl").read_bytes() == before
    later = cli("search", "--json")
    assert later.exit_code == 0 and "invalid line" not in later.stderr


def test_a_read_only_disk_is_one_error_and_subjects_json_is_kept(cli, log_dir, monkeypatch):
    write_log(log_dir, [ENTRY])
    (log_dir / "subjects.json").write_text('{"a": {"display": "A", "type": "project"}}')
    before = (log_dir / "subjects.json").read_bytes()

    def read_only(src, dst, **kwargs):
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(dst))

    monkeypatch.setattr(os, "replace", read_only)
    result = cli("subjects", "add", "billing")
    monkeypatch.undo()

    assert one_error(result, "Read-only file system", "subjects.json")
    assert (log_dir / "subjects.json").read_bytes() == before
    assert [p.name for p in log_dir.iterdir() if p.name.endswith(".tmp")] == []


# -- the fuzz test -----------------------------------------------------------------------------

ODD = ["0", "-1", "1", "99999999999999999999", "3000y", "99999d", "9999-99-99",
       "9999-12-31", "0001-01-01", "2026-02-30", "today", "7d", "", " ", "日本語", "a\tb",
       "--json", "-", "abc12345", "a1b2c3d4e5f6", "auth-migration", "Auth Migration",
       "../../etc/passwd", "MEMORY.md", "task", "fact", "handoff", "open", "done"]
value = st.sampled_from(ODD) | st.text(max_size=12).filter(lambda s: "\x00" not in s)
COMMANDS = {
    ("search",): ["--type", "--subject", "--status", "--session", "--since", "--until",
                  "--limit", "-n", "--all", "--json", "--explain"],
    ("get",): ["--history", "--transcript", "--from", "--lines", "--agent", "--json"],
    ("log",): ["-n", "--json"],
    ("write",): ["--detail", "--subject", "--status", "--replaces", "--session", "--json"],
    ("subjects", "list"): ["--json"],
    ("subjects", "add"): ["--type", "--display"],
    ("subjects", "rename"): [],
    ("subjects", "remove"): [],
    ("sweep",): ["--since", "--dry-run", "--json", "--retry-failed"],
    ("brief",): ["--active-window", "--decision-window", "--stale-threshold", "--max-lines",
                 "--dry-run", "--print", "--now"],
    ("stats",): ["--json"],
    ("handoff",): ["--json"],
    ("paths",): ["--json"],
    ("purge",): ["--session", "--subject", "--match", "--agent", "--dry-run", "--yes", "--json"],
}
FLAGS = {"--all", "--json", "--explain", "--history", "--transcript", "--dry-run",
         "--retry-failed", "--print", "--yes"}


@st.composite
def argv(draw):
    command = draw(st.sampled_from(sorted(COMMANDS)))
    args = list(command)
    for option in draw(st.lists(st.sampled_from(COMMANDS[command] or ["--help"]), max_size=4)):
        args.append(option)
        if option not in FLAGS | {"--help"}:
            args.append(draw(value))
    args += draw(st.lists(value, max_size=3))
    if command == ("brief",):
        args.append("--no-llm")  # no model in tests
    prefix = draw(st.sampled_from([[], ["--home", "@file"], ["--home", "@dangling"],
                                   ["--workspace", "@file"]]))
    return prefix + args


CORRUPTIONS = ["missing", "valid", "not-utf8", "wrong-types", "bom", "directory", "fifo",
               "dangling-symlink", "symlink"]
VALID = {"log.jsonl": b"".join(json.dumps(e).encode() + b"\n" for e in DESIGN_LINES),
         "subjects.json": b'{"auth-migration": {"display": "Auth", "type": "project"}}',
         "state.json": b'{"version": 1, "extractedSessions": {}}'}
WRONG = {"log.jsonl": [b'{"id": 5, "type": "fact", "content": "x"}\n',
                       b'{"id": "a", "type": "fact", "content": "x", "subject": {"a": 1}, '
                       b'"timestamp": "9999-99-99T99:99:99Z"}\n', b"[1, 2]\n"],
         "subjects.json": [b"[1]", b'{"a": 5}', b'{"a": {"display": [], "type": 3}}'],
         "state.json": [b"[]", b'{"extractedSessions": {"s": 5}}',
                        b'{"usage": {"input": "x"}, "failedSessions": {"s": {"at": 5}}}',
                        b'{"lastHandoff": {"id": 5, "offset": -1}}']}


def corrupt(directory, name: str, how: str, variant: int) -> None:
    path = directory / name
    if how == "missing":
        return
    if how == "valid":
        path.write_bytes(VALID[name])
    elif how == "not-utf8":
        path.write_bytes(b"\xff\xfe\x00" + VALID[name][:20])
    elif how == "wrong-types":
        options = WRONG[name]
        path.write_bytes(options[variant % len(options)])
    elif how == "bom":
        path.write_bytes(b"\xef\xbb\xbf" + VALID[name])
    elif how == "directory":
        path.mkdir()
    elif how == "fifo":
        os.mkfifo(path)
    elif how == "dangling-symlink":
        path.symlink_to(directory.parent / f"gone-{name}")
    elif how == "symlink":
        target = directory.parent / f"target-{name}"
        target.write_bytes(VALID[name])
        path.symlink_to(target)


files = st.fixed_dictionaries({name: st.tuples(st.sampled_from(CORRUPTIONS), st.integers(0, 9))
                               for name in VALID})


@settings(max_examples=1000 if FULL else 60, deadline=None, derandomize=not FULL,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(args=argv(), state=files)
def test_fuzz_every_command_over_corrupted_files(args, state, cli, tmp_path):
    base = tmp_path / "fuzz"
    shutil.rmtree(base, ignore_errors=True)
    log_dir, workspace = base / "zettelclaw", base / "workspace"
    log_dir.mkdir(parents=True)
    workspace.mkdir()
    for name, (how, variant) in state.items():
        corrupt(log_dir, name, how, variant)
    (base / "file").write_text("not a directory\n")
    special = {"@file": str(base / "file"), "@dangling": str(base / "gone")}
    args = [special.get(a, a) for a in args]
    os.environ["ZETTELCLAW_HOME"] = str(log_dir)
    os.environ["OPENCLAW_WORKSPACE_DIR"] = str(workspace)

    assert_clean(cli(*args))


@pytest.mark.parametrize("how", CORRUPTIONS)
@pytest.mark.parametrize("args", [("handoff",), ("handoff", "--json"),
                                  ("search", "webhook", "--json"), ("search", "--json")])
def test_the_hot_commands_in_a_real_process_over_a_corrupted_log(how, args, log_dir, zc):
    log_dir.mkdir(parents=True)
    corrupt(log_dir, "log.jsonl", how, 1)
    corrupt(log_dir, "state.json", "wrong-types", 3)

    assert_clean(zc(*args))
    assert_clean(run_zettelclaw("--home", str(log_dir / "log.jsonl"), *args))

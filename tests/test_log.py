"""The append-only log: whole lines, locks, torn tails, private files."""

from __future__ import annotations

import os
import stat

import orjson

from tests.conftest import DESIGN_LINES, write_log
from zettelclaw.log import Log


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_appended_lines_are_compact_json_the_design_one_liners_can_grep(log_dir, cli):
    result = cli("write", "decision", "Queue-based retries", "--subject", "auth-migration",
                 "--detail", "cascading failures")
    assert result.exit_code == 0, result.stderr
    line = (log_dir / "log.jsonl").read_bytes()
    assert b'"type":"decision"' in line
    assert b'"subject":"auth-migration"' in line
    assert b": " not in line and b", " not in line.replace(b"Queue-based retries", b"")
    assert line.endswith(b"\n") and line.count(b"\n") == 1


def test_new_log_dir_is_0700_and_files_are_0600(log_dir, cli):
    cli("write", "fact", "Max prefers tea", "--subject", "max")
    assert mode(log_dir) == 0o700
    assert mode(log_dir / "log.jsonl") == 0o600
    assert mode(log_dir / "subjects.json") == 0o600


def test_reader_skips_a_torn_line_with_one_warning_and_goes_on(log_dir, cli):
    write_log(log_dir, DESIGN_LINES[:2], raw_tail=b'{"id":"torn","type":"fa\nnot json\n')
    write_log(log_dir, DESIGN_LINES[2:3])
    result = cli("search", "--json")
    assert result.exit_code == 0
    ids = [orjson.loads(line)["id"] for line in result.stdout.splitlines()]
    assert ids == ["a3k9x_BmQ2yT", "r7Wp3nKx_mZe", "Ht4vL_9qRx2D"]
    assert result.stderr.count("warning:") == 1
    assert "skipped 2 invalid lines" in result.stderr


def test_writer_after_a_torn_tail_starts_on_a_fresh_line(log_dir):
    write_log(log_dir, DESIGN_LINES[:1], raw_tail=b'{"id":"half-writ')
    Log(log_dir / "log.jsonl").append([DESIGN_LINES[1]])
    lines = (log_dir / "log.jsonl").read_bytes().splitlines()
    assert lines[1] == b'{"id":"half-writ'
    assert orjson.loads(lines[2])["id"] == "r7Wp3nKx_mZe"
    assert [e["id"] for e in Log(log_dir / "log.jsonl", warn=False).entries()] == [
        "a3k9x_BmQ2yT", "r7Wp3nKx_mZe"]


def test_unknown_fields_of_existing_lines_are_kept(log_dir, cli):
    write_log(log_dir, [{**DESIGN_LINES[0], "pinned": True}])
    [entry] = cli.lines("search", "--json")
    assert entry["pinned"] is True


def test_reversed_reads_newest_first_across_block_boundaries(log_dir):
    entries = [{**DESIGN_LINES[1], "id": f"id{n:010d}", "content": "x" * 5000}
               for n in range(40)]
    write_log(log_dir, entries)
    got = [e["id"] for e in Log(log_dir / "log.jsonl").reversed()]
    assert got == [e["id"] for e in reversed(entries)]


def test_concurrent_appends_from_processes_lose_nothing(log_dir, tmp_path):
    import subprocess
    import sys

    script = (
        "import sys; from zettelclaw.log import Log\n"
        "from zettelclaw.entries import make_entry\n"
        "log = Log()\n"
        "for n in range(50):\n"
        "    log.append([make_entry('fact', f'p{sys.argv[1]} n{n} ' + 'y' * 3000, 's')])\n"
    )
    procs = [subprocess.Popen([sys.executable, "-c", script, str(p)]) for p in range(4)]
    assert all(p.wait(timeout=120) == 0 for p in procs)
    lines = (log_dir / "log.jsonl").read_bytes().splitlines()
    assert len(lines) == 200
    assert all(orjson.loads(line)["type"] == "fact" for line in lines)


def test_grep_finds_every_line_with_its_offset_across_block_edges(tmp_path, monkeypatch):
    import zettelclaw.log as log_module

    monkeypatch.setattr(log_module, "_GREP_BLOCK", 37)  # blocks end mid-line all the time
    lines = [f'{{"n":{i},"tag":"{"hit" if i % 3 == 0 else "miss"}"}}' for i in range(1, 60)]
    path = tmp_path / "log.jsonl"
    path.write_text("\n".join(lines))  # no final newline: the last line still counts
    offsets = [sum(len(x) + 1 for x in lines[:i]) for i in range(len(lines))]
    want = [(offsets[i], line.encode()) for i, line in enumerate(lines) if '"hit"' in line]
    assert list(Log(path).grep(b'"hit"')) == want
    assert list(Log(tmp_path / "missing.jsonl").grep(b"x")) == []


def test_new_ids_never_start_like_an_option():
    from zettelclaw.entries import ID_RE, new_id

    ids = [new_id() for _ in range(3000)]
    assert all(ID_RE.match(i) and "-" not in i for i in ids)
    assert len(set(ids)) == len(ids)


def test_the_agents_of_a_log_are_told_from_its_bytes_as_a_parse_of_every_line_tells_them():
    from zettelclaw.log import agents_in

    def line(n: int, agent: str | None, **more) -> bytes:
        entry = {"id": f"id{n:010d}", "timestamp": "2026-03-01T10:00:00Z", "type": "fact",
                 "content": 'says "agent":"ghost" in its text', "session": "s", **more}
        if agent is not None:
            entry["agent"] = agent
        return orjson.dumps(entry) + b"\n"

    data = b"".join([*(line(n, "main") for n in range(500)), line(500, None),
                     line(501, "work")[20:],  # work's only line is torn
                     line(502, "ops")[5:], line(503, "ops"),  # ops: its second line holds
                     orjson.dumps({"id": "f1", "type": "forget", "replaces": "id0000000001",
                                   "agent": "audit"}) + b"\n"])
    assert agents_in(data, "main") == {"main", "ops", "audit"}
    assert agents_in(data, "main", records=False) == {"main", "ops"}
    assert agents_in(data + line(504, 'we"ird'), "main") is None  # an escape: parse the lines

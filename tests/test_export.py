"""``zettelclaw export`` (issue 15): the current entries as JSON Lines, CSV or Markdown, read
back the way a person leaving or backing up would read them."""

from __future__ import annotations

import csv
import io
import json
import os
import stat

import orjson
import pytest

from tests.conftest import write_log
from zettelclaw.export import CSV_COLUMNS

HARD = 'line one, with a comma\nline "two"\r\nthree;\ttab, "quoted", done'
ENTRIES = [
    {"id": "Old000000001", "timestamp": "2026-02-20T14:20:00Z", "type": "decision",
     "content": "Retries for webhook delivery", "detail": "Cascading failure risk",
     "subject": "auth-migration", "session": "abc12345"},
    {"id": "Fact00000001", "timestamp": "2026-02-21T09:00:00Z", "type": "fact",
     "content": HARD, "session": "abc12345"},
    {"id": "Work00000001", "timestamp": "2026-02-22T09:00:00Z", "type": "fact",
     "content": "The work agent's own fact", "session": "w1", "agent": "work"},
    {"id": "New000000001", "timestamp": "2026-02-26T10:00:00Z", "type": "decision",
     "content": "Queue-based retries with a dead-letter queue",
     "detail": "Some failures are permanent\n# not a heading\n- not a list item",
     "subject": "auth-migration", "replaces": "Old000000001", "session": "def67890"},
    {"id": "Task00000001", "timestamp": "2026-02-24T10:00:00Z", "type": "task",
     "content": "Write the backfill script", "status": "open", "subject": "auth-migration",
     "session": "def67890"},
    {"id": "Ctrl00000001", "timestamp": "2026-01-05T08:00:00Z", "type": "question",
     "content": "Who owns \x1b[31mbilling\x1b[0m?", "subject": "billing", "session": "s0"},
]
CURRENT = ["Fact00000001", "New000000001", "Task00000001", "Ctrl00000001"]  # main's, log order


@pytest.fixture
def log(log_dir):
    path = write_log(log_dir, ENTRIES)
    (log_dir / "subjects.json").write_text(json.dumps(
        {"auth-migration": {"display": "Auth Migration", "type": "project"}}))
    return path


def stored_lines(log) -> dict[str, bytes]:
    return {orjson.loads(line)["id"]: line for line in log.read_bytes().splitlines()}


def test_jsonl_is_the_stored_objects_of_the_current_entries(log, cli):
    result = cli("export")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout_bytes.splitlines()
    assert [orjson.loads(x)["id"] for x in lines] == CURRENT
    stored = stored_lines(log)
    assert all(line == stored[orjson.loads(line)["id"]] for line in lines)  # byte for byte
    # jq-like: .content of the fact, .replaces of the correction
    by_id = {e["id"]: e for e in map(orjson.loads, lines)}
    assert by_id["Fact00000001"]["content"] == HARD
    assert by_id["New000000001"]["replaces"] == "Old000000001"


def test_one_agent_at_a_time_as_search(log, cli):
    ids = [e["id"] for e in cli.lines("export", "--agent", "work")]
    assert ids == ["Work00000001"]
    assert "Work00000001" not in cli("export").stdout  # the default agent sees only its own
    every = [e["id"] for e in cli.lines("export", "--agent", "all")]
    assert every == ["Fact00000001", "Work00000001", "New000000001", "Task00000001",
                     "Ctrl00000001"]


def test_all_gives_every_version(log, cli):
    ids = [e["id"] for e in cli.lines("export", "--all")]
    assert ids == ["Old000000001", "Fact00000001", "New000000001", "Task00000001",
                   "Ctrl00000001"]


def test_csv_reads_back_with_the_csv_module(log, cli):
    result = cli("export", "--format", "csv")
    assert result.exit_code == 0, result.stderr
    raw = result.stdout_bytes
    assert raw.startswith(",".join(CSV_COLUMNS).encode() + b"\r\n")  # the header, CRLF
    rows = list(csv.DictReader(io.StringIO(raw.decode("utf-8"), newline="")))
    assert [r["id"] for r in rows] == CURRENT
    assert all(list(r) == list(CSV_COLUMNS) for r in rows)
    fact = rows[0]
    assert fact["content"] == HARD  # newlines, CRLF, commas, quotes and tabs round-trip
    assert (fact["subject"], fact["status"], fact["agent"]) == ("", "", "")
    task = rows[2]
    assert (task["type"], task["status"], task["subject"]) == ("task", "open", "auth-migration")
    assert rows[1]["replaces"] == "Old000000001"
    assert rows[3]["content"] == ENTRIES[5]["content"]  # stored text, escapes and all


def test_markdown_by_subject_with_the_conversation_dates(log, cli):
    result = cli("export", "--format", "md")
    assert result.exit_code == 0, result.stderr
    text = result.stdout
    headings = [line for line in text.splitlines() if line.startswith("#")]
    assert headings == ["# zettelclaw memory: main", "## Auth Migration (auth-migration)",
                        "## Billing (billing)", "## No subject"]
    section = text.split("## Auth Migration (auth-migration)\n")[1].split("\n## ")[0]
    assert section.strip().splitlines()[0] == \
        "- **task** (open) · 2026-02-24 · Write the backfill script"  # oldest first
    assert "- **decision** · 2026-02-26 · Queue-based retries with a dead-letter queue\n" \
           "  — Some failures are permanent\n  \\# not a heading\n  \\- not a list item" in section
    assert "Retries for webhook delivery" not in text  # replaced
    assert "\x1b" not in text and "Who owns \\x1b[31mbilling\\x1b[0m?" in text
    assert "4 entries" in text


def test_output_is_written_atomically_and_never_over_a_file_without_force(log, cli, tmp_path):
    target = tmp_path / "backup.csv"
    result = cli("export", "--output", str(target))
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "" and "4 entries written" in result.stderr
    assert target.read_bytes().startswith(b"id,timestamp,")  # the format from the suffix
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o600
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temp left

    target.write_text("keep me")
    refused = cli("export", "--output", str(target), "--format", "jsonl")
    assert refused.exit_code == 2
    assert refused.stderr.startswith("Error:") and "--force" in refused.stderr
    assert target.read_text() == "keep me"
    assert cli("export", "-o", str(target), "-f", "jsonl", "--force").exit_code == 0
    assert [orjson.loads(x)["id"] for x in target.read_bytes().splitlines()] == CURRENT


@pytest.mark.parametrize("where", ["log-dir", "missing-dir", "symlink"])
def test_refused_outputs(log, log_dir, cli, tmp_path, where):
    if where == "log-dir":
        target = log_dir / "export.jsonl"  # a copy there would outlive a purge
    elif where == "missing-dir":
        target = tmp_path / "nowhere" / "export.jsonl"
    else:
        (tmp_path / "real").write_text("x")
        target = tmp_path / "link.jsonl"
        target.symlink_to(tmp_path / "real")
    result = cli("export", "--output", str(target), "--force")
    assert result.exit_code != 0 and result.stderr.startswith("Error:")
    assert len(result.stderr.strip().splitlines()) == 1
    assert not (log_dir / "export.jsonl").exists()
    if where == "symlink":
        assert (tmp_path / "real").read_text() == "x" and target.is_symlink()


def test_an_empty_log(log_dir, cli):
    write_log(log_dir, [])
    assert cli("export").stdout == ""
    assert cli("export", "-f", "csv").stdout_bytes == (",".join(CSV_COLUMNS) + "\r\n").encode()
    assert "No entries." in cli("export", "-f", "md").stdout


def test_an_unknown_format(log, cli):
    result = cli("export", "--format", "xml")
    assert result.exit_code == 2 and "jsonl, csv or md" in result.stderr


def test_help_shows_an_example(cli):
    result = cli("export", "--help")
    assert result.exit_code == 0
    assert "zettelclaw export --format csv --output memory.csv" in " ".join(result.stdout.split())


def test_markdown_keeps_its_structure_whatever_an_entry_holds(log_dir, cli):
    write_log(log_dir, [{"id": "Odd000000001", "timestamp": "2026-03-01T10:00:00Z",
                         "type": "fact", "content": "# looks like a heading\n```\nfenced",
                         "subject": "hand\nedited", "session": "s"}])
    lines = cli("export", "-f", "md").stdout.splitlines()
    assert [x for x in lines if x.startswith("#")] == ["# zettelclaw memory: main",
                                                        "## Hand edited (hand edited)"]
    assert "- **fact** · 2026-03-01 · \\# looks like a heading" in lines
    assert "  \\```" in lines and "  fenced" in lines


def test_markdown_lets_no_underline_rule_html_or_link_definition_through(log_dir, cli):
    write_log(log_dir, [{"id": "Odd000000002", "timestamp": "2026-03-01T10:00:00Z",
                         "type": "fact", "session": "s",
                         "content": "Deploy plan\n---\nthen\n***\n___\n"
                                    "<img src=https://evil.example/t.png>\n\n"
                                    "[docs]: https://evil.example\nsee <b>this</b>"}])
    text = cli("export", "-f", "md").stdout
    lines = text.splitlines()
    assert "- **fact** · 2026-03-01 · Deploy plan" in lines
    for escaped in ("  \\---", "  \\***", "  \\___", "  \\<img src=https://evil.example/t.png>",
                    "  \\[docs]: https://evil.example", "  see \\<b>this\\</b>"):
        assert escaped in lines, (escaped, lines)
    assert "<" not in text.replace("\\<", "")  # no raw HTML at all

"""Text from the log is data (issue 11 §4): whatever an entry holds, a terminal, a table and
MEMORY.md show it as text: no escape sequence runs, no Rich markup renders or crashes."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import orjson

from tests.conftest import write_log

ESC = "\x1b]0;pwned\x07\x1b[2J\x1b[31mred"
MARKUP = "see [/bold] and [link=https://evil.example]click[/link] [bold]loud"


def entry(i: int, content: str, **more) -> dict:
    return {"id": f"Hx{i:03d}_aaaaaa", "timestamp": f"2026-03-0{i}T10:00:00Z", "type": "fact",
            "content": content, "session": "s1", **more}


def on_terminal(*args: str) -> tuple[int, str]:
    """Run the installed executable with stdout on a real pseudo-terminal; (code, output)."""
    exe = Path(sys.executable).parent / "zettelclaw"
    main, child = pty.openpty()
    proc = subprocess.Popen([str(exe), *args], stdout=child, stderr=child, stdin=subprocess.DEVNULL,
                            env={**os.environ, "COLUMNS": "250", "TERM": "xterm"})
    os.close(child)
    out = b""
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    os.close(main)
    return proc.wait(timeout=60), out.decode("utf-8", "replace")


def test_an_escape_sequence_in_an_entry_reaches_the_terminal_as_visible_text(log_dir):
    write_log(log_dir, [entry(1, ESC, subject="x\x1b[8mhidden")])
    for args in (["log"], ["get", "Hx001_aaaaaa"], ["search", "pwned"]):
        code, out = on_terminal(*args)
        assert code == 0, out
        assert "\x1b]0;pwned" not in out and "\x1b[2J" not in out and "\x1b[8m" not in out
        assert "\\x1b]0;pwned\\x07" in out or "\\x1b]0;pwned" in out.replace("\r\n", ""), out


def test_json_output_keeps_the_stored_bytes(log_dir, cli):
    write_log(log_dir, [entry(1, ESC)])
    assert cli.lines("log", "--json")[0]["content"] == ESC
    assert cli.lines("get", "Hx001_aaaaaa", "--json")[0]["content"] == ESC


def test_rich_markup_in_content_prints_literally_in_log_and_search_tables(log_dir):
    write_log(log_dir, [entry(1, MARKUP, subject="[red]subj")])
    for args in (["log"], ["search", "click"]):
        code, out = on_terminal(*args)
        assert code == 0, out
        flat = out.replace("\r\n", "").replace("│", "").replace(" ", "")
        assert "[/bold]" in flat and "[link=https://evil.example]click[/link]" in flat, out
        assert "\x1b]8;" not in out  # no hyperlink escape: nothing clickable
        assert "Traceback" not in out and "Error" not in out


def test_stats_and_subjects_tables_print_hand_written_slugs_literally(log_dir):
    write_log(log_dir, [entry(1, "plain", subject="[/bold]")])
    (log_dir / "subjects.json").write_bytes(orjson.dumps(
        {"[/bold]": {"display": "[link=https://evil.example]x", "type": "project"}}))
    for args in (["stats"], ["subjects", "list"]):
        code, out = on_terminal(*args)
        assert code == 0, out
        assert "[/bold]" in out and "Traceback" not in out


def test_brief_writes_control_characters_into_memory_md_as_visible_text(log_dir, cli, zc_env):
    write_log(log_dir, [
        {**entry(1, "Decided " + ESC), "type": "decision", "subject": "proj"},
        {**entry(2, "Task \x1b[31mred\u202eevil"), "type": "task", "status": "open",
         "subject": "proj"}])
    result = cli("brief", "--no-llm", "--now", "2026-03-04")  # the task is not quiet yet
    assert result.exit_code == 0, result.stderr
    memory = (zc_env["workspace"] / "MEMORY.md").read_text()
    assert "\x1b" not in memory and "\u202e" not in memory
    assert "\\x1b[31mred\\u202eevil" in memory


def test_a_lone_surrogate_from_a_hand_repair_reads_as_a_replacement_character(log_dir, zc):
    """Python's json module writes "\\ud800" for a lone surrogate; orjson refuses it."""
    import json

    write_log(log_dir, [])
    (log_dir / "log.jsonl").write_text(
        json.dumps(entry(1, "webhook retries \ud800 go through the queue")) + "\n"
        + json.dumps(entry(2, "the webhook queue drains nightly")) + "\n")
    expected = "webhook retries \ufffd go through the queue"
    for args in (("search", "--json", "--", "webhook retries"), ("log", "--json"),
                 ("get", "Hx001_aaaaaa", "--json"),
                 ("recall", "--json", "--", "webhook retries queue")):
        result = zc(*args)
        assert result.returncode == 0 and b"Traceback" not in result.stderr, (args, result.stderr)
        shown = [orjson.loads(line) for line in result.stdout.splitlines()]
        assert expected in [e["content"] for e in shown], (args, shown)
    text = zc("recall", "--text", "--", "webhook retries queue")
    assert text.returncode == 0 and expected in text.stdout.decode()

"""MEMORY.md under pressure: fenced examples of the markers, UTF-16 files, log text that looks
like a marker, and lines appended while `zettelclaw brief` writes (issue 11, §7)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import write_log
from tests.test_briefing import BEGIN, END, EXAMPLE_BLOCK, EXAMPLE_LINES, brief, entry

EXAMPLE = f"{BEGIN}\n## Active\n- auth-migration — Queue-based retries\n{END}\n"


@pytest.fixture
def memory(zc_env):
    return zc_env["workspace"] / "MEMORY.md"


def outside_fences(text: str) -> str:
    """``text`` without its ``` fenced blocks (the user's view of where the real markers are)."""
    return "".join(part for i, part in enumerate(text.split("```")) if i % 2 == 0)


# ---------------------------------------------------------------------------------------------
# markers inside a fenced code block are examples


README_LIKE = f"""# How my memory works

The briefing goes between two markers, like this:

```markdown
{EXAMPLE}```

And with tildes:

~~~~
{EXAMPLE}~~~
still the example: a shorter fence does not close it
~~~~

## Goals
- ship it
"""


def test_fenced_markers_are_examples_and_the_briefing_goes_at_the_end(cli, log_dir, memory):
    write_log(log_dir, EXAMPLE_LINES)
    memory.write_text(README_LIKE)

    brief(cli, "--no-llm")
    brief(cli, "--no-llm")  # and every night after

    text = memory.read_text()
    assert text == README_LIKE + f"\n{BEGIN}\n{EXAMPLE_BLOCK}\n{END}\n"


def test_the_real_markers_are_found_after_a_fenced_example(cli, log_dir, memory):
    write_log(log_dir, EXAMPLE_LINES)
    memory.write_text(README_LIKE + f"\n{BEGIN}\nold\n{END}\n\nNotes\n")

    brief(cli, "--no-llm")

    assert memory.read_text() == README_LIKE + f"\n{BEGIN}\n{EXAMPLE_BLOCK}\n{END}\n\nNotes\n"


def test_a_fence_left_open_is_closed_before_the_markers(cli, log_dir, memory):
    write_log(log_dir, EXAMPLE_LINES)
    memory.write_text(f"notes\n```\n{EXAMPLE}")

    brief(cli, "--no-llm")
    brief(cli, "--no-llm")

    text = memory.read_text()
    assert text == f"notes\n```\n{EXAMPLE}\n```\n\n{BEGIN}\n{EXAMPLE_BLOCK}\n{END}\n"


def test_a_block_line_that_looks_like_a_fence_cannot_hide_the_end_marker(memory):
    """A line of the block opening a code fence would swallow the END marker after it, and
    every later briefing would stop at "a BEGIN marker without an END marker": it is
    backslash-escaped (Markdown shows the same text) and the block is rewritten in place."""
    from zettelclaw.briefing import splice

    once = splice(b"# Notes\n", "- first\n```\n  ~~~~ tildes")
    assert markers_state_of(memory, once) == "ok"
    assert b"\n\\```\n  \\~~~~ tildes\n" + END.encode() in once
    again = splice(once, "- second")
    assert again == b"# Notes\n\n" + f"{BEGIN}\n- second\n{END}\n".encode()


def markers_state_of(memory, data: bytes) -> str:
    from zettelclaw.briefing import markers_state

    memory.write_bytes(data)
    return markers_state(memory)


def test_init_doctor_see_only_real_markers(memory):
    from zettelclaw.briefing import add_markers, generated_block, markers_state, remove_markers

    memory.write_text(README_LIKE)
    assert markers_state(memory) == "missing"
    add_markers(memory)
    assert markers_state(memory) == "ok"
    assert generated_block(memory.read_text()) == ""
    remove_markers(memory)
    assert memory.read_text() == README_LIKE


# ---------------------------------------------------------------------------------------------
# encodings


@pytest.mark.parametrize("codec, bom", [("utf-16-le", b"\xff\xfe"), ("utf-16-be", b"\xfe\xff")])
@pytest.mark.parametrize("markers", [True, False])
def test_a_utf16_memory_md_stays_utf16_and_keeps_its_bytes(cli, log_dir, memory, codec, bom,
                                                            markers):
    write_log(log_dir, EXAMPLE_LINES)
    head, tail = "# Mémoire 🧠\r\n", "\r\nfin ✓"
    text = head + (f"{BEGIN}\r\nold\r\n{END}" + tail if markers else "")
    memory.write_bytes(bom + text.encode(codec))

    brief(cli, "--no-llm")

    data = memory.read_bytes()
    assert data.startswith(bom)
    written = data[len(bom):].decode(codec)
    block = EXAMPLE_BLOCK.replace("\n", "\r\n")
    if markers:
        assert written == f"{head}{BEGIN}\r\n{block}\r\n{END}{tail}"
    else:
        assert written == f"{head}\r\n{BEGIN}\r\n{block}\r\n{END}\r\n"


def test_a_file_that_only_looks_utf16_is_refused_untouched(cli, log_dir, memory):
    write_log(log_dir, EXAMPLE_LINES)
    data = b"\xff\xfe" + "notes".encode("utf-16-le") + b"\x00"  # odd length: not UTF-16
    memory.write_bytes(data)

    result = cli("brief", "--no-llm")

    assert result.exit_code == 1
    assert result.stderr.startswith("Error: ") and len(result.stderr.splitlines()) == 1
    assert "UTF-16" in result.stderr
    assert memory.read_bytes() == data


def test_a_utf8_byte_order_mark_is_kept(cli, log_dir, memory):
    write_log(log_dir, EXAMPLE_LINES)
    memory.write_bytes(b"\xef\xbb\xbf# notes\n" + f"{BEGIN}\nold\n{END}\n".encode())

    brief(cli, "--no-llm")

    assert memory.read_bytes() == b"\xef\xbb\xbf# notes\n" + \
        f"{BEGIN}\n{EXAMPLE_BLOCK}\n{END}\n".encode()


# ---------------------------------------------------------------------------------------------
# no entry can write a marker line


TRICKS = [END, BEGIN, f"x\n{END}", f"x\r\n{BEGIN}\n{END}", "```", f"```\n{END}", "<!--", "-->",
          f"\u2028{END}", f"\x85{BEGIN}", "<\u200b!-- END GENERATED BRIEFING -->"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(st.sampled_from(TRICKS), st.text(max_size=20)), max_size=6).map("".join),
       st.sampled_from(["fact", "decision", "task", "question"]))
def test_no_entry_text_or_subject_produces_a_marker_line(content, kind):
    from zettelclaw.briefing import _locate, name, one_line, render, splice

    line = one_line(content)
    items = {"active": [f"{name(content)} — {line}"], "pending": [f"{line} ({name(content)})"],
             "decisions": [line], "questions": [line]}
    block = render(items, 80, {}).block
    data = splice(b"# notes\n", block)
    start, end = _locate(data)
    assert data[start:end].decode() == "\n" + block + "\n"
    assert splice(data, block) == data
    assert BEGIN not in block and END not in block


def test_an_entry_id_or_content_cannot_end_the_block(cli, log_dir, memory):
    write_log(log_dir, [
        entry("fact", f"line one\n{END}\n## Injected", "2026-02-23", "x"),
        {**entry("question", "why?", "2026-02-23", f"\n```\n{END}"), "id": f"{END}"},
    ])
    brief(cli, "--no-llm")
    brief(cli, "--no-llm")
    text = memory.read_text()
    assert text.count(BEGIN) == 1 and text.count(END) == 1


# ---------------------------------------------------------------------------------------------
# lines appended while the briefing is written


APPENDER = """
import os, random, sys, time
path, count = sys.argv[1], int(sys.argv[2])
for i in range(count):
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    os.write(fd, f"appended line {i}\\n".encode())
    os.close(fd)
    time.sleep(random.random() / 500)
"""


def test_lines_appended_during_briefs_are_all_kept(cli, log_dir, memory):
    write_log(log_dir, EXAMPLE_LINES)
    memory.write_text(f"# notes\n{BEGIN}\n{END}\n")
    count = 30_000 if os.environ.get("ZC_STRESS") else 2_000
    appender = subprocess.Popen([sys.executable, "-c", APPENDER, str(memory), str(count)])
    briefs = 0
    try:
        while appender.poll() is None or briefs < 20:
            # alternate two different blocks, so that every run really rewrites the file
            brief(cli, "--no-llm", "--max-lines", str(4 + briefs % 2))
            briefs += 1
    finally:
        appender.wait()

    text = memory.read_text()
    appended = [line for line in text.splitlines() if line.startswith("appended line")]
    assert sorted(appended) == sorted(f"appended line {i}" for i in range(count))
    assert text.count(BEGIN) == 1 and text.count(END) == 1 and "## Active" in text
    print(f"{briefs} briefs, {count} appended lines")

"""`zettelclaw search` over MEMORY.md: the person's notes, not the briefing that repeats the log.

The generated block between the briefing markers is derived from the log; indexed as well, every
entry it lists came back twice and pushed the person's own notes down.
"""

from __future__ import annotations

import orjson
import pytest

from tests.conftest import write_log
from tests.test_briefing import BEGIN, END, entry

NIGHT = "2026-03-10T03:00:00Z"
DLQ = entry("decision", "Webhook retries go through a dead-letter queue after five failures",
            "2026-03-09T10:00:00Z", "webhooks", id="dlqDecision1")
OTHERS = [
    entry("fact", "Webhook workers poll the retry queue every five seconds",
          "2026-03-08T09:00:00Z", "webhooks", id="pollFact0001"),
    entry("task", "Alert when the dead-letter queue holds more than 100 webhook jobs",
          "2026-03-09T11:00:00Z", "webhooks", id="alertTask001"),
    entry("fact", "Maria owns the payments service", "2026-03-01T09:00:00Z", "maria",
          id="mariaFact001"),
]
NOTE = "- Before changing webhook retries or the dead-letter queue, ask Maria first."
MANUAL = "\n".join([
    "# Long-term memory", "", "## Working agreements", "", NOTE,
    "- Keep deploys small.", "",
    # an example of the markers in a fenced block is the person's text, not the block
    "## How the briefing looks", "", "```", BEGIN, "(the dead-letter queue example)", END, "```",
    "", BEGIN, END, ""])
QUESTION = "webhook retries dead-letter queue"


def search(runner, *args):
    """The JSON lines of a search, from the in-process CLI or the executable (the hot path)."""
    result = runner("search", *args, "--json")
    if hasattr(result, "returncode"):
        assert result.returncode == 0, result.stderr
        out = result.stdout.decode()
    else:
        assert result.exit_code == 0, result.stderr
        out = result.stdout
    return [orjson.loads(line) for line in out.splitlines() if line.strip()]


def note_chunk(results):
    found = [(i, r) for i, r in enumerate(results)
             if r.get("source") == "memory" and NOTE in r["snippet"]]
    assert len(found) == 1, results
    return found[0]


@pytest.fixture(params=["ripgrep", "python"])
def engine(request, monkeypatch):
    if request.param == "python":
        monkeypatch.setenv("ZETTELCLAW_RG", "0")
    return request.param


@pytest.mark.parametrize("path", ["cli", "executable"])
def test_the_generated_block_is_not_searched_and_the_persons_note_keeps_its_place(
        log_dir, zc_env, cli, zc, path, engine):
    runner = cli if path == "cli" else zc
    write_log(log_dir, [*OTHERS, DLQ])
    memory = zc_env["workspace"] / "MEMORY.md"
    memory.write_text(MANUAL)
    before = search(runner, QUESTION)
    where, note = note_chunk(before)

    assert cli("brief", "--now", NIGHT, "--no-llm").exit_code == 0
    text = memory.read_text()
    block = text[text.rindex(BEGIN):text.rindex(END)]
    assert DLQ["content"][:40] in block  # the briefing lists the decision

    after = search(runner, QUESTION)
    # the decision comes back once: from the log, never again as a chunk of the briefing
    assert [r.get("id") for r in after].count("dlqDecision1") == 1
    chunks = [r for r in after if r.get("source") == "memory"]
    assert not any(DLQ["content"][:40] in c["snippet"] for c in chunks), chunks
    lines = text.splitlines()
    first_generated = lines.index(BEGIN, lines.index("```", lines.index(BEGIN) + 1))
    assert all(c["endLine"] < first_generated + 1 for c in chunks), chunks
    # the person's note ranks where it did, with the same score; the fenced example still counts
    assert note_chunk(after) == (where, note)
    assert [r for r in after if r.get("source") == "memory"] == \
        [r for r in before if r.get("source") == "memory"]
    assert any("(the dead-letter queue example)" in c["snippet"] for c in chunks)


def test_get_memory_md_still_shows_the_whole_file(log_dir, zc_env, cli):
    write_log(log_dir, [*OTHERS, DLQ])
    memory = zc_env["workspace"] / "MEMORY.md"
    memory.write_text(MANUAL)
    assert cli("brief", "--now", NIGHT, "--no-llm").exit_code == 0
    got = cli.lines("get", "MEMORY.md", "--json")[0]
    assert got["text"] == memory.read_text().rstrip("\n")
    assert DLQ["content"][:40] in got["text"]


def test_broken_markers_leave_the_whole_file_searchable(log_dir, zc_env, cli):
    write_log(log_dir, OTHERS)
    (zc_env["workspace"] / "MEMORY.md").write_text(
        f"{NOTE}\n{BEGIN}\n- dead-letter queue size is 100 webhook jobs\n")  # no END marker
    chunks = [r for r in search(cli, QUESTION) if r.get("source") == "memory"]
    assert len(chunks) == 1 and "size is 100" in chunks[0]["snippet"]

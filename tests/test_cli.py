"""The CLI as a person meets it: help, README and docs/, exit codes, writing entries by hand."""

from __future__ import annotations

import re

import orjson

from tests.conftest import DESIGN_LINES, DOC_PAGES, REPO, write_log


def commands() -> list[str]:
    import typer.main

    from zettelclaw.cli import app

    group = typer.main.get_command(app)
    return sorted(group.commands)


def test_the_front_page_starts_with_the_two_set_up_commands_and_links_every_page():
    readme = (REPO / "README.md").read_text()
    first_screen = readme.splitlines()[:40]
    for line in ("make demo   # runs the whole pipeline on a bundled example OpenClaw home",
                 "make test   # installs everything into .venv and runs the whole test suite",
                 "zettelclaw init           # wire it into OpenClaw: plugin, memory slot, "
                 "nightly cron, markers"):
        assert line in first_screen
    pages = [page.relative_to(REPO).as_posix() for page in DOC_PAGES[1:]]
    assert len(pages) >= 15
    assert [page for page in pages if f"]({page})" not in readme] == []


def test_the_docs_document_every_command_and_the_exit_codes():
    docs = "\n".join(page.read_text() for page in DOC_PAGES)
    documented = set(re.findall(r"`zettelclaw ([a-z]+)", docs))
    missing = [c for c in commands() if c not in documented]
    assert missing == []
    exit_codes = (REPO / "docs" / "exit-codes.md").read_text()
    for code in ("| 0 |", "| 1 |", "| 2 |"):
        assert code in exit_codes


def test_every_link_between_the_pages_reaches_a_page_and_a_heading_there():
    def anchors(text: str) -> set[str]:
        text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)  # no headings in code
        return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-")
                for h in re.findall(r"^#+ (.*)$", text, flags=re.M)}

    broken = []
    for page in DOC_PAGES:
        for target in re.findall(r"\]\(([^)\s]+)\)", page.read_text()):
            if re.match(r"[a-z]+:", target):
                continue  # https://...
            path, _, anchor = target.partition("#")
            linked = (page.parent / path).resolve() if path else page
            if not linked.is_file() or (anchor and anchor not in anchors(linked.read_text())):
                broken.append((page.name, target))
    assert broken == []


def test_every_command_has_help(cli):
    for name in commands():
        result = cli(name, "--help")
        assert result.exit_code == 0, name
        assert "Usage:" in result.stdout


def test_version(cli):
    from zettelclaw import __version__

    assert cli("--version").stdout.strip() == f"zettelclaw {__version__}"


def test_write_a_correction_that_replaces_an_entry(design_log, cli):
    result = cli("write", "fact", "Backoff intervals are 2s, 10s, 30s", "--subject",
                 "auth-migration", "--replaces", "r7Wp3nKx_mZe", "--json")
    assert result.exit_code == 0, result.stderr
    written = orjson.loads(result.stdout)
    # r7Wp3nKx_mZe was already corrected by Dw9sN_2qXk7Z: the write corrects that one
    assert written["replaces"] == "Dw9sN_2qXk7Z" and written["session"] == "manual"
    assert "Dw9sN_2qXk7Z" in result.stderr
    assert len(written["id"]) == 12
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", written["timestamp"])
    current = [e["id"] for e in cli.lines("search", "--type", "fact")]
    assert written["id"] in current
    assert "r7Wp3nKx_mZe" not in current and "Dw9sN_2qXk7Z" not in current


def test_write_a_task_defaults_to_open(log_dir, cli):
    entry = orjson.loads(cli("write", "task", "Canary deploy", "--json").stdout)
    assert entry["status"] == "open"


def test_write_rejects_bad_input_and_writes_nothing(log_dir, cli):
    write_log(log_dir, DESIGN_LINES)
    before = (log_dir / "log.jsonl").read_bytes()
    cases = [
        ["write", "note", "x"],
        ["write", "fact", "x", "--replaces", "nOsUcH_id123"],
        ["write", "fact", "x", "--subject", "Not A Slug"],
        ["write", "fact", "x", "--status", "open"],
        ["write", "task", "x", "--status", "blocked"],
        ["write", "fact", "   "],
    ]
    for args in cases:
        result = cli(*args)
        assert result.exit_code == 2, (args, result.stdout, result.stderr)
        assert result.stderr.startswith("Error: ") and len(result.stderr.splitlines()) == 1
    assert (log_dir / "log.jsonl").read_bytes() == before


def test_log_shows_the_most_recent_entries(design_log, cli):
    assert [e["id"] for e in cli.lines("log", "-n", "2", "--json")] == [
        "Cx6tM_1pWn8Y", "Dw9sN_2qXk7Z"]


def test_usage_errors_exit_2(cli):
    assert cli("search", "--limit", "0").exit_code == 2
    assert cli("no-such-command").exit_code == 2


def test_piped_search_output_is_json_lines_for_jq(design_log, zc):
    result = zc("search", "--type", "decision")
    assert result.returncode == 0
    lines = result.stdout.decode().splitlines()
    assert [orjson.loads(ln)["id"] for ln in lines] == ["Cx6tM_1pWn8Y"]


def test_the_documented_limits_are_the_code_s():
    from zettelclaw.handoff import HANDOFF_CHARS, MAX_LINE
    from zettelclaw.rank import MAX_QUERY_CHARS, MAX_QUERY_TERMS
    from zettelclaw.transcripts import MAX_LINE_BYTES
    from zettelclaw.writer import WRITE_FIELD_CHARS

    limits = (REPO / "docs" / "limits.md").read_text()
    assert f"| a search query | {MAX_QUERY_CHARS:,} characters" in limits
    assert f"first {MAX_QUERY_TERMS} distinct terms" in limits
    assert f"| `write` content or detail | {WRITE_FIELD_CHARS:,} characters" in limits
    assert f"| the handoff block | {HANDOFF_CHARS:,} characters" in limits
    assert f"over {MAX_LINE >> 20} MiB, `handoff`" in limits
    assert f"over {MAX_LINE_BYTES >> 20} MiB (`ZETTELCLAW_MAX_LINE_BYTES`)" in limits

"""Purge is complete, or says exactly what is left (issue 23, section 2): every vault the log
was rendered into, only what the purged entries rendered there, each step on its own (one
failing never stops the others, nor leaves the words in state.json), a MEMORY.md it could not
brief again named, and a broad purge quick enough that writers wait for it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from tests.conftest import DESIGN_LINES, run_zettelclaw, write_log
from tests.test_purge import BEGIN, END, grep_r
from tests.test_vault import build, links_resolve, pages, set_config, set_subjects
from zettelclaw.entries import make_entry

EXE = Path(sys.executable).parent / "zettelclaw"


def purge(cli, *args: str):
    result = cli("purge", *args, "--yes", "--json")
    return result, (json.loads(result.stdout) if result.stdout.strip() else {})


# -- every vault, and none inside the log directory -----------------------------------------


def test_a_vault_built_with_vault_dir_is_purged_too(cli, log_dir, tmp_path):
    """No vault.path in the plugin config: `vault build --vault DIR` wrote the words, and
    state.json records that vault."""
    write_log(log_dir, DESIGN_LINES)
    vault = tmp_path / "elsewhere"
    build(cli, vault)
    assert "dead-letter queue" in "\n".join(pages(vault / "main").values())
    result, report = purge(cli, "--match", "dead-letter")
    assert result.exit_code == 0, result.stderr
    assert grep_r("dead-letter", vault) == []
    assert any(str(vault) in name for name in report["scrubbed"])
    assert links_resolve(vault / "main") == []


def test_a_vault_inside_the_log_directory_is_refused(cli, log_dir):
    write_log(log_dir, DESIGN_LINES)
    result = cli("vault", "build", "--vault", str(log_dir / "vault"))
    assert result.exit_code == 2
    assert "inside the log directory" in result.stderr and "outlive a purge" in result.stderr
    assert not (log_dir / "vault").exists()


# -- only what the purged entries rendered ----------------------------------------------------


@pytest.fixture
def gym_vault(cli, log_dir, tmp_path, zc_env):
    vault = tmp_path / "vault"
    set_config(zc_env, vault={"path": str(vault)})
    set_subjects(log_dir, {"gym": {"display": "Gym Locker 8812", "type": "project"}})
    write_log(log_dir, [
        make_entry("fact", "The gym locker code is 8812", "s1", subject="gym",
                   timestamp="2026-11-20T09:00:00Z"),
        make_entry("fact", "Journal entries go out on Fridays", "s1", subject="gym",
                   timestamp="2026-11-20T09:05:00Z"),
        make_entry("decision", "Renew the gym membership", "s1", subject="gym",
                   timestamp="2026-11-21T09:00:00Z")])
    build(cli, vault)
    return vault / "main"


def test_a_match_on_a_word_of_the_vaults_structure_leaves_the_structure_alone(
        cli, log_dir, gym_vault):
    """`--match journal` took `[[03 Journal/...]]` links on unrelated pages and the
    journal's `tags: [journals]` with it."""
    before = pages(gym_vault)
    result, _ = purge(cli, "--match", "journal")
    assert result.exit_code == 0, result.stderr
    after = pages(gym_vault)
    assert after.keys() == before.keys()
    assert links_resolve(gym_vault) == []
    for name, text in after.items():
        assert "[purged]" not in text.split("\n---\n", 1)[0], name  # frontmatter whole
        assert "Journal entries go out" not in text, name  # the purged entry's words: gone
        if name.startswith("03 Journal"):
            assert "tags: [journals]" in text
    assert "Renew the gym membership" in after["01 Notes/Gym Locker 8812.md"]


def test_a_page_whose_name_holds_the_words_is_named_and_nothing_breaks(cli, log_dir,
                                                                       gym_vault):
    """A match on a display name broke links and aliases, rewrote state.json's page map,
    and the next build made "Gym Locker 8812 (2).md"."""
    state_before = json.loads((log_dir / "state.json").read_text())["vault"]
    result, report = purge(cli, "--match", "8812")
    assert result.exit_code == 0, result.stderr
    page = gym_vault / "01 Notes" / "Gym Locker 8812.md"
    assert any(str(page) in where and "its name holds it" in where for where in report["left"])
    assert json.loads((log_dir / "state.json").read_text())["vault"] == state_before
    assert 'aliases: ["Gym Locker 8812"]' in page.read_text()
    assert "The gym locker code is" not in page.read_text()
    assert links_resolve(gym_vault) == []
    write_log(log_dir, [make_entry("task", "Empty the locker", "s2", subject="gym", status="open",
                                   timestamp="2026-11-22T09:00:00Z")])
    build(cli, gym_vault.parent)
    assert sorted(p.name for p in (gym_vault / "01 Notes").iterdir()) == [
        "Gym Locker 8812.md"]
    assert "Empty the locker" in page.read_text()


# -- each step on its own -----------------------------------------------------------------------


def test_a_writer_meanwhile_does_not_make_the_scrub_fail(cli, log_dir, monkeypatch):
    """The scrub of hooks.log runs outside the lock, through a temp file; any writer taking
    the lock meanwhile cleaned temp files up, and purge failed "No such file or directory",
    the words left in brief.log."""
    from zettelclaw import fsutil

    write_log(log_dir, DESIGN_LINES)
    (log_dir / "hooks.log").write_text("Extracted: Queue-based retries with dead-letter queue\n")
    (log_dir / "brief.log").write_text("note: dead-letter queue\n")
    made = fsutil._temp_copy

    def a_writer_comes_in(path, data, mode):
        tmp = made(path, data, mode)
        if path.name in ("hooks.log", "brief.log"):  # (replaced without the lock)
            with fsutil.dir_lock(log_dir):  # what `zettelclaw write` does meanwhile
                pass
        return tmp

    monkeypatch.setattr(fsutil, "_temp_copy", a_writer_comes_in)
    result, report = purge(cli, "--match", "dead-letter")
    assert result.exit_code == 0, result.stderr
    assert grep_r("dead-letter", log_dir) == []
    assert {"hooks.log", "brief.log"} <= set(report["scrubbed"])


def test_a_page_it_cannot_replace_is_named_and_the_rest_is_done(cli, log_dir, tmp_path,
                                                                zc_env, monkeypatch):
    from zettelclaw import fsutil

    monkeypatch.setenv("ZETTELCLAW_NOW", "2026-02-21T09:00:00Z")  # the loops are fresh
    vault = tmp_path / "vault"
    set_config(zc_env, vault={"path": str(vault)})
    write_log(log_dir, DESIGN_LINES)
    build(cli, vault)
    memory = zc_env["workspace"] / "MEMORY.md"
    memory.write_text(f"# Mine\n{BEGIN}\n{END}\n")
    assert cli("brief", "--no-llm").exit_code == 0
    assert "backfill" in memory.read_text()
    (log_dir / "brief.log").write_text("note: the backfill script\n")
    swap = fsutil.compare_and_swap

    def stuck(path, data, expected, mode=None):
        if path.name.endswith(".md") and "Journal" in str(path):
            raise PermissionError(13, "Permission denied", str(path))
        return swap(path, data, expected, mode)

    monkeypatch.setattr(fsutil, "compare_and_swap", stuck)
    result, report = purge(cli, "--match", "backfill")
    assert result.exit_code == 1
    journal = str(vault / "main" / "03 Journal" / "2026-02-20.md")
    assert any(journal in where and "not scrubbed" in where for where in report["failed"])
    assert "backfill" not in memory.read_text()  # briefed again all the same
    assert grep_r("backfill", log_dir) == []
    assert grep_r("backfill", vault / "main" / "01 Notes") == []
    assert "purging" not in json.loads((log_dir / "state.json").read_text())


def test_the_purging_record_holds_no_purged_words(cli, log_dir, zc_env, monkeypatch):
    """What a purge still owes is in state.json while it runs: never in clear words."""
    from zettelclaw import purge as core

    write_log(log_dir, DESIGN_LINES)
    seen = []

    def look(agents, forms):
        seen.append((log_dir / "state.json").read_text())
        return [], []

    monkeypatch.setattr(core, "_rebrief", look)
    result, _ = purge(cli, "--match", "dead-letter")
    assert result.exit_code == 0, result.stderr
    assert '"purging"' in seen[0]
    assert "dead-letter" not in seen[0].lower() and "permanent failures" not in seen[0]


def test_a_log_directory_setting_changed_mid_purge_leaves_no_unfinished_purge_behind(
        cli, zc_env, tmp_path, monkeypatch):
    """The plugin's logDir is edited while a purge runs: the purge finishes in the home it
    started in, and that home says no purge is left unfinished."""
    import os

    from zettelclaw import purge as core

    monkeypatch.delenv("ZETTELCLAW_HOME")
    old, new = tmp_path / "memory-old", tmp_path / "memory-new"
    set_config(zc_env, logDir=str(old))
    write_log(old, DESIGN_LINES)
    rebrief = core._rebrief

    def config_edited_meanwhile(agents, forms):
        set_config(zc_env, logDir=str(new))
        config = zc_env["state"] / "openclaw.json"
        os.utime(config, (config.stat().st_atime, config.stat().st_mtime + 5))
        return rebrief(agents, forms)

    monkeypatch.setattr(core, "_rebrief", config_edited_meanwhile)
    result, report = purge(cli, "--match", "dead-letter")
    assert result.exit_code == 0, result.stderr
    assert report["failed"] == []
    assert "purging" not in json.loads((old / "state.json").read_text())
    monkeypatch.undo()
    doctor = cli("--home", str(old), "doctor", "--json")
    assert "purge" not in {c["name"] for c in json.loads(doctor.stdout)["checks"]}


# -- MEMORY.md as it was rendered ---------------------------------------------------------------


def test_a_memory_md_with_broken_markers_is_named_with_the_cut_item_exit_1(cli, log_dir,
                                                                         zc_env):
    long = ("Move the billing ledger to the Helsinki region before the audit, keeping the "
            "old cluster read-only for ninety days while finance reconciles every invoice "
            "issued since March")
    assert len(long) > 160
    write_log(log_dir, [make_entry("decision", long, "s1")])
    memory = zc_env["workspace"] / "MEMORY.md"
    memory.write_text(f"# Mine\n{BEGIN}\n{END}\n")
    assert cli("brief", "--no-llm").exit_code == 0
    assert long not in memory.read_text() and long[:100] in memory.read_text()  # cut short
    memory.write_text(memory.read_text() + f"\n{END}\n")  # a second END marker
    result, report = purge(cli, "--match", "Helsinki")
    assert result.exit_code == 1
    assert any("not briefed again" in where and "markers are broken" in where
               for where in report["left"])
    line = next(n for n, text in enumerate(memory.read_text().splitlines(), 1)
                if "Helsinki" in text)
    assert any(f"MEMORY.md:{line}:" in where for where in report["left"])
    assert json.loads(cli("stats", "--json").stdout)["unfinishedPurge"]
    memory.write_text(f"# Mine\n{BEGIN}\nold\n{END}\n")  # the person fixes the markers
    assert cli("purge", "--finish").exit_code == 0
    assert "Helsinki" not in memory.read_text()


# -- a broad purge ------------------------------------------------------------------------------


def test_a_broad_purge_lets_writers_wait_for_it(log_dir, zc_env, tmp_path):
    """`--match the` over thousands of entries, with thousands of vault page names in
    state.json: it held the lock for minutes (one pattern per text, compiled again for every
    string) and writes meanwhile failed "locked by another zettelclaw process"."""
    entries = [make_entry("fact", f"the note number {i} about the project", "s1",
                          detail=f"the detail of note {i}")
               for i in range(2500)]
    write_log(log_dir, entries)
    vault_pages = {f"subject-{i}": f"Page of subject {i}" for i in range(3000)}
    (log_dir / "state.json").write_text(json.dumps({"version": 1, "vault": {
        str(tmp_path / "vault" / "main"): {"mark": [0, None], "pages": vault_pages,
                                           "days": []}},
        "failedSessions": {f"s{i}": {"at": "2026-11-20T09:00:00Z", "error": f"error {i}",
                                     "retries": 0} for i in range(200)}}))
    purging = subprocess.Popen([str(EXE), "purge", "--match", "the", "--yes"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    writers = [subprocess.Popen([str(EXE), "write", "fact", f"Written meanwhile {n}"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
               for n in range(3)]
    out, err = purging.communicate(timeout=600)
    assert purging.returncode == 0, err
    for writer in writers:
        _, err = writer.communicate(timeout=600)
        assert writer.returncode == 0, err  # waited for the lock, did not fail
    lines = [orjson.loads(line) for line in (log_dir / "log.jsonl").read_bytes().splitlines()]
    assert sum(1 for line in lines if "purged" in line) == 2500
    assert sorted(line["content"] for line in lines if "content" in line) == [
        f"Written meanwhile {n}" for n in range(3)]
    assert run_zettelclaw("search", "project").returncode == 0

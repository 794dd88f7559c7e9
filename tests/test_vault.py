"""`zettelclaw vault build` (issue 16, design §7): the log as an Obsidian vault, append-only."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from tests.conftest import DESIGN_LINES, write_log

LINK = re.compile(r"\[\[([^\]|]+)(?:\|[^\]]*)?\]\]")


def set_config(zc_env, **plugin_config) -> None:
    path = zc_env["state"] / "openclaw.json"
    path.write_text(json.dumps({"plugins": {"entries": {"zettelclaw": {
        "config": plugin_config}}}}))


def set_subjects(log_dir: Path, subjects: dict) -> None:
    log_dir.mkdir(parents=True, exist_ok=True)
    (log_dir / "subjects.json").write_text(json.dumps(subjects))


def build(cli, vault: Path, *args: str):
    result = cli("vault", "build", "--vault", str(vault), *args)
    assert result.exit_code == 0, result.stderr
    return result


def pages(vault: Path) -> dict[str, str]:
    return {str(p.relative_to(vault)): p.read_text(encoding="utf-8")
            for p in sorted(vault.rglob("*.md"))}


def sections(text: str) -> dict[str, str]:
    """Each ``## `` section's text, up to the next heading or ``---`` line."""
    out, name = {}, None
    for line in text.splitlines():
        if line.startswith("## "):
            name = line[3:]
            out[name] = ""
        elif line.strip() == "---":
            name = None
        elif name is not None:
            out[name] += line + "\n"
    return {k: v.rstrip("\n") for k, v in out.items()}


def links_resolve(vault: Path) -> list[str]:
    """Every [[link]] of the vault's files that names no file of the vault."""
    broken = []
    for path in vault.rglob("*.md"):
        for target in LINK.findall(path.read_text(encoding="utf-8")):
            if not (vault / f"{target}.md").is_file():
                broken.append(f"{path.name}: {target}")
    return broken


@pytest.fixture
def vault(tmp_path) -> Path:
    return tmp_path / "vault"


def test_the_design_log_becomes_journals_and_topic_pages(cli, log_dir, vault, zc_env):
    write_log(log_dir, DESIGN_LINES)
    set_subjects(log_dir, {"auth-migration": {"display": "Auth Migration", "type": "project"}})

    result = build(cli, vault)

    main = vault / "main"
    assert sorted(pages(main)) == ["01 Notes/Auth Migration.md", "03 Journal/2026-02-20.md",
                                   "03 Journal/2026-02-26.md"]
    for folder in ("00 Inbox", "01 Notes", "02 Agent", "03 Journal", "04 Templates",
                   "05 Attachments"):
        assert (main / folder).is_dir()  # §7.4
    day = (main / "03 Journal" / "2026-02-20.md").read_text()
    assert day.startswith("---\ntype: journal\ntags: [journals]\ncreated: 2026-02-20\n---\n")
    parts = sections(day)
    assert parts["Todo"] == ("- [ ] Write backfill script for 47 failed webhook jobs from last "
                             "week ([[01 Notes/Auth Migration|Auth Migration]])")
    assert "Is the current retry strategy sufficient" in parts["Questions"]
    assert parts["Sessions"].startswith("- abc12345 — ")
    assert "Auth migration — retry logic implementation" in parts["Sessions"]
    # replaced entries are not rendered; their corrections say what they replace
    assert "Queue-based retries for webhook delivery" not in parts["Log"]
    later = sections((main / "03 Journal" / "2026-02-26.md").read_text())["Log"]
    assert ("- Queue-based retries with dead-letter queue for permanent failures — Discovered "
            "some failures are non-retryable, need a DLQ ([[01 Notes/Auth Migration|Auth "
            "Migration]]) — replaces “Queue-based retries for webhook delivery” "
            "([[03 Journal/2026-02-20|2026-02-20]])") in later
    # a correction without a subject keeps the one of the entry it replaces
    assert "Exponential backoff intervals: 2s, 10s, 30s" in later
    topic = (main / "01 Notes" / "Auth Migration.md").read_text()
    assert "tags: [projects]" in topic and "created: 2026-02-20\nupdated: 2026-02-26" in topic
    topic_parts = sections(topic)
    assert "Write backfill script" in topic_parts["Pending"]
    assert "2026-02-26: Exponential backoff intervals: 2s, 10s, 30s" in topic_parts["Log"]
    assert links_resolve(main) == []
    assert "3 new files" in result.stderr


def test_journal_days_are_the_conversations_days_in_the_briefings_zone(cli, log_dir, vault,
                                                                       zc_env):
    set_config(zc_env, cron={"timezone": "America/Detroit"})
    write_log(log_dir, [
        {"id": "late0000000a", "timestamp": "2026-03-02T03:30:00Z", "type": "fact",
         "content": "Said late in the evening of March 1st, Detroit time", "session": "s1"},
        {"id": "handoff0000a", "timestamp": "2026-03-02T03:45:00Z", "type": "handoff",
         "content": "Evening session", "session": "sess5678abcd"},
    ])

    build(cli, vault)

    journals = sorted(p.name for p in (vault / "main" / "03 Journal").iterdir())
    assert journals == ["2026-03-01.md"]  # not the UTC day, not the day of the build
    text = (vault / "main" / "03 Journal" / "2026-03-01.md").read_text()
    assert "- sess5678 — 22:45\n  Evening session" in text  # EST: UTC-5


def test_a_second_build_only_appends_and_a_third_changes_nothing(cli, log_dir, vault, zc_env):
    write_log(log_dir, DESIGN_LINES[:5])
    build(cli, vault)
    before = pages(vault / "main")

    write_log(log_dir, [
        *DESIGN_LINES[5:],
        {"id": "newTask00001", "timestamp": "2026-02-20T18:00:00Z", "type": "task",
         "content": "Canary deploy plus 24h monitoring", "status": "open",
         "subject": "auth-migration", "session": "ghi13579"},
        {"id": "newQuest0001", "timestamp": "2026-02-20T18:05:00Z", "type": "question",
         "content": "Who signs off the canary?", "subject": "auth-migration",
         "session": "ghi13579"},
    ])
    result = build(cli, vault)
    after = pages(vault / "main")

    assert set(before) < set(after)  # 2026-02-26 is new
    for name, old in before.items():
        old_parts, new_parts = sections(old), sections(after[name])
        assert old_parts.keys() == new_parts.keys()
        for heading, text in old_parts.items():
            assert new_parts[heading].startswith(text), (name, heading)
        # only lines were added: every old line is still there
        assert set(old.splitlines()) - {"updated: 2026-02-20"} <= set(after[name].splitlines())
    day = sections(after["03 Journal/2026-02-20.md"])
    assert day["Todo"].endswith("- [ ] Canary deploy plus 24h monitoring "
                                "([[01 Notes/Auth Migration|Auth Migration]])")
    assert day["Questions"].endswith("Who signs off the canary? "
                                     "([[01 Notes/Auth Migration|Auth Migration]])")
    # the replaced decision was rendered by the first build: it stays, the correction follows
    assert "Queue-based retries for webhook delivery" in day["Log"]
    assert "appended to" in result.stderr

    again = build(cli, vault)
    assert pages(vault / "main") == after
    assert "up to date" in again.stderr
    assert links_resolve(vault / "main") == []


def test_a_build_after_new_entries_writes_what_one_build_of_the_whole_log_writes(
        cli, log_dir, tmp_path, zc_env):
    # the second build parses only the lines after the first one's place in the log; what the
    # new lines need of the old ones (the subject and words of what a correction replaces)
    # is looked up, so the pages are those of a single build of everything
    set_subjects(log_dir, {"auth-migration": {"display": "Auth Migration", "type": "project"}})
    other = {"id": "otherAgent01", "timestamp": "2026-02-21T09:00:00Z", "type": "fact",
             "content": "The ops agent keeps its own notes", "subject": "ops", "agent": "ops",
             "session": "ops1"}
    write_log(log_dir, [*DESIGN_LINES[:5], other])
    build(cli, tmp_path / "twice")
    write_log(log_dir, [*DESIGN_LINES[5:], {
        "id": "opsLater0001", "timestamp": "2026-02-27T09:00:00Z", "type": "fact",
        "content": "The ops agent moved its notes", "replaces": "otherAgent01",
        "agent": "ops", "session": "ops2"}])

    second = build(cli, tmp_path / "twice")
    build(cli, tmp_path / "once")

    # every line a single build of everything writes, the build after new lines wrote too
    # (the first build's lines for what was replaced since stay: append-only)
    twice, once = pages(tmp_path / "twice"), pages(tmp_path / "once")
    assert set(twice) >= set(once)
    for name, text in once.items():
        missing = set(text.splitlines()) - set(twice[name].splitlines())
        assert {line for line in missing if not line.startswith("created: ")} == set(), name
    topic = sections(twice["main/01 Notes/Auth Migration.md"])["Log"]
    assert ("- 2026-02-26: Exponential backoff intervals: 2s, 10s, 30s ([[03 Journal/2026-02-26|"
            "2026-02-26]]) — replaces “Exponential backoff intervals: 1s, 5s, 15s” ([[03 Journal/"
            "2026-02-20|2026-02-20]])") in topic  # no subject of its own: the replaced one's
    assert "— replaces “The ops agent keeps its own notes”" in twice["ops/01 Notes/Ops.md"]
    assert "vault of agent main" in second.stderr and "vault of agent ops" in second.stderr


def test_a_log_rewritten_since_the_last_build_is_read_again_whole(cli, zc, log_dir, vault,
                                                                  zc_env):
    write_log(log_dir, DESIGN_LINES[:5])
    build(cli, vault)
    assert zc("subjects", "rename", "--yes", "auth-migration", "auth-move").returncode == 0
    write_log(log_dir, DESIGN_LINES[5:])

    build(cli, vault)

    day = sections(pages(vault / "main")["03 Journal/2026-02-26.md"])
    assert "Queue-based retries with dead-letter queue for permanent failures" in day["Log"]
    assert pages(vault / "main")["03 Journal/2026-02-20.md"].count(
        "Queue-based retries for webhook delivery") == 1  # nothing rendered twice


def test_a_hand_edit_survives_and_a_deleted_page_does_not_come_back_with_old_lines(
        cli, log_dir, vault, zc_env):
    write_log(log_dir, DESIGN_LINES[:5])
    build(cli, vault)
    journal = vault / "main" / "03 Journal" / "2026-02-20.md"
    edited = journal.read_text().replace("Exponential backoff intervals: 1s, 5s, 15s",
                                         "Backoff is 1s/5s/15s (checked by me)")
    edited = edited.replace("## Questions\n", "## Questions\n- my own question?\n")
    journal.write_text(edited)
    topic = vault / "main" / "01 Notes" / "Auth Migration.md"
    topic.unlink()

    write_log(log_dir, [{"id": "newFact00001", "timestamp": "2026-02-20T19:00:00Z",
                         "type": "fact", "content": "Staging runs the new retries",
                         "subject": "auth-migration", "session": "ghi13579"}])
    result = build(cli, vault)

    text = journal.read_text()
    assert text.startswith(edited.split("\n## Todo")[0])  # the edited Log, then the new line
    assert "Backoff is 1s/5s/15s (checked by me)" in text
    assert "Exponential backoff intervals: 1s, 5s, 15s" not in text
    assert "- my own question?\n" in text
    assert "Staging runs the new retries" in sections(text)["Log"]
    back = topic.read_text()
    assert "Staging runs the new retries" in back
    assert "Write backfill script" not in back  # the old lines are not made again
    assert "was deleted since the last build" in result.stderr
    assert links_resolve(vault / "main") == []


def test_a_build_cut_short_before_it_recorded_its_work_adds_nothing_twice(
        cli, log_dir, vault, zc_env):
    write_log(log_dir, DESIGN_LINES)
    build(cli, vault)
    before = pages(vault / "main")
    state = json.loads((log_dir / "state.json").read_text())
    del state["vault"]  # the files were written, the record was not
    (log_dir / "state.json").write_text(json.dumps(state))

    build(cli, vault)

    assert pages(vault / "main") == before


HOSTILE = {
    "slash": "Front/Back end",
    "colon": "Front:Back end",   # the same name as "slash" once cleaned: a file of its own
    "hash": "#general | chat",
    "brackets": "[[Evil]] ^block",
    "dots": "..hidden",
    "escape": "../../../outside",
    "device": "CON",
    "empty": "///",
}


def test_hostile_names_make_valid_distinct_files_inside_the_vault(cli, log_dir, vault, zc_env,
                                                                  tmp_path):
    set_subjects(log_dir, {slug: {"display": display, "type": "project"}
                           for slug, display in HOSTILE.items()})
    write_log(log_dir, [
        {"id": f"hostile{i:05d}", "timestamp": "2026-02-20T10:00:00Z", "type": "fact",
         "content": f"About {slug}: [[Not A Page]] ``` %% <!-- -- ---", "subject": slug,
         "session": "s1"}
        for i, slug in enumerate(HOSTILE)])
    outside = sorted(str(p) for p in tmp_path.rglob("*") if not str(p).startswith(str(vault)))

    build(cli, vault)

    notes = sorted(p.name for p in (vault / "main" / "01 Notes").iterdir())
    assert len(notes) == len(HOSTILE)  # one page each, even where names collide
    assert len({n.casefold() for n in notes}) == len(notes)
    for name in notes:
        stem = name[:-3]
        assert name.endswith(".md") and stem
        assert not re.search(r'[\\/:*?"<>|#^\[\]\x00-\x1f]', stem), name
        assert not stem.startswith(".") and not stem.endswith((".", " "))
        assert stem.split(".")[0].upper() not in {"CON", "PRN", "AUX", "NUL"}
    assert "Front-Back end.md" in notes and "Front-Back end (2).md" in notes
    assert links_resolve(vault / "main") == []  # no [[link]] can be forged by content
    now = sorted(str(p) for p in tmp_path.rglob("*") if not str(p).startswith(str(vault)))
    assert [p for p in now if p not in outside and "/zettelclaw" not in p] == []


def test_a_display_name_with_a_comment_opener_hides_nothing_in_the_journal(cli, log_dir, vault):
    """Obsidian hides what follows ``%%`` or ``<!--``: in a link's alias too."""
    set_subjects(log_dir, {"notes": {"display": "Notes %% draft", "type": "project"},
                           "html": {"display": "HTML <!-- intro", "type": "project"}})
    write_log(log_dir, [
        {"id": f"comment{i:05d}", "timestamp": "2026-02-20T10:00:00Z", "type": "fact",
         "content": f"Fact {i} stays visible", "subject": slug, "session": "s1"}
        for i, slug in enumerate(["notes", "html"])])

    build(cli, vault)

    [journal] = (vault / "main").rglob("2026-02-20.md")
    text = journal.read_text()
    assert "%%" not in text and "<!--" not in text, text
    assert "Fact 0 stays visible" in text and "Fact 1 stays visible" in text
    assert "|Notes % % draft]]" in text and "|HTML <! -- intro]]" in text


def test_an_agent_id_cannot_name_a_folder_outside_the_vault(cli, log_dir, vault):
    write_log(log_dir, DESIGN_LINES[:1])
    result = cli("vault", "build", "--vault", str(vault), "--agent", "../x")
    assert result.exit_code == 2
    assert result.stderr.startswith("Error: ")
    assert not (vault.parent / "x").exists()


def test_each_agent_has_its_own_vault(cli, log_dir, vault, zc_env):
    write_log(log_dir, [
        {"id": "mainFact0001", "timestamp": "2026-02-20T10:00:00Z", "type": "fact",
         "content": "Main agent secret plan", "subject": "plan", "session": "s1"},
        {"id": "workFact0001", "timestamp": "2026-02-20T11:00:00Z", "type": "fact",
         "content": "Work agent roadmap", "subject": "plan", "session": "s2", "agent": "work"},
        # a hand-written line of the work agent claiming to replace main's entry
        {"id": "workFix00001", "timestamp": "2026-02-21T11:00:00Z", "type": "fact",
         "content": "Work correction", "replaces": "mainFact0001", "session": "s2",
         "agent": "work"},
    ])

    build(cli, vault)

    main, work = pages(vault / "main"), pages(vault / "work")
    assert "Main agent secret plan" in "".join(main.values())
    assert "Work agent" not in "".join(main.values())
    assert "Main agent secret plan" not in "".join(work.values())
    assert "Work correction" in "".join(work.values())

    build(cli, vault, "--agent", "main")  # one agent only: the other's vault is left alone


def test_state_remembers_little(cli, log_dir, vault, zc_env):
    write_log(log_dir, DESIGN_LINES)
    build(cli, vault)
    state = json.loads((log_dir / "state.json").read_text())
    record = state["vault"][str(vault / "main")]
    assert sorted(record) == ["agent", "days", "mark", "pages"]
    size = (log_dir / "log.jsonl").stat().st_size  # lines seen, the last id, where it ends
    assert record["mark"] == [len(DESIGN_LINES), DESIGN_LINES[-1]["id"], size]
    assert record["pages"] == {"auth-migration": "Auth Migration"}


def test_dry_run_writes_nothing(cli, log_dir, vault, zc_env):
    write_log(log_dir, DESIGN_LINES)
    result = build(cli, vault, "--dry-run", "--json")
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert {Path(r["file"]).name for r in rows} == {"Auth Migration.md", "2026-02-20.md",
                                                    "2026-02-26.md"}
    assert not vault.exists()
    state = log_dir / "state.json"
    assert not state.exists() or "vault" not in json.loads(state.read_text())


def test_no_vault_configured_is_a_usage_error(cli, log_dir):
    write_log(log_dir, DESIGN_LINES)
    result = cli("vault", "build")
    assert result.exit_code == 2
    assert "init --vault" in result.stderr


def test_brief_builds_the_configured_vault(cli, log_dir, tmp_path, zc_env):
    set_config(zc_env, vault={"path": str(tmp_path / "brain")})
    write_log(log_dir, DESIGN_LINES)
    (zc_env["workspace"] / "MEMORY.md").write_text(
        "<!-- BEGIN GENERATED BRIEFING -->\n<!-- END GENERATED BRIEFING -->\n")

    result = cli("brief", "--no-llm", "--now", "2026-02-27")

    assert result.exit_code == 0, result.stderr
    assert (tmp_path / "brain" / "main" / "03 Journal" / "2026-02-20.md").is_file()
    assert "vault of agent main" in result.stderr

    skipped = cli("brief", "--no-llm", "--now", "2026-02-27", "--no-vault")
    assert "vault" not in skipped.stderr.lower()
    assert os.path.isdir(tmp_path / "brain" / "main")


# -- forget and purge (issue 15): what a person let go of is not in the vault ------------------


def test_a_forgotten_entry_is_not_rendered_and_a_purged_one_leaves_the_pages(
        cli, zc, log_dir, vault, zc_env):
    write_log(log_dir, DESIGN_LINES)
    set_config(zc_env, vault={"path": str(vault)})  # purge scrubs the configured vault
    assert zc("forget", "Ht4vL_9qRx2D", "--yes").returncode == 0  # the open task
    build(cli, vault)
    text = "\n".join(pages(vault / "main").values())
    assert "Exponential backoff intervals: 2s, 10s, 30s" in text  # a current fact: rendered
    assert "Write backfill script" not in text  # the forgotten task: not

    # a purge takes the words out of the pages the build wrote (it never rewrites a line)
    purged = zc("purge", "--match", "exponential backoff", "--yes")
    assert purged.returncode == 0, purged.stderr
    after = pages(vault / "main")
    assert after.keys() == pages(vault / "main").keys()
    for name, page in after.items():
        assert "exponential backoff" not in page.lower(), name
        assert "2s, 10s, 30s" not in page, name  # the entry's own words, not just the match
        assert "1s, 5s, 15s" not in page, name  # the version it corrected, quoted by it
    assert links_resolve(vault / "main") == []

"""A new user's first hour (issue 32 §15-28): what a person trying the README on a clean clone
sees, command by command."""

from __future__ import annotations

import orjson

from tests.conftest import DESIGN_LINES, write_log
from tests.test_init import openclaw, shipped  # noqa: F401  (fixtures: a stand-in openclaw)


def test_an_id_that_is_not_there_gets_one_answer_from_get_and_forget(cli, log_dir):
    write_log(log_dir, DESIGN_LINES)

    got = cli("get", "BADID123")
    forgot = cli("forget", "BADID123", "--yes")

    assert (got.exit_code, forgot.exit_code) == (1, 1)
    assert got.stderr == forgot.stderr == (
        "Error: no entry with id BADID123 (ids are 12 characters; this is 8)\n")
    assert "refused" in cli("get", "notes.txt").stderr  # a file name is still a file name


def test_forget_takes_the_8_character_session_the_vault_shows_and_names_an_ambiguous_one(
        cli, log_dir):
    shown = "6f1c2a9e-3b4d-4e5f-8a6b-7c8d9e0f1a2b"
    write_log(log_dir, [
        {"id": "ShownFact001", "timestamp": "2026-03-01T10:00:00Z", "type": "fact",
         "content": "The staging database runs Postgres 16", "session": shown},
        {"id": "OtherFact001", "timestamp": "2026-03-02T10:00:00Z", "type": "fact",
         "content": "The NAS is backed up nightly", "session": "6f1c9999-aaaa-bbbb"},
    ])

    forgot = cli("forget", "--session", "6f1c2a9e", "--yes")
    ambiguous = cli("forget", "--session", "6f1c", "--yes")

    assert forgot.exit_code == 0, forgot.stderr
    assert [orjson.loads(line)["id"] for line in forgot.stdout.splitlines()] == ["ShownFact001"]
    assert [e["id"] for e in cli.lines("log", "--json")] == ["OtherFact001"]
    assert ambiguous.exit_code == 2
    assert ambiguous.stderr == (f"Error: --session 6f1c is the start of 2 sessions: {shown}, "
                                "6f1c9999-aaaa-bbbb; give more of it\n")


def _ago(days: int) -> str:
    from datetime import datetime, timedelta, timezone

    return (datetime.now(timezone.utc) - timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%SZ")


def _loops(log_dir, *ages: int):
    """Open tasks last touched ``ages`` days ago, one per subject."""
    return write_log(log_dir, [
        {"id": f"openTask{n:04d}", "timestamp": _ago(age), "type": "task", "status": "open",
         "content": f"Task number {n}", "subject": f"project-{n}", "session": "s1"}
        for n, age in enumerate(ages)])


def test_a_quiet_walk_with_nothing_quiet_says_so_and_how_many_loops_are_open(
        cli, log_dir, monkeypatch):
    from zettelclaw.commands import subjects

    monkeypatch.setattr(subjects, "_on_terminal", lambda: True)
    _loops(log_dir, 3, 5)

    walked = cli("review", "--quiet", "walk")

    assert walked.exit_code == 0, walked.stderr
    assert walked.stderr == ("Nothing is quiet: all 2 open loops were touched in the last 30 "
                             "days (briefing.quietAfter); `zettelclaw review walk` walks "
                             "them.\n")


def test_a_walk_that_closes_and_drops_rewrites_the_briefing_once_and_says_it_once(
        cli, log_dir, zc_env, monkeypatch):
    from zettelclaw.commands import subjects
    from zettelclaw.markers import BEGIN_MARKER, END_MARKER

    monkeypatch.setattr(subjects, "_on_terminal", lambda: True)
    _loops(log_dir, 3, 5, 7)
    memory = zc_env["workspace"] / "MEMORY.md"
    memory.write_text(f"# Notes\n\n{BEGIN_MARKER}\n{END_MARKER}\n", encoding="utf-8")

    walked = cli("review", "walk", input="c\nd\nk\n")

    assert walked.exit_code == 0, walked.stderr
    assert walked.stderr.count(f"note: rewrote the briefing in {memory}") == 1
    assert "Closed 1, dropped 1, left 1 open" in walked.stderr
    briefing = memory.read_text(encoding="utf-8")
    assert "Task number 0" in briefing and "Task number 1" not in briefing


def test_the_command_list_of_zettelclaw_help_gives_review_whole_sentences(zc):
    wide = zc("--help", env={"COLUMNS": "200"}).stdout.decode()
    review = next(line for line in wide.splitlines() if "│ review" in line)

    assert ("The open tasks and questions, oldest first, with when each was last touched; a "
            "quiet one (untouched for more than briefing.quietAfter days) is marked.") in review


def test_search_limit_without_a_query_lists_the_newest_entries_in_date_order(cli, log_dir):
    # a sweep that extracted a late conversation appends its older-dated entries at the end
    write_log(log_dir, [
        {"id": f"dated{day:02d}Entry", "timestamp": f"2026-03-{day:02d}T10:00:00Z",
         "type": "fact", "content": f"Fact of March {day}", "session": f"s{day}"}
        for day in (10, 12, 14, 11, 13)])

    newest = cli.lines("search", "--limit", "3", "--json")

    assert [e["content"] for e in newest] == ["Fact of March 12", "Fact of March 13",
                                              "Fact of March 14"]


def test_stats_counts_every_extracted_conversation_after_old_records_are_pruned(
        cli, fake_anthropic, home, log_dir, monkeypatch):
    import json
    from datetime import datetime, timezone

    start = datetime(2026, 11, 20, 9, 0, tzinfo=timezone.utc)
    sessions = [f"{n}b1d7c2e-8f3a-4e6b-9d0c-1a2b3c4d5e6f" for n in range(3)]
    for n, sid in enumerate(sessions):
        home.jsonl_session("main", sid, [("user", f"Remember that server {n} runs Debian"),
                                         ("assistant", "Noted.")],
                           key=f"agent:main:s{n}", start=start)
        fake_anthropic.entries({"type": "fact", "content": f"Server {n} runs Debian"})
        assert cli("extract", "--session-id", sid).exit_code == 0
    # a year on, state.json keeps the records of the last month only (State.prune)
    state_path = log_dir / "state.json"
    state = json.loads(state_path.read_text())
    for sid in sessions[:2]:
        del state["extractedSessions"][sid]
    state_path.write_text(json.dumps(state))

    assert cli.lines("stats", "--json")[0]["sessions"]["extracted"] == 3
    monkeypatch.setattr("zettelclaw.render.want_json", lambda as_json: bool(as_json))
    shown = cli("stats")  # as on a terminal

    assert shown.exit_code == 0, shown.stderr
    assert "Conversations: 3 extracted" in shown.stdout


def test_stats_after_a_fresh_install_says_no_conversation_waits_for_import(
        cli, openclaw, zc_env, monkeypatch):  # noqa: F811
    installed = cli("init")
    assert installed.exit_code == 0, installed.stderr
    assert "History: no conversation from before the install." in installed.stdout
    monkeypatch.setattr("zettelclaw.render.want_json", lambda as_json: bool(as_json))

    shown = cli("stats")  # what `openclaw memory status` prints too

    assert shown.exit_code == 0, shown.stderr
    said = " ".join(shown.stdout.split())  # as read, whatever the terminal's width
    assert "wait for `zettelclaw import`" not in said
    assert "History: none; init (" in said
    assert "found no conversation from before the install" in said


def test_brief_dry_run_without_the_workspace_says_what_the_run_would_do(
        cli, log_dir, zc_env, monkeypatch):
    write_log(log_dir, DESIGN_LINES)
    missing = zc_env["home"] / "elsewhere" / "workspace"
    monkeypatch.setenv("OPENCLAW_WORKSPACE_DIR", str(missing))

    dry = cli("brief", "--dry-run", "--no-llm")
    real = cli("brief", "--no-llm", "--no-vault")

    assert (dry.exit_code, real.exit_code) == (0, 0)
    assert dry.stdout == ""  # no diff creating a MEMORY.md the run never writes
    assert dry.stderr.startswith(f"note: would not be briefed: the workspace {missing} does "
                                 "not exist yet")
    assert real.stderr.startswith(f"note: not briefed: the workspace {missing} does not exist")
    assert not missing.exists()


def test_the_readme_says_how_to_run_the_every_day_commands_after_make_demo():
    from tests.conftest import REPO

    readme = (REPO / "README.md").read_text()
    every_day = " ".join(readme.split("## Every day", 1)[1].split("```", 1)[0].split())

    assert "`pipx install .`" in every_day and "`source .venv/bin/activate`" in every_day
    assert "the `export ...` line `make demo` prints" in every_day


def test_search_and_log_in_an_empty_home_say_where_they_looked(cli, log_dir, monkeypatch):
    monkeypatch.setattr("zettelclaw.render.want_json", lambda as_json: bool(as_json))

    for shown in (cli("search", "webhook", "retries"), cli("log", "-n", "20")):
        assert shown.exit_code == 0, shown.stderr
        said = " ".join(shown.stderr.split())
        assert f"The log {log_dir / 'log.jsonl'} holds nothing yet: `zettelclaw paths` shows " \
               "where zettelclaw looks" in said, said


def test_undo_after_an_init_without_a_gateway_asks_nothing_and_leaves_no_empty_objects(
        cli, openclaw, zc_env):  # noqa: F811
    import json

    config = zc_env["state"] / "openclaw.json"
    config.write_text('{"gateway": {"port": 18789}}\n')
    installed = cli("init")  # no gateway running: the nightly job is left to you
    assert installed.exit_code == 0, installed.stderr
    assert "No gateway is running to register it with" in installed.stdout

    undone = cli("init", "--undo")

    assert undone.exit_code == 0, undone.stderr
    assert "needs you" not in undone.stdout and "todo" not in undone.stdout
    assert "No cron job to remove: init registered none" in undone.stdout
    assert json.loads(config.read_text()) == {"gateway": {"port": 18789},
                                              "plugins": {"slots": {"memory": "memory-core"}}}


def test_init_dry_run_says_what_openclaws_own_cli_created_in_the_home(
        cli, openclaw, zc_env, monkeypatch):  # noqa: F811
    monkeypatch.setenv("FAKE_OPENCLAW_STATE_FILES", "1")  # as the real 2026.9 CLI does
    state = zc_env["state"]

    dry = cli("init", "--dry-run")

    assert dry.exit_code == 0, dry.stderr
    said = " ".join(dry.stdout.split())
    assert (f"init changed nothing; OpenClaw's own CLI, run to read its config, plugins and "
            f"cron jobs, created state/openclaw.sqlite, tmp/ in {state}") in said
    assert openclaw.writes() == []
    again = cli("init", "--dry-run")  # they are there now: nothing more to say
    assert "OpenClaw's own CLI" not in again.stdout


def _two_agents(zc_env):
    import json

    (zc_env["state"] / "openclaw.json").write_text(json.dumps(
        {"agents": {"list": [{"id": "main", "default": True}, {"id": "work"}]}}))


def test_a_mistyped_agent_is_refused_with_the_known_ones_and_nothing_is_written(
        cli, log_dir, zc_env):
    from zettelclaw.markers import BEGIN_MARKER, END_MARKER

    _two_agents(zc_env)
    write_log(log_dir, DESIGN_LINES)
    memory = zc_env["workspace"] / "MEMORY.md"
    memory.write_text(f"{BEGIN_MARKER}\n## Active\n- auth-migration\n{END_MARKER}\n")
    before = (log_dir / "log.jsonl").read_bytes(), memory.read_bytes()
    refused = f"Error: OpenClaw has no agent 'mian' (in {zc_env['state']}); its agents: main, " \
              "work\n"

    for command in (("write", "fact", "Staging runs Postgres 16", "--agent", "mian"),
                    ("brief", "--no-llm", "--agent", "mian"),
                    ("search", "webhook", "--agent", "mian"), ("log", "--agent", "mian"),
                    ("get", "a3k9x_BmQ2yT", "--agent", "mian"),
                    ("handoff", "--agent", "mian"), ("stats", "--agent", "mian"),
                    ("review", "--agent", "mian"), ("export", "--agent", "mian"),
                    ("forget", "a3k9x_BmQ2yT", "--yes", "--agent", "mian")):
        result = cli(*command)
        assert (result.exit_code, result.stderr) == (2, refused), command

    assert ((log_dir / "log.jsonl").read_bytes(), memory.read_bytes()) == before


def test_main_and_an_agent_with_entries_are_known_on_a_fresh_install(cli, log_dir, zc_env):
    # no openclaw.json, no agents/ folder yet: main is OpenClaw's agent
    assert cli("write", "fact", "Staging runs Postgres 16", "--agent", "main").exit_code == 0
    assert cli("log", "--agent", "main", "--json").exit_code == 0
    # an agent since removed from OpenClaw keeps its memory, readable by name
    write_log(log_dir, [{"id": "oldAgentFac1", "timestamp": "2026-03-01T10:00:00Z",
                         "type": "fact", "content": "The old NAS is retired", "agent": "old"}])
    assert [e["id"] for e in cli.lines("log", "--agent", "old", "--json")] == ["oldAgentFac1"]
    unknown = cli("log", "--agent", "mian")
    assert unknown.exit_code == 2
    assert unknown.stderr.endswith("its agents: main, old\n")


# -- issue 41: the first hour, round 5 -------------------------------------------------------

def test_handoff_doctor_and_sweep_piped_into_jq_are_json_and_text_with_text(
        zc, design_log, zc_env):
    handoff, doctor = zc("handoff"), zc("doctor")
    sweep = zc("sweep")

    [block] = [orjson.loads(line) for line in handoff.stdout.splitlines()]
    assert block["handoff"]["id"] == "Ym8kP_3wNx5Q"
    assert [t["id"] for t in block["openTasks"]] == ["Ht4vL_9qRx2D"]
    report = orjson.loads(doctor.stdout)
    assert report["ok"] is False and {c["name"] for c in report["checks"]} >= {"log directory"}
    assert set(orjson.loads(sweep.stdout)) >= {"extracted", "failed"}, sweep.stdout
    # --text: the plugin's form (the block before each prompt, the line in hooks.log)
    assert zc("handoff", "--text").stdout.decode().startswith("## Last Session Handoff\n")
    assert not zc("sweep", "--text").stdout.startswith(b"{")
    assert zc("doctor", "--text").stdout.decode().splitlines()[-1].startswith("This OpenClaw")


def test_search_with_no_word_to_search_for_finds_nothing_and_says_why(cli, design_log):
    said = {}
    for query in ("", "   ", "the", "of the"):
        result = cli("search", "--json", query)
        assert result.exit_code == 0, result.stderr
        assert result.stdout == "", query  # not every entry, whatever the spelling
        said[query] = result.stderr.strip()
    assert said[""] == said["   "] == (
        "No matching entries: the query is empty. Ask with the words that matter; without a "
        "query, `zettelclaw search` lists the latest entries.")
    assert said["the"].startswith(
        'No matching entries: 1 word ("the") is too common or too short to search for.')
    assert said["of the"].startswith('No matching entries: 2 words ("of", "the") are too')
    assert len(cli.lines("search", "--json")) == 5  # no query at all: the current entries


def test_search_piped_with_no_word_says_why_through_the_fast_path_too(zc, design_log):
    for query in ("", "the"):
        result = zc("search", query)
        assert (result.returncode, result.stdout) == (0, b"")
        assert result.stderr.startswith(b"No matching entries: "), result.stderr


BAD_VALUES = [
    (("search", "--type", "facts", "x"),
     "Error: Invalid value for '--type' / '-t': 'facts' is not one of task, fact, decision, "
     "question, handoff.", "search"),
    (("search", "-n", "0", "webhook"),
     "Error: Invalid value for '--limit' / '-n': 0 is not at least 1.", "search"),
    (("log", "-n", "0"), "Error: Invalid value for '-n' / '--count': 0 is not at least 1.",
     "log"),
    (("search", "--status", "closed"),
     "Error: Invalid value for '--status': 'closed' is not one of open, done.", "search"),
]


def test_a_bad_value_is_one_error_line_and_one_try_line_whoever_checks_it(zc, design_log):
    for args, error, command in BAD_VALUES:
        result = zc(*args)
        assert result.returncode == 2
        assert result.stderr.decode().splitlines() == [
            error, f"Try 'zettelclaw {command} --help'."], args


def test_paths_lists_every_workspace_brief_writes(zc, log_dir, zc_env):
    (zc_env["state"] / "agents" / "work" / "sessions").mkdir(parents=True)
    write_log(log_dir, [{"id": "opsFact00001", "timestamp": "2026-03-01T10:00:00Z",
                         "type": "fact", "content": "The ops runbook lives in git",
                         "session": "s9", "agent": "ops"}])
    listed = orjson.loads(zc("paths").stdout)
    assert listed["workspace[work]"] == str(zc_env["state"] / "workspace-work")
    assert listed["workspace[ops]"] == str(zc_env["state"] / "workspace-ops")
    assert "workspace[main]" not in listed  # the default agent's is `workspace`


def test_doctor_on_a_home_init_never_wired_says_so_in_one_line(cli, design_log, zc_env):
    for name in ("subjects.json", "state.json"):  # the log directory as the demo leaves it
        (design_log.parent / name).write_text("{}")
        (design_log.parent / name).chmod(0o600)
    (zc_env["state"] / "openclaw.json").write_text(
        '{"plugins": {"entries": {"zettelclaw": {"enabled": true}}}}')

    result = cli("doctor", "--text")

    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[-1].startswith("This OpenClaw home is not wired into zettelclaw: `zettelclaw "
                                "init` wires it; "), lines[-1]
    assert "other problem" not in lines[-1]  # the model key waits for the wiring: a warning
    [wired] = [line for line in lines if line.startswith("fail ")]
    assert wired.startswith(f"fail  wired into OpenClaw: no: the OpenClaw home "
                            f"{zc_env['state']} has no zettelclaw plugin, memory slot or skill")
    assert "`zettelclaw init` wires it (`zettelclaw init --dry-run` lists every change " \
           "first)" in result.stdout
    for piece in ("plugins.slots.memory", "skill:", "memoryFlush", "briefing job"):
        assert piece not in result.stdout  # not a failure per piece


def test_the_brief_summary_counts_one_standing_preference_or_fact(cli, log_dir, monkeypatch):
    monkeypatch.setenv("ZETTELCLAW_NOW", "2026-03-03T10:00:00Z")
    write_log(log_dir, [
        {"id": "prefFact0001", "timestamp": "2026-01-05T10:00:00Z", "type": "fact",
         "content": "I prefer tea to coffee", "session": "s1"},  # before the decision window
        {"id": "taskOpen0001", "timestamp": "2026-03-02T10:00:00Z", "type": "task",
         "status": "open", "content": "Renew the TLS cert", "subject": "homelab",
         "session": "s2"}])
    result = cli("brief", "--no-llm", "--no-vault")
    assert result.exit_code == 0, result.stderr
    assert result.stderr.rstrip().endswith(
        "(1 active subject, 1 open task, 1 standing preference or fact)."), result.stderr
    assert "preferences and fact" not in result.stderr


def test_the_not_shown_line_counts_nouns_right():
    from zettelclaw.briefing.layout import render

    standing = [f"fact {n}" for n in range(12)]
    rendered = render({"standing": standing, "pending": ["one task", "two tasks"]}, 4, {})
    assert "1 open task" in rendered.block and "open tasks" not in rendered.block, \
        rendered.block
    assert "standing preferences and facts" in rendered.block


def test_a_mistyped_command_gets_the_one_close_suggestion(zc):
    result = zc("serach", "webhook")
    assert result.returncode == 2
    assert result.stderr.decode().splitlines() == [
        "Error: No such command 'serach'. Did you mean 'search'?", "Try 'zettelclaw --help'."]


def test_several_suggestions_only_when_they_are_as_close():
    from zettelclaw.cli import closest

    names = ["search", "extract", "export", "review", "recall", "stats", "sweep"]
    assert closest("serach", names) == ["search"]
    assert closest("exprt", names) == ["export"]
    assert closest("re", names) == []
    assert closest("sweap", ["sweep", "swept"]) == ["sweep", "swept"]


def test_the_docs_say_the_first_start_upgrade_warning_is_openclaws_and_passes():
    from tests.conftest import REPO

    text = " ".join((REPO / "docs" / "openclaw.md").read_text().split())
    assert ("settings cannot be checked until its data/settings upgrade finishes" in text)
    assert "a warning of OpenClaw's own" in text and "the warning passes" in text

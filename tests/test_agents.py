"""Several OpenClaw agents: each agent's memory stays its own unless sharing is asked for."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import orjson
import pytest

from tests.conftest import write_log

TURNS = [("user", "What did we decide about the billing export?"),
         ("assistant", "We chose nightly CSV drops to the finance bucket.")]


def _entry(id, type, content, session, agent=None, stamp="2026-03-02T09:00:00Z", **extra):
    entry = {"id": id, "timestamp": stamp, "type": type, "content": content, "session": session}
    if type == "task":
        entry["status"] = "open"
    if agent:
        entry["agent"] = agent
    return {**entry, **extra}


@pytest.fixture
def two_agents(zc_env, log_dir):
    """OpenClaw config with agents main (default) and work, each with its own workspace, and a
    log holding both agents' memory; main's entries are old ones without an agent field."""
    work_ws = zc_env["state"] / "workspace-work"
    work_ws.mkdir()
    config = {"agents": {"list": [{"id": "main", "default": True},
                                  {"id": "work", "workspace": str(work_ws)}]}}
    (zc_env["state"] / "openclaw.json").write_text(json.dumps(config))
    write_log(log_dir, [
        _entry("mainTask0001", "task", "Renew the passport", "main-s1",
               stamp="2026-03-01T09:00:00Z"),
        _entry("mainHand0001", "handoff", "Main: passport renewal under way", "main-s1",
               stamp="2026-03-01T10:00:00Z"),
        _entry("workFact0001", "fact", "The billing export runs nightly as CSV", "work-s1",
               agent="work", subject="billing-export"),
        _entry("workHand0001", "handoff", "Work: billing export shipped", "work-s1",
               agent="work", stamp="2026-03-02T10:00:00Z"),
    ])
    return {**zc_env, "work_workspace": work_ws}


def _handoff(zc, *args) -> dict | None:
    result = zc("handoff", "--json", *args)
    assert result.returncode == 0, result.stderr
    return orjson.loads(result.stdout) if result.stdout.strip() else None


def test_agent_main_never_gets_agent_works_handoff(two_agents, zc):
    # work's handoff is the latest in the log; main still gets its own
    assert _handoff(zc)["handoff"]["id"] == "mainHand0001"
    assert _handoff(zc, "--agent", "main")["handoff"]["id"] == "mainHand0001"
    assert _handoff(zc, "--agent", "work")["handoff"]["id"] == "workHand0001"
    # asked again (the per-agent pointers in state.json now answer), still apart
    assert _handoff(zc, "--agent", "main")["handoff"]["id"] == "mainHand0001"
    assert _handoff(zc, "--agent=work")["handoff"]["id"] == "workHand0001"
    state = orjson.loads((two_agents["log_dir"] / "state.json").read_bytes())
    assert set(state["lastHandoff"]) == {"main", "work"}


def test_an_agent_without_handoffs_gets_none(two_agents, zc, zc_env):
    (zc_env["state"] / "agents" / "ops" / "sessions").mkdir(parents=True)  # OpenClaw runs it
    assert _handoff(zc, "--agent", "ops") is None


def test_memory_search_as_main_finds_none_of_works_entries(two_agents, zc):
    result = zc("search", "--json", "--agent", "main", "--", "billing export")
    assert result.returncode == 0, result.stderr
    assert b"workFact0001" not in result.stdout and b"workHand0001" not in result.stdout
    as_work = zc("search", "--json", "--agent", "work", "--", "billing export")
    assert b"workFact0001" in as_work.stdout
    listed = zc("search", "--json", "--agent", "main", "--type", "handoff")
    assert [orjson.loads(line)["id"] for line in listed.stdout.splitlines()] == ["mainHand0001"]


def test_agent_all_is_for_people(two_agents, cli):
    ids = {e["id"] for e in cli.lines("search", "--json", "--agent", "all")}
    assert ids == {"mainTask0001", "mainHand0001", "workFact0001", "workHand0001"}
    assert [e["id"] for e in cli.lines("log", "--json", "--agent", "all")] == [
        "mainTask0001", "mainHand0001", "workFact0001", "workHand0001"]
    stats = orjson.loads(cli("stats", "--json", "--agent", "all").stdout)
    assert stats["entries"]["total"] == 4


def test_an_agent_whose_id_is_all_is_named_agent_all_and_reads_only_its_own(two_agents, cli,
                                                                           log_dir):
    """OpenClaw accepts an agent called `all`; the plugin passes it as `agent:all`."""
    with open(log_dir / "log.jsonl", "ab") as log:
        log.write(orjson.dumps(_entry("allFact00001", "fact", "The billing export is audited",
                                      "all-s1", agent="all")) + b"\n")
    ids = {e["id"] for e in cli.lines("search", "--json", "--agent", "agent:all")}
    assert ids == {"allFact00001"}
    assert {e["id"] for e in cli.lines("log", "--json", "--agent", "agent:all,work")} == {
        "workFact0001", "workHand0001", "allFact00001"}
    forgot = cli("forget", "--json", "--yes", "--agent", "agent:all", "--", "workFact0001")
    assert forgot.exit_code == 1 and "workFact0001" in forgot.stderr  # not its entry
    assert {e["id"] for e in cli.lines("search", "--json", "--agent", "work")} == {
        "workFact0001", "workHand0001"}
    assert len(cli.lines("search", "--json", "--agent", "all")) == 5  # people: every agent


def test_log_and_stats_show_one_agent_by_default(two_agents, cli):
    assert [e["id"] for e in cli.lines("log", "--json")] == ["mainTask0001", "mainHand0001"]
    assert [e["id"] for e in cli.lines("log", "--json", "--agent", "work")] == [
        "workFact0001", "workHand0001"]
    stats = orjson.loads(cli("stats", "--json", "--agent", "work").stdout)
    assert stats["entries"]["total"] == 2 and stats["entries"]["byType"]["fact"] == 1


def test_get_of_another_agents_entry_is_not_found(two_agents, cli):
    result = cli("get", "workFact0001", "--agent", "main")
    assert result.exit_code == 1
    assert result.stderr == "Error: no entry with id workFact0001\n"
    assert cli.lines("get", "workFact0001", "--json", "--agent", "work")[0]["agent"] == "work"


def test_get_session_of_works_session_as_main_is_refused(two_agents, home, cli):
    home.db_session("work", "work-s1", [TURNS], key="agent:work:main",
                    start=datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc))
    result = cli("get", "session:work-s1", "--agent", "main")
    assert result.exit_code == 2
    assert result.stderr == ("Error: refused: session work-s1 belongs to agent work, "
                             "not to main\n")
    refused = cli("get", "session:work-s1")  # the default agent is main
    assert refused.exit_code == 2 and "finance bucket" not in refused.stdout
    mine = cli("get", "session:work-s1", "--agent", "work")
    assert mine.exit_code == 0 and "finance bucket" in mine.stdout


def test_sharing_main_to_work_lets_main_read_work(two_agents, home, zc, cli):
    home.db_session("work", "work-s1", [TURNS], key="agent:work:main",
                    start=datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc))
    # the plugin passes the calling agent first, then the agents it may also read
    shared = zc("search", "--json", "--agent", "main,work", "--", "billing export")
    assert b"workFact0001" in shared.stdout
    assert cli("get", "session:work-s1", "--agent", "main,work").exit_code == 0
    assert cli("get", "workFact0001", "--agent", "main", "--agent", "work").exit_code == 0


def test_write_records_the_agent_and_keeps_agents_apart(two_agents, cli, log_dir):
    result = cli("write", "fact", "The billing export runs nightly as CSV", "--agent", "main",
                 "--json")
    assert result.exit_code == 0, result.stderr
    written = orjson.loads(result.stdout)
    # the same words in work's memory are not main's: a new entry, tagged main
    assert written["id"] != "workFact0001" and written["agent"] == "main"
    line = (log_dir / "log.jsonl").read_bytes().splitlines()[-1]
    assert b'"session":"manual","agent":"main"' in line
    fixed = cli("write", "fact", "x", "--replaces", "workFact0001", "--agent", "main")
    assert fixed.exit_code == 2 and "no entry with that id" in fixed.stderr


def test_an_old_log_without_agent_fields_belongs_to_the_default_agent(zc_env, log_dir, zc,
                                                                      cli):
    (zc_env["state"] / "openclaw.json").write_text(json.dumps(
        {"agents": {"list": [{"id": "work"}, {"id": "home", "default": True}]}}))
    write_log(log_dir, [_entry("oldHand00001", "handoff", "Old times", "s0"),
                        _entry("oldFact00001", "fact", "Old fact", "s0")])
    assert _handoff(zc)["handoff"]["id"] == "oldHand00001"  # home: default: true
    assert _handoff(zc, "--agent", "home")["handoff"]["id"] == "oldHand00001"
    assert _handoff(zc, "--agent", "work") is None
    assert [e["id"] for e in cli.lines("search", "--json", "--agent", "home")] == [
        "oldHand00001", "oldFact00001"]
    assert cli.lines("search", "--json", "--agent", "work") == []


def test_the_default_agent_is_the_first_listed_else_main(zc_env, log_dir, zc):
    write_log(log_dir, [_entry("oldHand00001", "handoff", "Old times", "s0")])
    assert _handoff(zc, "--agent", "main")["handoff"]["id"] == "oldHand00001"
    (zc_env["state"] / "openclaw.json").write_text(json.dumps(
        {"agents": {"list": [{"id": "ops"}, {"id": "main"}]}}))
    assert _handoff(zc, "--agent", "main") is None  # ops is the default now
    assert _handoff(zc)["handoff"]["id"] == "oldHand00001"


def test_a_bad_agent_id_is_a_usage_error(two_agents, cli):
    result = cli("search", "--agent", "../x", "--json")
    assert result.exit_code == 2 and result.stderr == "Error: '../x' is not an agent id\n"


def test_the_nightly_brief_writes_each_agents_memory_md_into_its_own_workspace(two_agents,
                                                                                   cli):
    result = cli("brief", "--no-llm", "--now", "2026-03-03")
    assert result.exit_code == 0, result.stderr
    main_memory = (two_agents["workspace"] / "MEMORY.md").read_text()
    work_memory = (two_agents["work_workspace"] / "MEMORY.md").read_text()
    assert "passport" in main_memory.lower() and "billing" not in main_memory.lower()
    assert "billing" in work_memory.lower() and "passport" not in work_memory.lower()
    assert str(two_agents["work_workspace"] / "MEMORY.md") in result.stderr


def test_brief_of_one_agent_writes_only_its_briefing(two_agents, cli):
    result = cli("brief", "--no-llm", "--now", "2026-03-03", "--agent", "main")
    assert result.exit_code == 0, result.stderr
    assert "passport" in (two_agents["workspace"] / "MEMORY.md").read_text().lower()
    assert not (two_agents["work_workspace"] / "MEMORY.md").exists()


HANDOFF_REPLY = json.dumps({"type": "handoff", "content": "Billing export: nightly CSV chosen"})


def test_extraction_records_the_agent_of_the_session(two_agents, home, fake_anthropic, cli,
                                                     log_dir):
    home.jsonl_session("work", "work-s2", TURNS, key="agent:work:main",
                       start=datetime(2026, 3, 4, 9, 0, tzinfo=timezone.utc))
    fake_anthropic.reply(HANDOFF_REPLY)
    result = cli("extract", "--session-id", "work-s2")  # the sweep's way: found on disk
    assert result.exit_code == 0, result.stderr
    [made] = [e for e in orjson.loads(b"[" + b",".join(
        (log_dir / "log.jsonl").read_bytes().splitlines()) + b"]") if e["session"] == "work-s2"]
    assert made["agent"] == "work"
    # main's memory was not shown to the model extracting work's conversation
    assert "passport" not in fake_anthropic.message_requests[0].user_text.lower()
    assert _handoff_of(cli, "work") == "Billing export: nightly CSV chosen"
    assert _handoff_of(cli, "main") == "Main: passport renewal under way"


def _handoff_of(cli, agent):
    return orjson.loads(cli("handoff", "--json", "--agent", agent).stdout)["handoff"]["content"]


def test_a_transcript_of_another_agent_is_refused(two_agents, home, fake_anthropic, cli):
    home.jsonl_session("work", "work-s2", TURNS, key="agent:work:main",
                       start=datetime(2026, 3, 4, 9, 0, tzinfo=timezone.utc))
    inline = cli("extract", "--session-id", "work-s2", "--agent", "main",
                 "--session-key", "agent:work:main", "--messages", "-", input="[]")
    assert inline.exit_code == 2
    assert inline.stderr == ("Error: refused: session work-s2 (agent:work:main) belongs to "
                             "agent work, not to main\n")
    assert fake_anthropic.message_requests == []


def test_contradictions_are_looked_for_within_one_agent_only(zc_env, log_dir, fake_anthropic,
                                                             cli):
    (zc_env["state"] / "openclaw.json").write_text(json.dumps(
        {"agents": {"list": [{"id": "main"}, {"id": "work"}]}}))
    old = _entry("oLdRetries01", "decision", "Synchronous retries with 5 max", "s0",
                 stamp="2026-02-10T09:00:00Z", subject="auth-migration")
    new = _entry("nEwRetries01", "fact", "Queue-based retries with 3 max", "s1", agent="work",
                 stamp="2026-02-20T14:35:00Z", subject="auth-migration")
    write_log(log_dir, [old, new])
    fake_anthropic.reply("1: yes")
    assert cli("brief", "--now", "2026-02-24T03:00:00Z").exit_code == 0
    assert fake_anthropic.message_requests == []  # main's and work's are never a pair
    # the same two statements both main's: a candidate, asked about
    write_log(log_dir, [{**new, "id": "nEwRetries02", "agent": "main"}])
    assert cli("brief", "--now", "2026-02-24T03:00:00Z").exit_code == 0
    (request,) = fake_anthropic.message_requests
    assert "Synchronous retries with 5 max" in request.user_text
    assert set(orjson.loads((log_dir / "state.json").read_bytes())["contradictions"]) == {
        "oLdRetries01>nEwRetries02"}


def test_paths_names_the_default_agent_and_the_other_agents_workspaces(two_agents, cli):
    data = orjson.loads(cli("paths", "--json").stdout)
    assert data["defaultAgent"] == "main"
    assert data["workspace[work]"] == str(two_agents["work_workspace"])
    assert data["workspace"] == str(two_agents["workspace"])


def test_the_nightly_brief_skips_an_agent_without_a_workspace_and_writes_the_others(zc_env,
                                                                                    log_dir, cli):
    (zc_env["state"] / "openclaw.json").write_text(json.dumps(
        {"agents": {"list": [{"id": "main"}, {"id": "work"}]}}))
    write_log(log_dir, [
        _entry("mAinDecide01", "decision", "Main ships on Fridays", "s0", subject="release"),
        _entry("wOrkDecide01", "decision", "Work ships on Mondays", "s1", agent="work",
               subject="release")])
    result = cli("brief", "--no-llm", "--now", "2026-03-03T03:00:00Z")
    assert result.exit_code == 0, result.stderr
    assert "agent work: not briefed: the workspace" in result.stderr
    assert "Main ships on Fridays" in (zc_env["workspace"] / "MEMORY.md").read_text()
    assert not (zc_env["state"] / "workspace-work").exists()  # never created by zettelclaw


def test_main_extraction_is_not_shown_works_subject_names(two_agents, home, fake_anthropic,
                                                           cli, log_dir):
    """Agent work filed entries under custody-battle-smith (registered, as every extraction
    registers its slugs): main's model never sees that name, not even when main's
    conversation says the words; main's own subjects and one a person added are shown."""
    write_log(log_dir, [
        _entry("workFact0002", "fact", "Hearing moved to April", "work-s1", agent="work",
               subject="custody-battle-smith"),
        _entry("mainFact0002", "fact", "The garden beds face south", "main-s1",
               subject="garden"),
    ])
    for slug in ("custody-battle-smith", "billing-export", "garden", "tax-return"):
        assert cli("subjects", "add", slug).exit_code == 0
    home.jsonl_session("main", "main-s2", [
        ("user", "Any news on the custody battle with Smith, and the billing export?"),
        ("assistant", "Nothing new.")], key="agent:main:main",
        start=datetime(2026, 3, 4, 9, 0, tzinfo=timezone.utc))
    fake_anthropic.reply(HANDOFF_REPLY)

    assert cli("extract", "--session-id", "main-s2").exit_code == 0

    user = fake_anthropic.message_requests[0].user_text
    subjects = user[user.index("<subjects>\n") + 11:user.index("\n</subjects>")]
    assert "custody-battle-smith" not in user and "billing-export" not in subjects
    assert "- garden:" in subjects and "- tax-return:" in subjects

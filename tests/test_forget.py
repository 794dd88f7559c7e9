"""Forget (issue 15), as a person sees it: write entries, forget one, run each reader, it is
gone from each; undo, it is back in each. Purge tombstones (hand-made lines, in the agreed
format) show nowhere either."""

from __future__ import annotations

import orjson
import pytest

from tests.conftest import DESIGN_LINES, write_log
from tests.hotpath import heavy_imports

# the design log: a3k9x (decision) was corrected by Cx6tM, r7Wp3 (fact) by Dw9sN
OLD, CURRENT = "a3k9x_BmQ2yT", "Cx6tM_1pWn8Y"
DLQ = "Queue-based retries with dead-letter queue"
TASK, HANDOFF = "Ht4vL_9qRx2D", "Ym8kP_3wNx5Q"


def rows(result) -> list[dict]:
    assert result.returncode == 0, result.stderr
    return [orjson.loads(line) for line in result.stdout.splitlines() if line.strip()]


def ids(result) -> list[str]:
    return [r.get("id") for r in rows(result)]


def forget(zc, *args: str):
    result = zc("forget", *args, "--yes")
    assert result.returncode == 0, result.stderr
    return result


def shown_everywhere(zc, cli, entry_id: str, text: str) -> dict[str, bool]:
    """Where ``entry_id`` (content ``text``) shows: every reader a person or the agent uses."""
    seen = {
        # the hot path (a subprocess, as the plugin runs it): ranked search, ripgrep's filtered
        # pass, the Python reading of the same filter, recall, the handoff
        "search": entry_id in ids(zc("search", "dead-letter queue")),
        "search --type (rg)": entry_id in ids(zc("search", "--type", "decision")),
        "search --type (python)": entry_id in ids(
            zc("search", "--type", "decision", env={"ZETTELCLAW_RG": "0"})),
        "search --subject": entry_id in ids(zc("search", "--subject", "auth-migration")),
        "handoff": text in zc("handoff", "--text").stdout.decode(),
        "log": entry_id in ids(zc("log", "-n", "50")),
        "get": zc("get", entry_id).returncode == 0,
        "export": entry_id in ids(zc("export")),
    }
    stats = rows(zc("stats", "--json"))[0]["entries"]
    seen["stats"] = stats["byType"]["decision"] == 2  # (the correction and what it corrected)
    brief = cli("brief", "--no-llm", "--print", "--now", "2026-02-27")
    assert brief.exit_code == 0, brief.stderr
    seen["brief"] = text in brief.stdout
    return seen


def test_a_forgotten_entry_is_gone_from_every_reader_and_undo_brings_it_back(design_log, zc,
                                                                              cli):
    before = shown_everywhere(zc, cli, CURRENT, DLQ)
    assert all(before.values()), before
    log_before = design_log.read_bytes()

    # forgetting the corrected id forgets the thing: its current version
    result = forget(zc, OLD, "--json")
    assert [(r["id"], bool(r["forgotten"])) for r in rows(result)] == [(CURRENT, True)]
    assert design_log.read_bytes().startswith(log_before), "append-only: nothing edited"
    record = orjson.loads(design_log.read_bytes().splitlines()[-1])
    assert record["type"] == "forget" and record["replaces"] == CURRENT
    assert set(record) == {"id", "timestamp", "type", "replaces"}  # no text, no agent field

    after = shown_everywhere(zc, cli, CURRENT, DLQ)
    assert not any(after.values()), after
    stats = rows(zc("stats", "--json"))[0]["entries"]
    assert (stats["forgotten"], stats["purged"]) == (1, 0)
    assert stats["bySubject"] == {"auth-migration": 4}  # of 6: not the forgotten decision
    # nor the version it corrected
    assert zc("get", OLD).returncode == 1

    # search --all lists it, marked
    marked = {r["id"]: r for r in rows(zc("search", "--all", "--type", "decision"))}
    assert marked[CURRENT]["forgotten"] == record["timestamp"]
    assert marked[OLD]["replacedBy"] == CURRENT
    ranked = {r["id"]: r for r in rows(zc("search", "--all", "dead-letter queue"))}
    assert ranked[CURRENT]["forgotten"] == record["timestamp"]
    # and so does export --all (every version), marked the same way
    exported = {r["id"]: r for r in rows(zc("export", "--all"))}
    assert exported[CURRENT]["forgotten"] == record["timestamp"]
    assert exported[OLD]["replacedBy"] == CURRENT
    assert record["id"] not in exported  # the forget itself is no entry

    # get says so, and how to undo it
    got = zc("get", CURRENT)
    assert got.returncode == 1
    assert got.stderr.decode() == (
        f"Error: entry {CURRENT} was forgotten on {record['timestamp'][:10]}; "
        f"`zettelclaw forget --undo {CURRENT}` brings it back\n")
    # piped (the agent's memory_get), or --json: an object that says so
    assert orjson.loads(got.stdout) == orjson.loads(zc("get", CURRENT, "--json").stdout) == {
        "id": CURRENT, "forgotten": record["timestamp"],
        "error": got.stderr.decode()[len("Error: "):-1]}

    # undo: one command, the entry back exactly as it was
    undo = forget(zc, "--undo", CURRENT)
    assert "Brought back 1 entry" in undo.stdout.decode() or rows(undo)
    back = shown_everywhere(zc, cli, CURRENT, DLQ)
    assert back == before
    assert rows(zc("get", CURRENT, "--json")) == [DESIGN_LINES[5]]
    stats = rows(zc("stats", "--json"))[0]["entries"]
    assert stats["forgotten"] == 0

    # and it can be forgotten again, and brought back by any version's id
    forget(zc, CURRENT)
    assert CURRENT not in ids(zc("search", "dead-letter queue"))
    forget(zc, "--undo", OLD)
    assert CURRENT in ids(zc("search", "dead-letter queue"))


def test_recall_leaves_a_forgotten_entry_out(design_log, zc):
    fact, message = "Dw9sN_2qXk7Z", "what are the exponential backoff intervals?"
    assert ids(zc("recall", "--json", "--", message))[:1] == [fact]
    forget(zc, fact)
    assert fact not in ids(zc("recall", "--json", "--", message))
    assert "2s, 10s, 30s" not in zc("recall", "--text", "--", message).stdout.decode()
    forget(zc, "--undo", fact)
    assert ids(zc("recall", "--json", "--", message))[:1] == [fact]


def test_a_forgotten_task_leaves_the_handoff_and_the_briefing(design_log, zc, cli):
    backfill = "Write backfill script for 47 failed webhook jobs"
    assert backfill in zc("handoff", "--text").stdout.decode()
    forget(zc, TASK)
    assert backfill not in zc("handoff", "--text").stdout.decode()
    assert zc("handoff", "--text").stdout.decode().startswith("## Last Session Handoff")
    brief = cli("brief", "--no-llm", "--print", "--now", "2026-02-27").stdout
    assert backfill not in brief
    assert rows(zc("stats", "--json"))[0]["entries"]["openTasks"] == 0
    forget(zc, "--undo", TASK)
    assert backfill in zc("handoff", "--text").stdout.decode()
    assert backfill in cli("brief", "--no-llm", "--print", "--now", "2026-02-27").stdout


def test_a_forgotten_handoff_is_not_injected_nor_the_one_before_it(log_dir, zc):
    earlier = {"id": "Old0handoff1", "timestamp": "2026-02-10T10:00:00Z", "type": "handoff",
               "content": "An earlier session's handoff", "session": "s0"}
    write_log(log_dir, [earlier, *DESIGN_LINES])
    assert "Auth migration" in zc("handoff", "--text").stdout.decode()  # (stores its pointer)
    forget(zc, HANDOFF)
    assert zc("handoff", "--text").stdout == b""
    assert zc("recall", "--handoff", "--text", "--", "hello").stdout.strip() == b""
    forget(zc, "--undo", HANDOFF)
    assert "Auth migration" in zc("handoff", "--text").stdout.decode()
    # forgotten after the pointer was stored: the answer is the same
    assert "Auth migration" in zc("handoff", "--text").stdout.decode()
    forget(zc, HANDOFF)
    assert zc("handoff", "--text").stdout == b""
    forget(zc, "--undo", HANDOFF)
    # the pointer now holds the handoff; an undo appended after it still counts
    zc("handoff", "--text")
    forget(zc, HANDOFF)
    zc("handoff", "--text")
    forget(zc, "--undo", HANDOFF)
    assert "Auth migration" in zc("handoff", "--text").stdout.decode()


def test_forget_by_session_and_subject_with_a_dry_run_first(design_log, zc):
    before = design_log.read_bytes()
    dry = zc("forget", "--session", "abc12345", "--dry-run", "--json")
    # the session's current entries (a3k9x and r7Wp3 were corrected in another session)
    assert ids(dry) == [TASK, "Jn2fR_7vKw4X", HANDOFF]
    assert design_log.read_bytes() == before, "--dry-run changes nothing"
    forget(zc, "--session", "abc12345")
    assert zc("handoff", "--text").stdout == b""
    assert ids(zc("search", "--subject", "auth-migration")) == [CURRENT]
    forget(zc, "--subject", "auth-migration")
    assert ids(zc("search", "--subject", "auth-migration")) == []
    assert ids(zc("search")) == ["Dw9sN_2qXk7Z"]  # (no subject)
    forget(zc, "--undo", "--session", "abc12345")
    assert set(ids(zc("search", "--subject", "auth-migration"))) == {TASK, "Jn2fR_7vKw4X",
                                                                       HANDOFF}


def test_forget_refuses_unknown_ids_and_asks_first(design_log, zc, cli, monkeypatch):
    before = design_log.read_bytes()
    unknown = zc("forget", "zzzzzzzzzzzz", "--yes")
    assert unknown.returncode == 1
    assert unknown.stderr.decode() == "Error: no entry with id zzzzzzzzzzzz\n"
    off_terminal = zc("forget", CURRENT)
    assert off_terminal.returncode == 2
    assert off_terminal.stderr.decode().startswith("Error: not on a terminal: add --yes")
    assert design_log.read_bytes() == before
    # on a terminal it asks, default no
    from zettelclaw.commands import subjects as command

    monkeypatch.setattr(command, "_on_terminal", lambda: True)
    said_no = cli("forget", CURRENT, input="\n")
    assert said_no.exit_code == 1 and "Forget?" in said_no.stderr
    assert design_log.read_bytes() == before
    said_yes = cli("forget", CURRENT, input="y\n")
    assert said_yes.exit_code == 0 and CURRENT in said_yes.stdout
    assert zc("get", CURRENT).returncode == 1
    # forgetting it again: nothing to do, said on stderr
    again = zc("forget", CURRENT, "--yes")
    assert again.returncode == 0 and "already forgotten" in again.stderr.decode()
    # a correction of a forgotten entry: bring it back first
    write = zc("write", "decision", "Something else", "--replaces", CURRENT)
    assert write.returncode == 2 and "was forgotten" in write.stderr.decode()


def test_another_agents_entry_is_not_found(log_dir, zc):
    work = {**DESIGN_LINES[0], "id": "WorkEntry001", "agent": "work",
            "content": "The work agent's own decision"}
    write_log(log_dir, [*DESIGN_LINES, work])
    refused = zc("forget", "WorkEntry001", "--yes")
    assert refused.returncode == 1
    assert refused.stderr.decode() == "Error: no entry with id WorkEntry001\n"
    # its own agent forgets it; the record carries the agent, so only work's readers change
    forget(zc, "WorkEntry001", "--agent", "work")
    record = orjson.loads((log_dir / "log.jsonl").read_bytes().splitlines()[-1])
    assert record["agent"] == "work"
    assert "WorkEntry001" not in ids(zc("search", "--agent", "work", "--type", "decision"))
    assert ids(zc("search", "--type", "decision")) == [CURRENT]


def tombstone(entry: dict, when: str = "2026-03-01T09:00:00Z") -> dict:
    """The agreed purge tombstone: the entry's line without its text."""
    keep = ("id", "timestamp", "type", "replaces", "session", "agent")
    return {**{k: entry[k] for k in keep if k in entry}, "purged": when}


def test_purge_tombstones_show_nowhere_and_their_replaces_still_count(log_dir, zc, cli):
    lines = list(DESIGN_LINES)
    lines[2] = tombstone(DESIGN_LINES[2])  # the open task, purged in place
    lines[6] = tombstone(DESIGN_LINES[6])  # the correction of r7Wp3, purged in place
    write_log(log_dir, lines)
    everything = zc("search")
    assert everything.stderr == b"", "a tombstone is no invalid line"
    assert ids(everything) == ["Jn2fR_7vKw4X", HANDOFF, CURRENT]
    # the purged correction keeps the fact it replaced hidden
    assert "r7Wp3nKx_mZe" not in ids(zc("search", "backoff intervals"))
    assert "r7Wp3nKx_mZe" not in ids(zc("search", "--subject", "auth-migration",
                                        env={"ZETTELCLAW_RG": "0"}))
    assert "r7Wp3nKx_mZe" not in ids(zc("log"))
    assert TASK not in ids(zc("search", "--all"))
    got = zc("get", TASK)
    assert got.returncode == 1
    assert got.stderr.decode() == f"Error: entry {TASK} was purged on 2026-03-01\n"
    assert orjson.loads(zc("get", TASK, "--json").stdout)["purged"] == "2026-03-01T09:00:00Z"
    assert "Write backfill" not in zc("handoff", "--text").stdout.decode()
    stats = rows(zc("stats", "--json"))[0]["entries"]
    assert (stats["forgotten"], stats["purged"], stats["openTasks"]) == (0, 2, 0)
    # the fact's current version was purged: the thing is gone, its old version not counted
    assert stats["byType"]["task"] == 0 and stats["byType"]["fact"] == 0
    brief = cli("brief", "--no-llm", "--print", "--now", "2026-02-27")
    assert brief.exit_code == 0 and "Write backfill" not in brief.stdout
    assert "invalid line" not in zc("log").stderr.decode()


def _large_log(log_dir, forgotten: str):
    entries = []
    for i in range(2500):
        entries.append({"id": f"Lg{i:05d}_xxxx", "timestamp": "2026-01-05T10:00:00Z",
                        "type": "fact", "content": f"filler note {i} about the garden shed",
                        "subject": f"s{i % 40}", "session": f"x{i // 7}"})
    entries.append({"id": forgotten, "timestamp": "2026-01-06T10:00:00Z", "type": "fact",
                    "content": "The kiln firing schedule is every second Tuesday",
                    "subject": "pottery", "session": "kiln1"})
    write_log(log_dir, entries)


def test_the_large_log_paths_hide_a_forgotten_entry(log_dir, zc, cli, monkeypatch):
    from zettelclaw import rank

    if rank.ripgrep() is None:
        pytest.skip("ripgrep not installed")
    kiln = "KilnSchedule"
    _large_log(log_dir, kiln)
    # the ranked search and recall as on a large log: rg streams the matches, N is sampled
    monkeypatch.setattr(rank, "SMALL_LOG", 64 << 10)
    monkeypatch.setattr(rank.scans, "SMALL_LOG", 64 << 10)

    def seen() -> dict[str, bool]:
        return {
            "ranked": kiln in [r["id"] for r in cli.lines("search", "kiln firing", "--json")],
            "recall": kiln in [r["id"] for r in cli.lines("recall", "--json", "--",
                                                        "when is the kiln firing schedule?")],
            "filtered rg": kiln in ids(zc("search", "--subject", "pottery")),
            "filtered python": kiln in ids(zc("search", "--subject", "pottery",
                                              env={"ZETTELCLAW_RG": "0"})),
            "log": kiln in ids(zc("log", "-n", "3")),
        }

    assert all(seen().values()), seen()
    forget(zc, kiln)
    assert not any(seen().values()), seen()
    forget(zc, "--undo", kiln)
    assert all(seen().values()), seen()


def test_the_per_turn_commands_stay_light_with_forgets_in_the_log(design_log, zc):
    forget(zc, TASK)
    forget(zc, CURRENT)
    forget(zc, "--undo", CURRENT)
    assert heavy_imports(["handoff", "--text"], "Last Session Handoff") == []
    assert heavy_imports(["recall", "--json", "--", "the exponential backoff intervals"],
                         "Dw9sN_2qXk7Z") == []
    assert heavy_imports(["search", "--json", "dead-letter queue"], CURRENT) == []


def test_a_forgotten_fact_is_no_contradiction_candidate(cli, zc, fake_anthropic, log_dir,
                                                         zc_env):
    from tests.test_briefing import CONTRADICTION, EXAMPLE_LINES, block_of, brief

    memory = zc_env["workspace"] / "MEMORY.md"
    write_log(log_dir, EXAMPLE_LINES)
    forget(zc, "oLdRetries01")
    fake_anthropic.reply("1: yes")
    brief(cli)
    assert fake_anthropic.message_requests == [], "no pair to judge: the model is not asked"
    assert CONTRADICTION not in block_of(memory)
    assert "Synchronous retries with 5 max" not in block_of(memory)
    forget(zc, "--undo", "oLdRetries01")
    brief(cli, night="2026-02-24T09:00:00Z")
    assert CONTRADICTION in block_of(memory)


def test_get_history_of_a_forgotten_entry_says_so(design_log, zc):
    assert ids(zc("get", OLD, "--history")) == [OLD, CURRENT]
    forget(zc, OLD)
    for entry_id in (OLD, CURRENT):
        got = zc("get", entry_id, "--history")
        assert got.returncode == 1 and "was forgotten on" in got.stderr.decode()
        assert zc("get", entry_id, "--transcript").returncode == 1
    forget(zc, "--undo", CURRENT)
    assert ids(zc("get", OLD, "--history")) == [OLD, CURRENT]


def test_memory_md_forgets_at_once_and_gets_it_back_with_the_undo(design_log, zc, zc_env):
    memory = zc_env["workspace"] / "MEMORY.md"
    memory.write_text("# Mine\nKeep this line.\n")
    theme = "Adopt the blue theme for the dashboard"
    decision = rows(zc("write", "decision", theme, "--json"))[0]["id"]
    assert zc("brief", "--no-llm").returncode == 0
    assert theme in memory.read_text()
    forgot = zc("forget", decision, "--yes")
    assert forgot.returncode == 0 and "rewrote the briefing" in forgot.stderr.decode()
    text = memory.read_text()
    assert theme not in text and text.startswith("# Mine\nKeep this line.\n")
    forget(zc, "--undo", decision)
    assert theme in memory.read_text()


class Killed(BaseException):
    """A SIGKILL, as far as the run is concerned: nothing after it runs."""


def briefing_check(cli) -> dict | None:
    checks = {c["name"]: c for c in orjson.loads(cli("doctor", "--json").stdout)["checks"]}
    return checks.get("briefing")


def test_a_forget_killed_after_its_append_is_briefed_by_the_next_forget_and_doctor_says_so(
        design_log, zc, cli, zc_env, monkeypatch):
    from zettelclaw import forget as core

    memory = zc_env["workspace"] / "MEMORY.md"
    memory.write_text("# Mine\n")
    theme = "Adopt the blue theme for the dashboard"
    decision = rows(zc("write", "decision", theme, "--json"))[0]["id"]
    fact = rows(zc("write", "fact", "The dashboard lives on port 8080", "--json"))[0]["id"]
    assert zc("brief", "--no-llm").returncode == 0 and theme in memory.read_text()
    rebrief = core.rebrief

    def kill(*args, **kwargs):
        raise Killed

    monkeypatch.setattr(core, "rebrief", kill)
    with pytest.raises(Killed):
        cli("forget", decision, "--yes")
    monkeypatch.setattr(core, "rebrief", rebrief)

    assert theme in memory.read_text()  # OpenClaw loads it into every session
    check = briefing_check(cli)
    assert check["status"] == "fail" and "may still list what it forgot" in check["detail"]
    assert check["fix"] == "zettelclaw brief --no-llm"
    forget(zc, fact)  # the next run settles what the killed one owed
    assert theme not in memory.read_text() and "port 8080" not in memory.read_text()
    assert briefing_check(cli) is None


def test_a_review_close_killed_after_its_append_is_briefed_by_the_next_brief(
        zc, cli, zc_env, log_dir, monkeypatch):
    from zettelclaw import forget as core

    memory = zc_env["workspace"] / "MEMORY.md"
    memory.write_text("# Mine\n")
    task = rows(zc("write", "task", "Renew the TLS certificate", "--json"))[0]["id"]
    assert zc("brief", "--no-llm").returncode == 0 and "Renew the TLS" in memory.read_text()
    rebrief = core.rebrief

    def kill(*args, **kwargs):
        raise Killed

    monkeypatch.setattr(core, "rebrief", kill)
    with pytest.raises(Killed):
        cli("review", "close", task, "--yes")
    monkeypatch.setattr(core, "rebrief", rebrief)

    assert "Renew the TLS" in memory.read_text()
    assert "review close" in briefing_check(cli)["detail"]
    assert "rebriefing" in orjson.loads((log_dir / "state.json").read_bytes())
    assert zc("brief", "--no-llm").returncode == 0  # the nightly briefing
    assert "Renew the TLS" not in memory.read_text()
    assert briefing_check(cli) is None
    assert "rebriefing" not in orjson.loads((log_dir / "state.json").read_bytes())


def test_a_memory_md_without_a_briefing_is_left_alone(design_log, zc, zc_env):
    memory = zc_env["workspace"] / "MEMORY.md"
    memory.write_text("# Mine\n")
    forget(zc, CURRENT)
    assert memory.read_text() == "# Mine\n"

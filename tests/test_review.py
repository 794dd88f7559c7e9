"""`zettelclaw review` (issue 24): the open tasks and questions, oldest first; close, drop or
keep them in bulk, each close a correction in the log (never an edit), undone by another."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from tests.conftest import write_log


def days_ago(n: int) -> str:
    return (datetime.now(timezone.utc) - timedelta(days=n)).strftime("%Y-%m-%dT%H:%M:%SZ")


def entry(id_: str, type_: str, content: str, age: int, subject: str | None = None,
          **fields) -> dict:
    out = {"id": id_, "timestamp": days_ago(age), "type": type_, "content": content}
    if type_ == "task":
        out["status"] = fields.pop("status", "open")
    if subject:
        out["subject"] = subject
    return {**out, **fields, "session": "s1"}


LOOPS = [
    entry("oldQuestion1", "question", "Should we move to Hetzner?", 200),
    entry("gardenTask01", "task", "Prune the apple tree", 90, "garden"),
    entry("tlsTask00001", "task", "Renew the TLS cert", 60, "homelab"),
    entry("doneTask0001", "task", "Book the venue", 50, status="done"),
    entry("homelabFact1", "fact", "The homelab runs Proxmox 8", 3, "homelab"),  # touches it
    entry("canaryQuest1", "question", "Who owns the canary?", 2, "deploy"),
]


@pytest.fixture
def loops_log(log_dir):
    return write_log(log_dir, LOOPS)


def current(cli, entry_id: str) -> dict:
    """The current version of ``entry_id``'s chain."""
    return cli.lines("get", entry_id, "--history", "--json")[-1]


def test_review_lists_the_open_loops_oldest_first_the_quiet_ones_marked(cli, loops_log):
    rows = cli.lines("review", "--json")

    assert [r["id"] for r in rows] == ["oldQuestion1", "gardenTask01", "tlsTask00001",
                                       "canaryQuest1"]
    assert [r["quiet"] for r in rows] == [True, True, False, False]
    assert rows[2]["touched"][:10] == days_ago(3)[:10]  # its subject was touched 3 days ago
    assert [r["id"] for r in cli.lines("review", "--quiet", "--json")] == [
        "oldQuestion1", "gardenTask01"]
    assert [r["id"] for r in cli.lines("review", "--type", "task", "--json")] == [
        "gardenTask01", "tlsTask00001"]


def test_closing_the_quiet_loops_in_bulk_appends_corrections_and_undo_opens_them_again(
        cli, loops_log):
    before = loops_log.read_bytes()

    closed = cli("review", "--quiet", "close", "--all", "--yes")

    assert closed.exit_code == 0, closed.stderr
    assert closed.stderr.startswith("Closed 2 loops; undo: zettelclaw review undo ")
    after = loops_log.read_bytes()
    assert after.startswith(before) and after.count(b"\n") == before.count(b"\n") + 2
    assert [r["id"] for r in cli.lines("review", "--json")] == ["tlsTask00001",
                                                                "canaryQuest1"]
    # a task closed is the same task, done; a question closed is the fact that settles it
    task = current(cli, "gardenTask01")
    assert (task["type"], task["status"], task["content"], task["replaces"]) == (
        "task", "done", "Prune the apple tree", "gardenTask01")
    fact = current(cli, "oldQuestion1")
    assert (fact["type"], fact["content"]) == (
        "fact", "Closed without an answer: Should we move to Hetzner?")
    brief = cli("brief", "--no-llm", "--print")
    assert "Quiet for" not in brief.stdout and "Prune the apple tree" not in brief.stdout
    assert "garden" not in brief.stdout  # a review's close is bookkeeping, not activity

    undo_ids = closed.stderr.split("review undo ")[1].split()
    undone = cli("review", "undo", *undo_ids, "--yes")

    assert undone.exit_code == 0, undone.stderr
    assert undone.stderr.strip() == "Opened again 2 loops"
    rows = cli.lines("review", "--json")
    assert [r["content"] for r in rows] == ["Should we move to Hetzner?",
                                            "Prune the apple tree", "Renew the TLS cert",
                                            "Who owns the canary?"]
    assert loops_log.read_bytes().startswith(after)  # the undo is one more correction
    history = cli.lines("get", "gardenTask01", "--history", "--json")
    assert [h.get("status") for h in history] == ["open", "done", "open"]


def test_dropping_says_so_and_a_question_can_be_closed_with_its_answer(cli, loops_log):
    dropped = cli("review", "drop", "gardenTask01", "oldQuestion1", "--yes")
    answered = cli("review", "close", "canaryQuest1", "--answer", "Max owns the canary",
                   "--yes")

    assert dropped.exit_code == 0 and answered.exit_code == 0, dropped.stderr
    task = current(cli, "gardenTask01")
    assert task["status"] == "done"
    assert task["detail"] == "Dropped in review, not done."
    assert current(cli, "oldQuestion1")["content"] == (
        "Dropped: Should we move to Hetzner?")
    fact = current(cli, "canaryQuest1")
    assert (fact["type"], fact["content"], fact["subject"]) == (
        "fact", "Max owns the canary", "deploy")
    assert [r["id"] for r in cli.lines("review", "--json")] == ["tlsTask00001"]


def test_a_bad_id_or_no_terminal_is_one_line_and_the_log_is_untouched(cli, loops_log):
    before = loops_log.read_bytes()

    unknown = cli("review", "close", "zzzzzzzzzzzz", "--yes")
    off_terminal = cli("review", "close", "gardenTask01")
    nothing = cli("review", "close")
    done = cli("review", "close", "doneTask0001", "--yes")

    assert (unknown.exit_code, unknown.stderr) == (1, "Error: no entry with id zzzzzzzzzzzz\n")
    assert off_terminal.exit_code == 2
    assert off_terminal.stderr.startswith("Error: not on a terminal: add --yes")
    assert nothing.exit_code == 2 and nothing.stderr.startswith("Error: name what to close")
    assert done.exit_code == 0 and "is not an open task or question" in done.stderr
    assert "Nothing to close." in done.stderr
    assert loops_log.read_bytes() == before


def test_walk_asks_about_each_loop_and_writes_what_was_chosen(cli, loops_log, monkeypatch):
    from zettelclaw.commands import subjects

    monkeypatch.setattr(subjects, "_on_terminal", lambda: True)

    walked = cli("review", "walk", input="c\n\nd\nk\nk\n")  # (the question: no answer)

    assert walked.exit_code == 0, walked.stderr
    assert "[1/4]" in walked.stderr and "Should we move to Hetzner?" in walked.stderr
    assert "Closed 1, dropped 1, left 2 open; undo: zettelclaw review undo " in walked.stderr
    assert current(cli, "oldQuestion1")["type"] == "fact"
    assert current(cli, "gardenTask01")["detail"].startswith("Dropped")
    assert [r["id"] for r in cli.lines("review", "--json")] == ["tlsTask00001",
                                                                "canaryQuest1"]


def test_walk_asks_for_the_answer_of_a_question_it_closes(cli, loops_log, monkeypatch):
    from zettelclaw.commands import subjects

    monkeypatch.setattr(subjects, "_on_terminal", lambda: True)

    # close the Hetzner question with its answer, close the canary one without
    walked = cli("review", "walk", input="c\nNo: we stay on OVH until 2027\nk\nk\nc\n\n")

    assert walked.exit_code == 0, walked.stderr
    assert walked.stderr.count("its answer (empty: close it without one)") == 2
    assert "closed without an answer" in walked.stderr
    assert "Closed 2, dropped 0, left 2 open" in walked.stderr
    answered, unanswered = current(cli, "oldQuestion1"), current(cli, "canaryQuest1")
    assert (answered["type"], answered["content"]) == ("fact", "No: we stay on OVH until 2027")
    assert answered["detail"] == "The question was closed in review with this answer."
    assert unanswered["content"] == "Closed without an answer: Who owns the canary?"
    assert unanswered["detail"] == "The question was closed in review without an answer."
    assert "Settled" not in (loops_log.read_text())


def test_the_agents_tool_closes_in_its_own_memory_with_the_same_command(cli, loops_log):
    # memory_close runs exactly this (hooks/openclaw-plugin/lib/tools.js closeArgs)
    written = cli.lines("review", "--agent", "main", "close", "--json", "--yes", "--",
                        "tlsTask00001")

    assert [(w["type"], w["status"], w["replaces"], w["session"]) for w in written] == [
        ("task", "done", "tlsTask00001", "review")]
    reopened = cli.lines("review", "--agent", "main", "undo", "--json", "--yes", "--",
                         written[0]["id"])
    assert [(r["status"], r["replaces"]) for r in reopened] == [("open", written[0]["id"])]


def test_a_look_alike_close_is_shown_for_review(cli, home, fake_anthropic, log_dir):
    """The model closes the older of two tasks that say the same of different projects; the
    conversation names neither: nothing is closed, the briefing counts the link to confirm,
    review shows it with both tasks it may close and the one command that makes it; once
    one is closed it is not asked again, and that close is undone by one more command."""
    from datetime import datetime, timedelta, timezone

    from tests.conftest import write_log
    from zettelclaw.entries import make_entry

    today = datetime(2026, 11, 20, 9, 0, tzinfo=timezone.utc)

    def stamp(days: int) -> str:
        return (today - timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%SZ")

    older = make_entry("task", "We need to renew the nightly cron job for Atlas Billing.", "s1",
                       subject="atlas-billing", status="open", timestamp=stamp(20))
    newer = make_entry("task", "We need to renew the staging cron job for Orion Portal.", "s2",
                       subject="orion-portal", status="open", timestamp=stamp(10))
    write_log(log_dir, [older, newer])
    home.jsonl_session("main", "4b1d7c2e-8f3a-4e6b-9d0c-1a2b3c4d5e6f", [
        ("user", "That cron job thing is done now."), ("assistant", "Noted.")],
        key="agent:main:main", start=today)
    fake_anthropic.entries(
        {"type": "task", "content": "That cron job thing is done now.", "status": "done",
         "replaces": "{{id-of:nightly cron job}}"},
        {"type": "handoff", "content": "cron job"})
    done = cli("extract", "--session-id", "4b1d7c2e-8f3a-4e6b-9d0c-1a2b3c4d5e6f")
    assert done.exit_code == 0, done.stderr
    open_ids = {e["id"] for e in cli.lines("search", "--type", "task", "--status", "open",
                                           "--json")}
    assert open_ids == {older["id"], newer["id"]}  # nothing closed on a guess

    listed = cli("review")
    assert listed.exit_code == 0, listed.stderr
    assert "1 link to confirm" in listed.stderr
    assert "That cron job thing is done now." in listed.stderr
    asked = listed.stderr.split("That cron job thing is done now.")[1]
    assert "may close one of these (if so: zettelclaw review close ID" in asked
    assert asked.index(older["id"]) < asked.index(newer["id"])  # the model's pick first
    rows = {r["id"]: r for r in cli.lines("review", "--json")}
    for task in (older, newer):
        assert [c["content"] for c in rows[task["id"]]["may_be_closed_by"]] \
            == ["That cron job thing is done now."]

    brief = cli("brief", "--no-llm", "--print")
    assert "1 link to confirm" in brief.stdout and "`zettelclaw review`" in brief.stdout
    # Pending does not list either as surely open: each may be the one said done
    pending = [line for line in brief.stdout.splitlines() if "cron job for" in line]
    assert len(pending) == 2 and all(
        line.endswith(" — maybe done: `zettelclaw review`") for line in pending), pending

    closed = cli("review", "close", older["id"], "--yes")
    assert closed.exit_code == 0, closed.stderr
    assert "link to confirm" not in cli("review").stderr
    brief = cli("brief", "--no-llm", "--print").stdout
    assert "link to confirm" not in brief and "maybe done" not in brief
    assert "renew the staging cron job for Orion Portal." in brief  # open, surely
    undo = closed.stderr.split("undo: ")[1].split()
    assert cli(*undo[1:], "--yes").exit_code == 0
    assert "1 link to confirm" in cli("review").stderr  # open again, the link asked again


def test_a_look_alike_closed_by_a_later_conversation_leaves_the_other_asked_about(cli,
                                                                                  log_dir):
    """A done kept apart between two look-alike tasks; a later conversation closes one of
    them: the link is still asked about, naming the other alone. Once the person forgets
    the kept-apart done, nothing is asked."""
    nightly = entry("nightlyCron1", "task", "Renew the nightly cron job", 20, "atlas")
    staging = entry("stagingCron1", "task", "Renew the staging cron job", 10, "orion")
    done = entry("cronJobDone1", "task", "That cron job thing is done now.", 5,
                 status="done", may_replace=[nightly["id"], staging["id"]])
    later = entry("nightlyDone1", "task", "Renewing the nightly cron job is done.", 2, "atlas",
                  status="done", replaces=nightly["id"])
    write_log(log_dir, [nightly, staging, done, later])
    listed = cli("review").stderr
    assert "1 link to confirm" in listed
    asked = listed.split("That cron job thing is done now.")[1]
    assert f"may close {staging['id']}" in asked and nightly["id"] not in asked
    assert "if so: zettelclaw review close stagingCron1" in asked
    assert "1 link to confirm" in cli("brief", "--no-llm", "--print").stdout
    assert cli("forget", done["id"], "--yes").exit_code == 0
    assert "link to confirm" not in cli("review").stderr
    assert "link to confirm" not in cli("brief", "--no-llm", "--print").stdout


def test_the_briefing_marks_the_newest_three_asks_and_folds_the_old_ones_into_a_count(cli,
                                                                                      log_dir):
    """Seven dones kept apart, each between two look-alike tasks: five said this week, two
    a month ago. The briefing marks the tasks of the newest three alone, counts the other
    two of this week, and folds the old two into a count of their own (issue 40: asks do
    not pile up); review still lists all seven."""
    lines, marked, unmarked = [], [], []
    for n, age in enumerate((1, 2, 3, 4, 5, 20, 25)):
        pair = [entry(f"ask{n}task{side}00"[:12], "task", f"Renew the {word} cron job {n}",
                      age + 1, f"proj-{n}-{side}")
                for side, word in ((0, "nightly"), (1, "staging"))]
        done = entry(f"ask{n}done0000"[:12], "task", f"That cron job thing {n} is done.", age,
                     status="done", may_replace=[e["id"] for e in pair])
        lines += [*pair, done]
        (marked if n < 3 else unmarked).extend(e["content"] for e in pair)
    write_log(log_dir, lines)
    brief = cli("brief", "--no-llm", "--print").stdout
    assert "5 links to confirm" in brief
    assert "2 older links to confirm, no longer marked" in brief
    pending = brief.split("## Pending")[1].split("\n\n")[0].splitlines()
    for content in marked:
        line = next(x for x in pending if content in x)
        assert line.endswith(" — maybe done: `zettelclaw review`"), line
    for content in unmarked:
        line = next(x for x in pending if content in x)
        assert "maybe done" not in line, line
    assert "7 links to confirm" in cli("review").stderr

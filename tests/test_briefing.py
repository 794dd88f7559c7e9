"""`zettelclaw brief`: the generated half of MEMORY.md (design §5)."""

from __future__ import annotations

import itertools
import json
import os
import stat

import pytest

from tests.conftest import write_log

BEGIN = "<!-- BEGIN GENERATED BRIEFING -->"
END = "<!-- END GENERATED BRIEFING -->"
NIGHT = "2026-02-24T03:00:00Z"  # the night the design's example was written
MANUAL = """## Goals
- Ship auth migration by end of month
- Keep the monorepo build under 30s
- Zettelclaw V3 spec and implementation

## Preferences
- Bun for all JS/TS, never yarn/pnpm
- Never auto-commit
- Prefer simple solutions over configurable ones

"""

_counter = itertools.count(1)


def entry(type_: str, content: str, when: str, subject: str | None = None, *,
          session: str = "s1", **fields) -> dict:
    """One log line; ``when`` is an ISO date-time (a bare date means noon UTC)."""
    stamp = when if "T" in when else f"{when}T12:00:00Z"
    out = {"id": fields.pop("id", None) or f"id{next(_counter):010d}", "timestamp": stamp,
           "type": type_, "content": content}
    if type_ == "task":
        out["status"] = fields.pop("status", "open")
    if subject:
        out["subject"] = subject
    out.update(fields)
    out["session"] = session
    return out


# The entries behind the design's §5.1 example, as a log would hold them on the night of
# 2026-02-24 (the example's 2026-02-18 decision is still within the 7-day window).
OLD_RETRIES = entry("decision", "Synchronous retries with 5 max", "2026-02-10T09:00:00Z",
                    "auth-migration", session="s0", id="oLdRetries01")
NEW_RETRIES = entry("fact", "Queue-based retries with 3 max", "2026-02-20T14:35:00Z",
                    "auth-migration", id="nEwRetries01")
EXAMPLE_LINES = [
    entry("fact", "Whisper runs locally on the M2 with the small model", "2026-01-08",
          "whisper-stt", session="s-1"),
    OLD_RETRIES,
    entry("fact", "Post-mortem traced the outage to cascading retries", "2026-02-15",
          "auth-migration", session="s2"),
    entry("decision", "Bun over yarn — 3-4x faster, one-way door", "2026-02-18", session="s3"),
    entry("decision", "Queue-based retries with exponential backoff for webhooks",
          "2026-02-20T14:20:00Z", "auth-migration"),
    NEW_RETRIES,
    entry("task", "Canary deploy + 24h monitoring", "2026-02-20T15:00:00Z", "auth-migration"),
    entry("task", "Backfill script for 47 failed webhook jobs", "2026-02-20T15:10:00Z",
          "auth-migration"),
    entry("question", "Is retry strategy sufficient for 10k+/min webhook bursts?",
          "2026-02-20T15:15:00Z", "auth-migration"),
    entry("handoff", "Queue-based retries implemented, backfill script pending",
          "2026-02-20T15:30:00Z", "auth-migration"),
    entry("handoff", "V3 event log spec in progress", "2026-02-22", "zettelclaw", session="s4"),
    entry("task", "Ask Max which Whisper model the phone build uses", "2026-02-23",
          "whisper-stt", session="s5", status="done"),
]
EXAMPLE_BLOCK = """## Active
- auth-migration — Queue-based retries implemented, backfill script pending
- zettelclaw — V3 event log spec in progress

## Recent Decisions
- 2026-02-20: Queue-based retries with exponential backoff for webhooks
- 2026-02-18: Bun over yarn — 3-4x faster, one-way door

## Pending
- Backfill script for 47 failed webhook jobs (auth-migration)
- Canary deploy + 24h monitoring (auth-migration)

## Open Questions
- Is retry strategy sufficient for 10k+/min webhook bursts? (auth-migration)

## Stale
- whisper-stt — last entry 2026-01-08, referenced in recent session"""
CONTRADICTION = ('- auth-migration: "Synchronous retries with 5 max" (2026-02-10, oLdRetries01) '
                 'may conflict with "Queue-based retries with 3 max" (2026-02-20, nEwRetries01)')


@pytest.fixture
def memory(zc_env):
    return zc_env["workspace"] / "MEMORY.md"


def block_of(memory) -> str:
    text = memory.read_text(encoding="utf-8")
    assert text.count(BEGIN) == 1 and text.count(END) == 1
    return text.split(BEGIN)[1].split(END)[0].strip("\r\n")


def sections(block: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    current = None
    for line in block.splitlines():
        if line.startswith("## "):
            current = out.setdefault(line[3:], [])
        elif line.startswith("- ") and current is not None:
            current.append(line[2:])
    return out


def brief(cli, *args: str, night: str = NIGHT):
    result = cli("brief", "--now", night, *args)
    assert result.exit_code == 0, result.stderr
    return result


def state(log_dir) -> dict:
    path = log_dir / "state.json"
    return json.loads(path.read_text()) if path.exists() else {}


def write_config(zc_env, briefing: dict) -> None:
    config = {"plugins": {"entries": {"zettelclaw": {"config": {"briefing": briefing}}}}}
    (zc_env["state"] / "openclaw.json").write_text(json.dumps(config))


# ---------------------------------------------------------------------------------------------
# the design's example


def test_rebuilds_the_design_example(cli, fake_anthropic, log_dir, memory):
    write_log(log_dir, EXAMPLE_LINES)
    memory.write_text(MANUAL + f"{BEGIN}\n{END}\n")
    fake_anthropic.reply("1: yes")

    result = brief(cli)

    assert memory.read_text() == (MANUAL + f"{BEGIN}\n{EXAMPLE_BLOCK}\n\n## Contradictions\n"
                                  f"{CONTRADICTION}\n{END}\n")
    (request,) = fake_anthropic.message_requests  # one call for the night's candidates
    assert "Synchronous retries with 5 max" in request.user_text
    assert "Queue-based retries with 3 max" in request.user_text
    assert "contradiction" in request.system_text.lower()
    assert state(log_dir)["contradictions"]["oLdRetries01>nEwRetries01"] == (
        "2026-02-24T03:00:00Z")  # the time it was flagged
    assert "Briefing written to" in result.stderr


def test_without_a_model_every_other_section_is_the_same(cli, fake_anthropic, log_dir, memory):
    write_log(log_dir, EXAMPLE_LINES)

    result = brief(cli, "--no-llm")

    assert block_of(memory) == EXAMPLE_BLOCK
    assert fake_anthropic.message_requests == []
    assert "note:" not in result.stderr


def test_a_missing_api_key_is_a_note_not_a_failure(cli, log_dir, memory):
    write_log(log_dir, EXAMPLE_LINES)

    result = brief(cli)

    assert block_of(memory) == EXAMPLE_BLOCK
    assert "note: ANTHROPIC_API_KEY is not set" in result.stderr


def test_replaced_entries_never_appear(cli, design_log, memory):
    brief(cli, "--no-llm", night="2026-02-27T03:00:00Z")

    block = block_of(memory)
    assert "Queue-based retries for webhook delivery" not in block
    assert "1s, 5s, 15s" not in block
    got = sections(block)
    assert got["Recent Decisions"] == [
        "2026-02-26: Queue-based retries with dead-letter queue for permanent failures"]
    # the corrected fact carries no subject: it inherits the one of the entry it replaces
    assert got["Active"] == ["auth-migration — Exponential backoff intervals: 2s, 10s, 30s"]
    assert got["Pending"] == [
        "Write backfill script for 47 failed webhook jobs from last week (auth-migration)"]


# ---------------------------------------------------------------------------------------------
# one rule at a time


def test_active_is_busiest_then_most_recent_within_the_window(cli, log_dir, memory):
    write_log(log_dir, [
        entry("fact", "Old news", "2026-02-01", "gone"),  # outside the 14 days
        entry("fact", "Quiet but recent", "2026-02-23", "quiet"),
        entry("fact", "Quiet and older", "2026-02-12", "older"),
        entry("fact", "Busy one", "2026-02-15", "busy"),
        entry("fact", "Busy two", "2026-02-16", "busy"),
        entry("task", "Busy three", "2026-02-17", "busy", status="done"),
        entry("fact", "No subject at all", "2026-02-23"),
    ])

    brief(cli, "--no-llm")

    assert sections(block_of(memory))["Active"] == [
        "busy — Busy three (done)", "quiet — Quiet but recent", "older — Quiet and older"]


def test_recent_decisions_are_dated_and_windowed(cli, log_dir, memory):
    write_log(log_dir, [
        entry("decision", "Too old to be recent", "2026-02-16"),
        entry("decision", "Postgres for auth", "2026-02-19"),
        entry("decision", "Kept: Redis for sessions", "2026-02-23T22:10:00Z"),
        entry("fact", "Not a decision", "2026-02-23"),
    ])

    brief(cli, "--no-llm", "--decision-window", "5")

    assert sections(block_of(memory))["Recent Decisions"] == [
        "2026-02-23: Kept: Redis for sessions", "2026-02-19: Postgres for auth"]


def test_pending_lists_open_tasks_with_their_subject_the_quiet_ones_counted(cli, log_dir,
                                                                            memory):
    done_later = entry("task", "Rotate the API keys", "2025-06-01", "security")
    write_log(log_dir, [
        entry("task", "Renew the passport", "2024-03-01"),
        done_later,
        entry("task", "Rotate the API keys", "2026-02-20", "security", status="done",
              replaces=done_later["id"]),
        entry("task", "Already done", "2026-02-21", status="done"),
        entry("task", "Book the venue", "2026-02-22", "offsite"),
    ])

    brief(cli, "--no-llm")

    assert sections(block_of(memory))["Pending"] == ["Book the venue (offsite)"]
    assert block_of(memory).splitlines()[-1] == (
        "Quiet for more than 30 days: 1 open task (`zettelclaw review --quiet` closes or "
        "keeps them).")
    brief(cli, "--no-llm", "--quiet-after", "1000")
    assert sections(block_of(memory))["Pending"] == [
        "Book the venue (offsite)", "Renew the passport"]


def test_a_hand_written_subject_that_is_no_name_is_briefed_as_none(cli, log_dir, memory):
    # a line written by hand with "subject": 42, then corrected without a subject: the
    # correction inherits no subject (the brief crashed sorting 42 among the names)
    lease = entry("task", "Renew the lease", "2026-02-20", subject=42)
    write_log(log_dir, [
        lease,
        entry("task", "Call the plumber", "2026-02-21", "house"),
        entry("task", "Renew the lease before March", "2026-02-22", replaces=lease["id"]),
    ])

    brief(cli, "--no-llm")

    assert sorted(sections(block_of(memory))["Pending"]) == [
        "Call the plumber (house)", "Renew the lease before March"]


def test_open_questions_close_when_a_decision_or_fact_replaces_them(cli, log_dir, memory):
    answered = entry("question", "Postgres or MySQL?", "2026-01-05", "db")
    learned = entry("question", "Who owns the canary?", "2026-01-06", "deploy")
    reworded = entry("question", "Is the budget approved?", "2026-01-07")
    write_log(log_dir, [
        entry("question", "Should we move to Hetzner?", "2025-01-10", "hosting"),
        answered, learned, reworded,
        entry("decision", "Postgres", "2026-02-01", "db", replaces=answered["id"]),
        entry("fact", "Max owns the canary", "2026-02-02", "deploy", replaces=learned["id"]),
        entry("question", "Is the Q2 budget approved?", "2026-02-03",
              replaces=reworded["id"]),
    ])

    brief(cli, "--no-llm", "--quiet-after", "1000")

    assert sections(block_of(memory))["Open Questions"] == [
        "Is the Q2 budget approved?", "Should we move to Hetzner? (hosting)"]


def test_open_loops_that_matter_today_come_first_not_only_the_newest(cli, log_dir, memory):
    write_log(log_dir, [
        entry("task", "Write the backfill script", "2026-02-02", "auth-migration"),
        entry("question", "Is 10k/min enough?", "2026-02-03", "auth-migration"),
        entry("task", "Draft the V3 spec", "2026-02-05", "zettelclaw"),
        *[entry("fact", f"Spec detail {n}", f"2026-02-{10 + n}", "zettelclaw")
          for n in range(5)],
        *[entry("task", f"Errand {n}", f"2026-02-{18 + n}", f"errand-{n}") for n in range(4)],
        entry("question", "Which paint colour?", "2026-02-21", "house"),
        entry("handoff", "Auth migration: the backfill comes next", "2026-02-23",
              "auth-migration"),
    ])

    brief(cli, "--no-llm")

    got = sections(block_of(memory))
    # the handoff's subject first, then the busiest subject, then the newest
    assert got["Pending"] == [
        "Write the backfill script (auth-migration)", "Draft the V3 spec (zettelclaw)",
        "Errand 3 (errand-3)", "Errand 2 (errand-2)", "Errand 1 (errand-1)",
        "Errand 0 (errand-0)"]
    assert got["Open Questions"] == ["Is 10k/min enough? (auth-migration)",
                                     "Which paint colour? (house)"]


def test_pending_and_open_questions_spread_over_the_active_subjects(cli, log_dir, memory):
    # the latest handoff's subject is the busiest, with 14 open tasks and 14 questions; three
    # other subjects each have a few open loops of the last days
    busy = "shop-relaunch"
    lines = [entry("task", f"Relaunch step {n}", f"2026-02-{10 + n % 12:02d}T0{n % 9}:00:00Z",
                   busy, session=f"b{n}") for n in range(14)]
    lines += [entry("question", f"Relaunch question {n}", f"2026-02-{10 + n % 12:02d}T1{n % 9}"
                    ":00:00Z", busy, session=f"q{n}") for n in range(14)]
    for subject in ("garden", "tax-return", "bike"):
        lines += [entry("task", f"{subject} task {n}", f"2026-02-1{n}", subject,
                        session=f"{subject}{n}") for n in range(3)]
        lines.append(entry("question", f"{subject} question", "2026-02-15", subject,
                           session=f"{subject}q"))
    lines.append(entry("handoff", "Relaunch: the checkout is next", "2026-02-23", busy))
    write_log(log_dir, lines)

    brief(cli, "--no-llm", "--max-lines", "30")

    block = block_of(memory)
    got = sections(block)
    for heading in ("Pending", "Open Questions"):
        shown = {item.rsplit("(", 1)[1].rstrip(")") for item in got[heading]}
        assert shown == {busy, "garden", "tax-return", "bike"}, heading
        assert got[heading][0].endswith(f"({busy})")  # the handoff's subject still first
    # what was left out is counted by subject: nothing silently lost
    last = block.splitlines()[-1]
    assert last.startswith("Not shown (30-line limit): ")
    assert f"more in {busy}" in last


def _busy_month() -> list[dict]:
    """A month of one subject's work, more open loops and facts than 80 lines hold."""
    out = []
    for n in range(60):
        when = f"2026-02-{1 + n % 23:02d}T{n % 24:02d}:00:00Z"
        kind = ("task", "question", "fact")[n % 3]
        out.append(entry(kind, f"Relaunch item {n}", when, "shop-relaunch", session=f"m{n}"))
    return out


def test_the_briefing_after_a_busy_month_lists_standing_preferences(cli, log_dir, memory):
    short = entry("fact", "I prefer short answers without bullet points.", "2026-01-20",
                  session="p1")
    port = entry("fact", "The VPN port is 51820", "2026-01-05", "office", session="v1")
    nas = entry("question", "Which NAS should we buy?", "2026-01-06", "homelab", session="n1")
    write_log(log_dir, [
        short,
        entry("fact", "I use metric units, never imperial ones.", "2026-01-21", session="p2"),
        entry("fact", "No meetings before ten in the morning for me.", "2026-01-22",
              session="p3"),
        # said again in more words: one current entry, which has stood since January
        entry("fact", "Short answers without bullet points, always.", "2026-02-01",
              session="p4", replaces=short["id"]),
        port, entry("fact", "The VPN port moved to 51900", "2026-01-25", "office",
                    session="v2", replaces=port["id"]),
        # a fact said once about one thing, and a question answered: no standing facts
        entry("fact", "The NAS has four bays", "2026-01-08", "homelab", session="n2"),
        nas, entry("fact", "We bought a Synology DS923", "2026-01-10", "homelab",
                   session="n3", replaces=nas["id"]),
        *_busy_month(),
    ])

    brief(cli, "--no-llm")

    block = block_of(memory)
    assert len(block.splitlines()) <= 80
    assert sections(block)["Standing"] == [
        "Short answers without bullet points, always.",  # about the person, said again
        "I use metric units, never imperial ones.",  # about the person, the oldest first
        "No meetings before ten in the morning for me.",
        "The VPN port moved to 51900 (office)"]  # a fact of one thing, said again


def test_standing_is_a_short_list_and_says_where_the_rest_are(cli, log_dir, memory):
    write_log(log_dir, [entry("fact", f"Habit number {n}", f"2026-01-{1 + n:02d}",
                              session=f"h{n}") for n in range(14)])

    brief(cli, "--no-llm")

    block = block_of(memory)
    assert sections(block)["Standing"] == [f"Habit number {n}" for n in range(10)]
    assert block.splitlines()[-1] == ("Not shown (80-line limit): 4 standing preferences and "
                                      "facts (`zettelclaw search --type fact`).")


def test_a_loop_untouched_for_long_leaves_the_lists_for_one_counted_line(cli, zc_env, log_dir,
                                                                         memory):
    write_log(log_dir, [
        entry("task", "Prune the apple tree", "2025-12-01", "garden"),
        entry("task", "Renew the TLS cert", "2025-12-02", "homelab"),
        entry("fact", "The homelab runs Proxmox 8", "2026-02-20", "homelab"),  # touched
        entry("question", "Should we move to Hetzner?", "2025-11-10"),
        entry("question", "Who owns the canary?", "2026-02-22", "deploy"),
    ])

    brief(cli, "--no-llm")

    block = block_of(memory)
    got = sections(block)
    assert got["Pending"] == ["Renew the TLS cert (homelab)"]
    assert got["Open Questions"] == ["Who owns the canary? (deploy)"]
    assert block.splitlines()[-1] == (
        "Quiet for more than 30 days: 1 open task, 1 open question (`zettelclaw review "
        "--quiet` closes or keeps them).")
    # the log never decays: both are still open, and the setting brings them back
    assert len(cli.lines("search", "--type", "task", "--status", "open", "--json")) == 2
    write_config(zc_env, {"quietAfter": 120})
    brief(cli, "--no-llm")
    got = sections(block_of(memory))
    assert "Prune the apple tree (garden)" in got["Pending"]
    assert "Should we move to Hetzner?" in got["Open Questions"]
    assert "Quiet for" not in block_of(memory)


def test_stale_is_a_subject_back_this_week_after_a_long_silence(cli, log_dir, memory):
    write_log(log_dir, [
        entry("fact", "Whisper runs locally", "2026-01-08", "whisper-stt"),  # 46 days of
        entry("fact", "Whisper mentioned again", "2026-02-23", "whisper-stt"),  # silence
        entry("fact", "Garden plan", "2026-01-30", "garden"),  # 22 days: not stale
        entry("fact", "Garden again", "2026-02-21", "garden"),
        entry("fact", "Piano teacher", "2025-12-01", "piano"),  # back 10 days ago: not
        entry("fact", "Piano again", "2026-02-14", "piano"),  # this week
        entry("fact", "Brand new subject", "2026-02-23", "kayak"),  # no silence: new
    ])

    brief(cli, "--no-llm")
    got = sections(block_of(memory))
    assert got["Stale"] == ["whisper-stt — last entry 2026-01-08, referenced in recent session"]
    assert not any(line.startswith("whisper-stt") for line in got["Active"])

    brief(cli, "--no-llm", "--stale-threshold", "20")
    assert [line.split(" ")[0] for line in sections(block_of(memory))["Stale"]] == [
        "whisper-stt", "garden"]


def test_empty_log_says_so(cli, memory):
    brief(cli, "--no-llm")
    assert block_of(memory) == ("Nothing to brief yet: no recent activity, open tasks or open "
                                "questions in the log.")


# ---------------------------------------------------------------------------------------------
# contradictions


def test_a_judged_pair_is_shown_that_night_and_never_asked_again(cli, fake_anthropic, log_dir,
                                                                  memory):
    write_log(log_dir, EXAMPLE_LINES)
    fake_anthropic.reply("1: yes")
    brief(cli)
    brief(cli, night="2026-02-24T09:00:00Z")  # a second run the same night
    assert CONTRADICTION in block_of(memory)
    assert len(fake_anthropic.message_requests) == 1

    brief(cli, night="2026-02-25T03:00:00Z")  # the next night: flagged once is enough
    assert "## Contradictions" not in block_of(memory)
    assert len(fake_anthropic.message_requests) == 1


def test_the_contradiction_check_counts_in_stats_tokens(cli, fake_anthropic, log_dir, memory):
    write_log(log_dir, EXAMPLE_LINES)
    fake_anthropic.reply("1: no")
    brief(cli)
    tokens = cli.lines("stats", "--json")[0]["tokens"]
    assert tokens["briefings"] == 1 and tokens["extractions"] == 0
    assert tokens["input"] > 0 and tokens["output"] > 0


def test_a_pair_judged_consistent_is_not_asked_again(cli, fake_anthropic, log_dir, memory):
    write_log(log_dir, EXAMPLE_LINES)
    fake_anthropic.reply("1: no")
    brief(cli)
    brief(cli, night="2026-02-25T03:00:00Z")

    assert "## Contradictions" not in block_of(memory)
    assert len(fake_anthropic.message_requests) == 1
    assert state(log_dir)["contradictions"]["oLdRetries01>nEwRetries01"] is False


def test_judged_pairs_are_forgotten_once_no_night_can_ask_about_them_again(
        cli, fake_anthropic, log_dir, memory):
    vpn_then = entry("fact", "The VPN listens on port 1194", "2026-01-10", "vpn", session="v1")
    vpn_now = entry("fact", "The VPN listens on port 443 now", "2026-03-14", "vpn", session="v2")
    write_log(log_dir, [*EXAMPLE_LINES, vpn_then, vpn_now])
    fake_anthropic.reply("1: no")
    brief(cli)
    assert list(state(log_dir)["contradictions"]) == ["oLdRetries01>nEwRetries01"]

    fake_anthropic.reply("1: no")
    brief(cli, night="2026-03-15T03:00:00Z")  # the retries pair left the 14-day window

    assert list(state(log_dir)["contradictions"]) == [f"{vpn_then['id']}>{vpn_now['id']}"]
    assert len(fake_anthropic.message_requests) == 2


def test_at_most_three_flags_a_night_and_the_rest_wait(cli, fake_anthropic, log_dir, memory):
    lines = []
    for n in range(5):
        lines.append(entry("fact", f"Service {n} retries webhook calls {n + 2} times",
                           "2026-01-10", "webhooks", session=f"old{n}"))
        lines.append(entry("fact", f"Service {n} retries webhook calls {n + 7} times",
                           "2026-02-22", "webhooks", session=f"new{n}"))
    write_log(log_dir, lines)
    fake_anthropic.reply("\n".join(f"{n}: yes" for n in range(1, 13)))

    brief(cli)

    assert len(sections(block_of(memory))["Contradictions"]) == 3
    flagged = [k for k, v in state(log_dir)["contradictions"].items() if v]
    assert len(flagged) == 3

    fake_anthropic.reply("\n".join(f"{n}: yes" for n in range(1, 13)))
    brief(cli, night="2026-02-25T03:00:00Z")
    shown = sections(block_of(memory))["Contradictions"]
    assert len(shown) == 3  # the next night brings the ones that waited
    keys = {k for k, v in state(log_dir)["contradictions"].items() if v}
    assert len(keys) == 6


def test_an_answer_in_another_shape_flags_nothing(cli, fake_anthropic, log_dir, memory):
    write_log(log_dir, EXAMPLE_LINES)
    fake_anthropic.default.text = "## Active\n- webhooks — queue-based retries decided\n"

    result = brief(cli)

    assert block_of(memory) == EXAMPLE_BLOCK
    assert "not in the expected form" in result.stderr
    assert "contradictions" not in state(log_dir)  # not judged: asked again tomorrow


def test_a_model_that_fails_still_gets_the_briefing_written(cli, fake_anthropic, log_dir,
                                                             memory, monkeypatch):
    monkeypatch.setenv("ZETTELCLAW_MODEL_RETRIES", "1")
    fake_anthropic.default = None  # every request: HTTP 500
    write_log(log_dir, EXAMPLE_LINES)

    result = brief(cli)

    assert block_of(memory) == EXAMPLE_BLOCK
    assert "warning: contradiction check skipped" in result.stderr


def test_no_candidates_no_model_call(cli, fake_anthropic, log_dir, memory):
    write_log(log_dir, [entry("fact", "Max starts Monday", "2026-02-23", "max"),
                        entry("fact", "The office moves in May", "2026-01-03", "max",
                              session="s0")])
    brief(cli)
    assert fake_anthropic.message_requests == []


def _template_month(subject: str, display: str, night_of_change: str) -> list[dict]:
    """A busy subject's month: facts in one template ("The <qualifier> build pipeline for
    <display> has a <n> day review cycle") said in many conversations, most words shared by
    all; then, on the night's day, the newer half of them and the VPN port changed (fewer
    words shared, but the words that name it)."""
    qualifiers = ("staging", "nightly", "canary", "mobile", "partner", "audit", "export")
    others = ("search", "legacy", "upload", "replica", "import", "invoice", "public")
    lines = [entry("fact", f"The VPN port for {display} is 51820", "2026-01-05", subject,
                   session="vpn-then", id="vpnPortThen1")]
    for n, qualifier in enumerate(qualifiers):
        lines.append(entry("fact", f"The {qualifier} build pipeline for {display} has a "
                           f"{10 + n} day review cycle", f"2026-01-{6 + n:02d}", subject,
                           session=f"old{n}"))
    for n, other in enumerate(others):
        lines.append(entry("fact", f"The {other} build pipeline for {display} has a "
                           f"{40 + n} day review cycle", f"{night_of_change}T0{n % 9}:00:00Z",
                           subject, session=f"new{n}"))
    lines.append(entry("fact", f"We moved the VPN of {display} to port 51900",
                       f"{night_of_change}T10:00:00Z", subject, session="vpn-now",
                       id="vpnPortNow01"))
    return lines


def test_the_nights_judging_goes_to_the_pair_about_the_same_named_thing(
        cli, fake_anthropic, log_dir, memory):
    # 7 new template facts against 7 old ones (49 pairs, each of two different pipelines) share
    # more words than the two VPN sentences do; the words they share are the template's
    write_log(log_dir, _template_month("office-network", "Office Network", "2026-02-23"))
    fake_anthropic.reply("1: yes")

    brief(cli)

    (request,) = fake_anthropic.message_requests
    first_pair = request.user_text.split("\n2. ")[0]
    assert "is 51820" in first_pair and "port 51900" in first_pair
    assert sections(block_of(memory))["Contradictions"] == [
        'office-network: "The VPN port for Office Network is 51820" (2026-01-05, '
        'vpnPortThen1) may conflict with "We moved the VPN of Office Network to port 51900" '
        '(2026-02-23, vpnPortNow01)']


def _review_cycles(*latest: tuple[str, int]) -> list[dict]:
    """An ops subject whose facts share one sentence template, a thing and a number in it;
    then, on the night's day, ``latest`` (thing, days) said in another conversation."""
    lines = [entry("fact", f"The {thing} gets a {days} day review cycle", f"2026-01-{n + 5:02d}",
                   "ops", session=f"old{n}")
             for n, (thing, days) in enumerate((("refund flow", 27), ("login page", 30),
                                                ("backup job", 12)))]
    return lines + [entry("fact", f"The {thing} gets a {days} day review cycle",
                          f"2026-02-23T1{n}:00:00Z", "ops", session=f"new{n}")
                    for n, (thing, days) in enumerate(latest)]


def test_two_things_sharing_a_template_are_not_a_contradiction(cli, fake_anthropic, log_dir,
                                                               memory):
    write_log(log_dir, _review_cycles(("DNS records", 17)))
    fake_anthropic.reply("1: yes\n2: yes\n3: yes")

    brief(cli)

    assert fake_anthropic.message_requests == []  # no pair of two things goes to the model
    assert "Contradictions" not in sections(block_of(memory))


def test_one_thing_of_a_template_given_another_value_is_still_asked_about(
        cli, fake_anthropic, log_dir, memory):
    write_log(log_dir, _review_cycles(("DNS records", 17), ("refund flow", 14)))
    fake_anthropic.reply("1: yes")

    brief(cli)

    (request,) = fake_anthropic.message_requests
    assert request.user_text.count("subject: ops") == 1
    assert "refund flow gets a 27" in request.user_text
    assert "refund flow gets a 14" in request.user_text
    (flag,) = sections(block_of(memory))["Contradictions"]
    assert flag.startswith('ops: "The refund flow gets a 27 day review cycle"')


def test_a_fact_said_again_in_the_same_words_is_not_asked_about(cli, fake_anthropic, log_dir,
                                                                memory):
    write_log(log_dir, [
        entry("fact", "The backup runs at 02:00 on the NAS", "2026-01-10", "homelab",
              session="s0"),
        entry("fact", "The backup runs at 02:00 on the NAS.", "2026-02-23", "homelab"),
    ])
    brief(cli)
    assert fake_anthropic.message_requests == []


def test_judged_pairs_are_kept_short_and_go_with_a_forgotten_entry(cli, zc, fake_anthropic,
                                                                   log_dir, memory):
    write_log(log_dir, EXAMPLE_LINES)
    fake_anthropic.reply("1: no")
    brief(cli)
    assert state(log_dir)["contradictions"] == {"oLdRetries01>nEwRetries01": False}

    assert zc("forget", "--yes", "oLdRetries01").returncode == 0
    brief(cli, "--no-llm", night="2026-02-24T09:00:00Z")

    assert state(log_dir).get("contradictions", {}) == {}


def test_a_judged_pair_goes_with_a_purged_entry(cli, fake_anthropic, log_dir, memory):
    write_log(log_dir, EXAMPLE_LINES)
    fake_anthropic.reply("1: yes")
    brief(cli)
    assert list(state(log_dir)["contradictions"]) == ["oLdRetries01>nEwRetries01"]

    assert cli("purge", "nEwRetries01", "--yes").exit_code == 0
    brief(cli, "--no-llm", night="2026-02-24T09:00:00Z")

    assert state(log_dir).get("contradictions", {}) == {}
    assert "## Contradictions" not in block_of(memory)


def test_a_pair_judged_by_an_earlier_version_is_still_not_asked_again(cli, fake_anthropic,
                                                                      log_dir, memory):
    write_log(log_dir, EXAMPLE_LINES)
    (log_dir / "state.json").write_text(json.dumps({"contradictions": {
        "oLdRetries01>nEwRetries01": {"judgedAt": "2026-02-23T03:00:00Z", "conflict": False}}}))

    brief(cli)

    assert fake_anthropic.message_requests == []
    assert "## Contradictions" not in block_of(memory)


# ---------------------------------------------------------------------------------------------
# the line limit


def test_over_the_limit_the_oldest_go_and_a_line_says_where_they_are(cli, log_dir, memory):
    write_log(log_dir, [entry("task", f"Task number {n:03d}", f"2026-01-{1 + n % 28:02d}"
                              f"T{n % 24:02d}:00:00Z", "chores") for n in range(60)]
              + [entry("question", f"Question {n}", "2026-02-01") for n in range(3)])

    brief(cli, "--no-llm", "--max-lines", "20")

    block = block_of(memory)
    lines = block.splitlines()
    assert len(lines) == 20
    got = sections(block)
    assert got["Open Questions"] == ["Question 2", "Question 1", "Question 0"]
    shown = got["Pending"]
    left_out = 60 - len(shown)
    assert lines[-1] == (f"Not shown (20-line limit): {left_out} open tasks (+{left_out} more "
                         "in chores; `zettelclaw search --type task --status open`).")
    # what was kept are the newest; the search the line names lists every one of them
    dates = sorted((e["timestamp"], e["content"]) for e in
                   cli.lines("search", "--type", "task", "--status", "open", "--json"))
    assert len(dates) == 60
    assert sorted(t[:-len(" (chores)")] for t in shown) == sorted(c for _, c in
                                                                  dates[-len(shown):])


def test_sections_share_the_lines_fairly(cli, log_dir, memory):
    write_log(log_dir, [entry("task", f"Task {n}", "2026-02-01") for n in range(40)]
              + [entry("question", f"Question {n}", "2026-02-01") for n in range(40)]
              + [entry("decision", f"Decision {n}", "2026-02-22") for n in range(3)])

    brief(cli, "--no-llm", "--max-lines", "30")

    got = sections(block_of(memory))
    assert len(got["Recent Decisions"]) == 3  # small sections stay whole
    assert abs(len(got["Pending"]) - len(got["Open Questions"])) <= 1
    assert len(block_of(memory).splitlines()) == 30


def test_config_sets_the_knobs_and_flags_override(cli, zc_env, log_dir, memory):
    write_log(log_dir, [entry("decision", "Ten days ago", "2026-02-14"),
                        entry("decision", "Yesterday", "2026-02-23")])
    write_config(zc_env, {"decisionWindow": 12, "maxLines": 40})
    brief(cli, "--no-llm")
    assert len(sections(block_of(memory))["Recent Decisions"]) == 2
    brief(cli, "--no-llm", "--decision-window", "3")
    assert sections(block_of(memory))["Recent Decisions"] == ["2026-02-23: Yesterday"]


def test_a_bad_config_value_is_one_line_and_changes_nothing(cli, zc_env, log_dir, memory):
    write_config(zc_env, {"maxLines": "lots"})
    memory.write_text("notes\n")
    result = cli("brief", "--no-llm")
    assert result.exit_code == 1
    assert result.stderr == ("Error: briefing.maxLines='lots' in the plugin config must be a "
                             "whole number of lines, 1 to 36500\n")
    assert memory.read_text() == "notes\n"


# ---------------------------------------------------------------------------------------------
# MEMORY.md: nothing outside the markers moves


@pytest.mark.parametrize("before, after", [
    ("## Goals\r\n- ship ✓\r\n", "\r\nNotes après\r\n"),        # CRLF, unicode
    ("# Mémoire 🧠\n\n", "trailing text, no final newline"),     # no final newline
    ("", ""),                                                    # only the markers
    ("x" * 3 + "\n", "\n\n\n"),
])
def test_everything_outside_the_markers_is_byte_identical(cli, log_dir, memory, before, after):
    write_log(log_dir, EXAMPLE_LINES)
    data = (before + BEGIN + "\nold block\n" + END + after).encode()
    if "\r\n" in before:
        data = (before + BEGIN + "\r\nold block\r\n" + END + after).encode()
    memory.write_bytes(data)

    brief(cli, "--no-llm")

    new = memory.read_bytes()
    head, rest = new.split(BEGIN.encode())
    inside, tail = rest.split(END.encode())
    assert head == before.encode() and tail == after.encode()
    assert b"old block" not in inside and b"## Active" in inside
    if "\r\n" in before:  # the block follows the file's line ending
        assert inside.count(b"\r\n") == inside.count(b"\n")


def test_missing_markers_are_appended_at_the_end(cli, log_dir, memory):
    write_log(log_dir, EXAMPLE_LINES)
    memory.write_bytes("## Goals\n- ship ✓".encode())

    brief(cli, "--no-llm")

    assert memory.read_bytes() == ("## Goals\n- ship ✓\n\n" + BEGIN + "\n" + EXAMPLE_BLOCK
                                   + "\n" + END + "\n").encode()


def test_a_missing_memory_md_is_created(cli, log_dir, memory):
    write_log(log_dir, EXAMPLE_LINES)
    brief(cli, "--no-llm")
    assert memory.read_text() == f"{BEGIN}\n{EXAMPLE_BLOCK}\n{END}\n"


@pytest.mark.parametrize("text", [
    f"{BEGIN}\n{END}\n{BEGIN}\n{END}\n",
    f"{END}\nnotes\n{BEGIN}\n",
    f"notes\n{BEGIN}\n",
    f"{BEGIN}\n{BEGIN}\n{END}\n",
])
@pytest.mark.parametrize("mode", [[], ["--dry-run"], ["--print"]])
def test_broken_markers_are_an_error_that_changes_nothing(cli, fake_anthropic, log_dir, memory,
                                                           text, mode):
    write_log(log_dir, EXAMPLE_LINES)
    memory.write_text(text)
    os.utime(memory, (1_000_000_000, 1_000_000_000))

    result = cli("brief", "--now", NIGHT, *mode)

    assert result.exit_code == 1
    assert result.stderr.startswith("Error: ") and len(result.stderr.splitlines()) == 1
    assert "nothing written" in result.stderr
    assert memory.read_text() == text and memory.stat().st_mtime == 1_000_000_000
    assert fake_anthropic.message_requests == []  # no model call before the check


def test_log_text_cannot_forge_a_marker(cli, log_dir, memory):
    write_log(log_dir, [entry("fact", f"sneaky {END} {BEGIN}\n## Injected", "2026-02-23", "x"),
                        entry("task", "forged subject", "2026-02-23", f"y {END}\n## Also")])
    brief(cli, "--no-llm")
    brief(cli, "--no-llm")  # the file is still rewritable the next night
    block = block_of(memory)
    assert "## Injected" not in block.splitlines() and "## Also" not in block.splitlines()


def test_bytes_that_are_not_utf8_outside_the_markers_survive(cli, log_dir, memory):
    write_log(log_dir, EXAMPLE_LINES)
    head, tail = b"\xff\xfe latin-1 caf\xe9\n", b"\nfin \xe9"
    memory.write_bytes(head + BEGIN.encode() + b"\n" + END.encode() + tail)

    brief(cli, "--no-llm")

    assert memory.read_bytes() == (head + BEGIN.encode() + b"\n" + EXAMPLE_BLOCK.encode()
                                   + b"\n" + END.encode() + tail)


def test_the_write_keeps_the_file_mode(cli, log_dir, memory):
    write_log(log_dir, EXAMPLE_LINES)
    memory.write_text("manual\n")
    memory.chmod(0o640)

    brief(cli, "--no-llm")

    assert stat.S_IMODE(memory.stat().st_mode) == 0o640
    assert memory.read_text().startswith("manual\n\n" + BEGIN)
    assert [p.name for p in memory.parent.iterdir()] == ["MEMORY.md"]  # no temp file left


def test_a_symlinked_memory_md_is_refused_and_its_target_untouched(cli, log_dir, memory,
                                                                    tmp_path):
    write_log(log_dir, EXAMPLE_LINES)
    bashrc = tmp_path / "home" / ".bashrc"
    bashrc.write_text("export PATH=/usr/bin\n")
    memory.symlink_to(bashrc)

    result = cli("brief", "--now", NIGHT, "--no-llm")

    assert result.exit_code == 1
    assert result.stderr.count("Error:") == 1 and "MEMORY.md is a symlink" in result.stderr
    assert "Traceback" not in result.stderr
    assert bashrc.read_text() == "export PATH=/usr/bin\n"
    assert memory.is_symlink()


def test_a_dangling_memory_md_link_creates_nothing(cli, log_dir, memory, tmp_path):
    write_log(log_dir, EXAMPLE_LINES)
    target = tmp_path / "elsewhere" / "deep" / "MEMORY.md"
    memory.symlink_to(target)

    result = cli("brief", "--now", NIGHT, "--no-llm")

    assert result.exit_code == 1 and "is a symlink" in result.stderr
    assert not (tmp_path / "elsewhere").exists()


# ---------------------------------------------------------------------------------------------
# --dry-run and --print


def test_dry_run_prints_a_diff_and_writes_nothing(cli, fake_anthropic, log_dir, memory):
    write_log(log_dir, EXAMPLE_LINES)
    memory.write_text(MANUAL + f"{BEGIN}\nyesterday\n{END}\n")
    fake_anthropic.reply("1: yes")

    result = brief(cli, "--dry-run")

    assert result.stdout.startswith(f"--- {memory}\n+++ {memory}\n@@ ")
    assert "-yesterday\n" in result.stdout and "+## Active\n" in result.stdout
    assert f"+{CONTRADICTION}\n" in result.stdout
    assert memory.read_text() == MANUAL + f"{BEGIN}\nyesterday\n{END}\n"
    assert state(log_dir) == {}  # the judgment is not remembered either

    fake_anthropic.reply("1: yes")
    brief(cli)
    fake_anthropic.reply("1: yes")
    again = brief(cli, "--dry-run")
    assert again.stdout == ""
    assert "No change" in again.stderr


def test_print_shows_the_block_only(cli, log_dir, memory):
    write_log(log_dir, EXAMPLE_LINES)
    memory.write_text("manual\n")

    result = brief(cli, "--no-llm", "--print")

    assert result.stdout == EXAMPLE_BLOCK + "\n"
    assert memory.read_text() == "manual\n"


def test_dry_run_and_print_together_is_a_usage_error(cli):
    result = cli("brief", "--dry-run", "--print")
    assert result.exit_code == 2
    assert result.stderr.startswith("Error: ")


def test_a_second_run_reports_no_change(cli, log_dir, memory):
    write_log(log_dir, EXAMPLE_LINES)
    brief(cli, "--no-llm")
    before = memory.stat().st_mtime_ns
    result = brief(cli, "--no-llm")
    assert "Briefing unchanged" in result.stderr
    assert memory.stat().st_mtime_ns == before

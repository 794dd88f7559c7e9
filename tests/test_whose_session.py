"""Issue 39 (points 1, 3, 9): where it is not known to be the owner, it is not the owner.

The owner said "The falcon budget is 40k" in the main session, and the agent fetched a web
page whose IBAN waits, untrusted, for the owner's confirmation. Then a Telegram group, a
Discord channel, a mail-reading hook, a cron job, a sub-agent, a key that is not one, and a
tool call with no key at all ask the memory tools: none of them gets any of the owner's memory
or changes it. A 2026.2 direct-message transcript that ``/new`` rotated stays its person's (the
key state.json recorded), and one whose key nobody knows is nobody's to serve. On 2026.9 a user
message is the owner's only when its ``senderIsOwner`` is exactly true."""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime, timedelta, timezone

import pytest

from tests.test_people import BUDGET, WEB, _lines, read_log

MAIN = "agent:main:main"
NEIGHBOUR = "agent:main:telegram:direct:555"
GROUP = "agent:main:telegram:group:-100123"
DAY = datetime(2026, 11, 20, 9, 0, tzinfo=timezone.utc)
NOT_THE_OWNERS = [
    GROUP,  # a Telegram group
    "agent:main:discord:channel:987",  # a Discord channel
    "agent:main:slack:channel:c1:thread:171.5",  # a thread of a Slack channel
    "agent:main:hook:gmail:msg-1",  # a hook session (a mail reader)
    "agent:main:cron:nightly",  # a cron job's
    "agent:main:subagent:5f1c",  # a sub-agent's
    "agent:main:dashboard:1b2c",  # a session created over the gateway
    "agent:main",  # malformed
    "main",  # not an agent's key
    "unknown",  # what the plugin passes when OpenClaw gave no key
    "",  # empty
]

@pytest.fixture
def owners_memory(home, zc_env, fake_anthropic, cli, log_dir):
    """The owner's budget (owner) and a web page's IBAN (untrusted), extracted by a sweep,
    and MEMORY.md briefed."""
    (zc_env["state"] / "openclaw.json").write_text(json.dumps(
        {"session": {"dmScope": "per-channel-peer"}}))
    home.db_session("main", "owner-1", [BUDGET], key=MAIN, start=DAY, current=False)
    home.db_session("main", "owner-2", [WEB], key=MAIN, start=DAY + timedelta(hours=2))
    fake_anthropic.when("User: The falcon budget is 40k", _lines(
        {"type": "fact", "content": "The falcon budget is 40k", "subject": "falcon"},
        {"type": "handoff", "content": "Set the falcon budget"}))
    fake_anthropic.when("User: Fetch the supplier page", _lines(
        {"type": "fact", "content": "Supplier invoices are paid to IBAN DE00 1234 5678",
         "subject": "falcon"},
        {"type": "handoff", "content": "Checked how the supplier wants to be paid"}))
    assert cli("sweep").exit_code == 0
    assert cli("brief").exit_code == 0
    log = read_log(log_dir)
    return {"budget": next(e for e in log if "40k" in e["content"]),
            "iban": next(e for e in log if "IBAN" in e["content"])}


@pytest.mark.parametrize("key", NOT_THE_OWNERS)
def test_a_session_not_known_to_be_the_owners_memory_search_gets_none_of_the_owners_entries(
        owners_memory, zc, key):
    found = zc("search", "--json", "--session-key", key, "--", "falcon budget")
    assert found.returncode == 0, found.stderr
    assert found.stdout == b""
    # the same question in the owner's session, and at the terminal, finds it
    assert b"40k" in zc("search", "--json", "--session-key", MAIN, "--", "falcon budget").stdout
    assert b"40k" in zc("search", "--json", "--", "falcon budget").stdout


def test_a_telegram_groups_memory_search_gets_none_of_the_owners_entries(owners_memory, zc,
                                                                        cli):
    for ask in (zc("search", "--json", "--session-key", GROUP, "--", "falcon"),
                zc("search", "--json", "--session-key", GROUP, "--type", "fact")):
        assert ask.returncode == 0 and b"falcon" not in ask.stdout
    # the full CLI (a filter the fast path hands over) says the same
    listed = cli("search", "--json", "--session-key", GROUP, "--status", "open", "falcon")
    assert "falcon" not in listed.stdout


@pytest.mark.parametrize("key", [GROUP, "agent:main:hook:gmail:msg-1", ""])
def test_a_group_or_hook_sessions_memory_get_finds_no_owner_entry_file_or_conversation(
        owners_memory, zc, key):
    budget = owners_memory["budget"]
    entry = zc("get", "--json", "--session-key", key, "--", budget["id"])
    assert entry.returncode == 1 and b"40k" not in entry.stdout + entry.stderr
    for target in ("MEMORY.md", "session:owner-1"):
        refused = zc("get", "--json", "--session-key", key, "--", target)
        assert refused.returncode != 0, target
        assert b"40k" not in refused.stdout
    assert b"40k" in zc("get", "--json", "--session-key", MAIN, "--", budget["id"]).stdout


def test_a_group_cannot_read_another_groups_conversation(home, zc):
    home.db_session("main", "grp-1", [[("other", "The door code is 2468."),
                                       ("assistant", "Noted.")]],
                    key="agent:main:telegram:group:-100999", start=DAY)
    for key in (GROUP, "agent:main:telegram:group:-100999"):
        asked = zc("get", "--json", "--session-key", key, "--", "session:grp-1")
        assert asked.returncode != 0 and b"2468" not in asked.stdout


@pytest.mark.parametrize("key", [GROUP, "agent:main:hook:gmail:msg-1", "agent:main:cron:x",
                                 "", "unknown"])
def test_a_group_or_hook_sessions_prompt_gets_no_handoff_and_no_recall(owners_memory, zc,
                                                                       key):
    before = zc("recall", "--handoff", "--text", "--session-key", key, "--",
                "How big is the falcon budget?")
    assert before.returncode == 0, before.stderr
    assert before.stdout.strip() == b""
    as_json = zc("recall", "--handoff", "--json", "--session-key", key, "--", "falcon budget")
    assert as_json.stdout.strip() == b"null"
    assert zc("handoff", "--text", "--session-key", key).stdout == b""
    owner = zc("recall", "--handoff", "--text", "--session-key", MAIN, "--",
               "How big is the falcon budget?")
    assert b"## Last Session Handoff" in owner.stdout
    assert b"Set the falcon budget" in owner.stdout


@pytest.mark.parametrize("key", [GROUP, "agent:main:hook:gmail:msg-1", "", "unknown"])
def test_review_confirm_from_a_group_or_hook_session_is_refused(owners_memory, cli, log_dir,
                                                                key):
    iban = owners_memory["iban"]
    refused = cli("review", "confirm", "--yes", "--session-key", key, iban["id"])
    assert refused.exit_code != 0
    assert "only the owner" in refused.stderr
    assert not any(e.get("replaces") == iban["id"] for e in read_log(log_dir))
    assert cli("review", "confirm", "--yes", "--session-key", MAIN, iban["id"]).exit_code == 0


def test_a_matrix_dm_from_a_look_alike_does_not_get_the_owners_handoff(owners_memory, zc,
                                                                        zc_env):
    (zc_env["state"] / "openclaw.json").write_text(json.dumps({
        "session": {"dmScope": "per-channel-peer"},
        "commands": {"ownerAllowFrom": ["@boss:matrix.org"]}}))
    owner = "agent:main:matrix:direct:@boss:matrix.org"
    look_alike = "agent:main:matrix:direct:@boss:evil.example"
    assert b"## Last Session Handoff" in zc("handoff", "--text", "--session-key", owner).stdout
    assert zc("handoff", "--text", "--session-key", look_alike).stdout == b""
    assert b"40k" not in zc("search", "--json", "--session-key", look_alike, "--",
                            "falcon budget").stdout


def test_an_irc_nick_named_like_the_owners_link_gets_none_of_the_owners_memory(
        owners_memory, zc, zc_env):
    (zc_env["state"] / "openclaw.json").write_text(json.dumps({
        "session": {"dmScope": "per-channel-peer", "identityLinks": {"me": ["telegram:42"]}},
        "commands": {"ownerAllowFrom": ["telegram:42"]}}))
    assert b"40k" in zc("search", "--json", "--session-key", "agent:main:telegram:direct:me",
                        "--", "falcon budget").stdout
    assert zc("search", "--json", "--session-key", "agent:main:irc:direct:me", "--",
              "falcon budget").stdout == b""


# -- point 3: a rotated 2026.2 direct-message transcript -------------------------------------

def _append_turns(path, session_id: str, turns, start: datetime) -> None:
    """More of a 2026.2 conversation, written to its transcript after what is there."""
    from tests.openclaw_home import _Events

    last = json.loads(path.read_text().splitlines()[-1])
    events = _Events(session_id, start, timedelta(seconds=40))
    events.legacy = True
    events.parent = last["id"]
    events.conversation(turns)
    with open(path, "a") as fh:
        fh.write("".join(json.dumps(e) + "\n" for e in events.events))


def _rotate(home, path, key: str):
    """What 2026.2's /new does: the transcript renamed ``.reset.<time>``, the key's store
    entry pointing at a new session."""
    rotated = path.with_name(path.name + ".reset.2026-11-21T12-00-00.000Z")
    path.rename(rotated)
    store_path = home._store("main")
    store = json.loads(store_path.read_text())
    store[key] = {"sessionId": "after-new", "updatedAt": 0, "chatType": "direct"}
    store_path.write_text(json.dumps(store))
    return rotated


def test_a_rotated_direct_message_stays_hers_by_the_key_state_json_recorded(
        home, zc_env, fake_anthropic, cli, zc, log_dir, monkeypatch):
    (zc_env["state"] / "openclaw.json").write_text(json.dumps(
        {"session": {"dmScope": "per-channel-peer"}}))
    monkeypatch.setenv("ZETTELCLAW_NOW", "2026-11-20T10:00:00Z")  # the night's sweep
    path = home.jsonl_session("main", "neigh-2", [("user", "My sister visits in May."),
                                                  ("assistant", "Nice, May it is.")],
                              key=NEIGHBOUR, start=DAY)
    fake_anthropic.when("alarm code is 4711", _lines(  # (the later request shows the
        {"type": "fact", "content": "The alarm code is 4711"},  # earlier lines too)
        {"type": "handoff", "content": "Alarm code given"}))
    fake_anthropic.when("sister visits", _lines(
        {"type": "fact", "content": "Her sister visits in May"},
        {"type": "handoff", "content": "Sister visit in May"}))
    assert cli("sweep").exit_code == 0
    # she writes again the next day, then /new rotates the transcript
    _append_turns(path, "neigh-2", [("user", "Also: the alarm code is 4711, remember it."),
                                    ("assistant", "Remembered.")], DAY + timedelta(days=1))
    _rotate(home, path, NEIGHBOUR)
    monkeypatch.setenv("ZETTELCLAW_NOW", "2026-11-22T10:00:00Z")
    assert cli("sweep").exit_code == 0, "the rotated rest of her conversation is swept"
    alarm = next(e for e in read_log(log_dir) if "4711" in e["content"])
    # (her own words: an origin is relative to the person whose memory it is)
    assert alarm["person"] == "telegram:555" and alarm["origin"] == "owner"
    before_owner = zc("recall", "--handoff", "--text", "--session-key", MAIN, "--",
                      "What is the alarm code?").stdout
    assert b"4711" not in before_owner and b"Alarm code given" not in before_owner
    assert cli("brief").exit_code == 0
    assert "4711" not in (zc_env["workspace"] / "MEMORY.md").read_text()


def test_a_rotated_transcript_whose_key_nobody_knows_is_not_the_owners(
        home, zc_env, fake_anthropic, cli, zc, log_dir):
    home.jsonl_session("main", "lost-1", [("user", "The alarm code is 4711, remember it."),
                                          ("assistant", "Remembered.")],
                       start=DAY, rotated=True)
    fake_anthropic.when("alarm code is 4711", _lines(
        {"type": "fact", "content": "The alarm code is 4711"},
        {"type": "handoff", "content": "Alarm code given"}))
    assert cli("sweep").exit_code == 0
    made = [e for e in read_log(log_dir) if e.get("session") == "lost-1"]
    assert made and all(e["person"] == "unknown:" and e["origin"] == "untrusted" for e in made)
    request = next(r for r in fake_anthropic.message_requests if "4711" in r.user_text)
    assert "Other person: The alarm code" in request.user_text
    for key in (MAIN, NEIGHBOUR, GROUP):
        before = zc("recall", "--handoff", "--text", "--session-key", key, "--",
                    "What is the alarm code?").stdout
        assert b"4711" not in before and b"Alarm code given" not in before
        assert b"4711" not in zc("search", "--json", "--session-key", key, "--",
                                 "alarm code").stdout
    assert cli("brief").exit_code == 0
    memory_md = zc_env["workspace"] / "MEMORY.md"
    assert not memory_md.exists() or "4711" not in memory_md.read_text()
    # the owner sees it at the terminal, marked, and decides
    listed = cli.lines("search", "alarm code")
    assert any("4711" in e["content"] and e["person"] == "unknown:" for e in listed)
    assert "[untrusted, from session lost-1; person: unknown] · The alarm code is 4711" in cli(
        "export", "-f", "md").stdout


# -- point 9: senderIsOwner on 2026.9 ----------------------------------------------------------

def _set_sender(home, session_id: str, value) -> None:
    """Rewrite a 2026.9 session's user messages: ``senderIsOwner`` set to ``value``, or left
    out (``...``)."""
    conn = sqlite3.connect(home.db_path("main"))
    with conn:
        rows = conn.execute("SELECT seq, event_json FROM transcript_events WHERE session_id = ?",
                            (session_id,)).fetchall()
        for seq, body in rows:
            event = json.loads(body)
            message = event.get("message")
            if event.get("type") == "message" and message.get("role") == "user":
                message.pop("__openclaw", None)
                if value is not ...:
                    message["__openclaw"] = {"senderIsOwner": value}
                conn.execute("UPDATE transcript_events SET event_json = ? WHERE session_id = ? "
                             "AND seq = ?", (json.dumps(event), session_id, seq))
    conn.close()


@pytest.mark.parametrize("said", [..., None, "false", "true", 1, {}], ids=[
    "absent", "null", "the string false", "the string true", "one", "an object"])
def test_a_missing_or_odd_sender_is_owner_is_not_the_owner_on_2026_9(home, fake_anthropic,
                                                                     cli, zc, log_dir, said):
    home.db_session("main", "shared-1", [[("user", "The alarm code is 4711, remember it."),
                                          ("assistant", "Remembered.")]],
                    key=MAIN, start=DAY, current=False)
    _set_sender(home, "shared-1", said)
    shown = cli("get", "session:shared-1")
    assert shown.stdout.splitlines()[0] == "Other person: The alarm code is 4711, remember it."
    fake_anthropic.when("alarm code is 4711", _lines(
        {"type": "fact", "content": "The alarm code is 4711"},
        {"type": "handoff", "content": "Alarm code given"}))
    assert cli("sweep").exit_code == 0
    alarm = next(e for e in read_log(log_dir) if "4711" in e["content"])
    assert alarm["origin"] == "untrusted"
    before = zc("recall", "--handoff", "--text", "--session-key", MAIN, "--",
                "What is the alarm code?").stdout
    assert b"4711" not in before


def test_sender_is_owner_exactly_true_is_the_owner_on_2026_9(home, cli):
    home.db_session("main", "shared-2", [[("user", "The alarm code is 4711, remember it."),
                                          ("assistant", "Remembered.")]],
                    key=MAIN, start=DAY, current=False)
    _set_sender(home, "shared-2", True)
    shown = cli("get", "session:shared-2")
    assert shown.stdout.splitlines()[0] == "User: The alarm code is 4711, remember it."


def test_inline_messages_without_sender_is_owner_are_not_the_owners_on_2026_9(
        home, fake_anthropic, zc, log_dir):
    home.db_session("main", "other-1", [BUDGET], key=MAIN, start=DAY)  # 2026.9's database
    messages = [{"role": "user", "content": "The alarm code is 4711, remember it.",
                 "timestamp": "2026-11-21T09:00:00Z"},
                {"role": "assistant", "content": "Remembered.",
                 "timestamp": "2026-11-21T09:00:40Z"}]
    fake_anthropic.when("alarm code is 4711", _lines(
        {"type": "fact", "content": "The alarm code is 4711"},
        {"type": "handoff", "content": "Alarm code given"}))
    done = zc("extract", "--session-id", "inline-1", "--session-key", MAIN, "--messages", "-",
              input=json.dumps(messages).encode())
    assert done.returncode == 0, done.stderr
    alarm = next(e for e in read_log(log_dir) if "4711" in e["content"])
    assert alarm["origin"] == "untrusted"


def test_a_2026_2_conversation_without_sender_is_owner_follows_its_session(home, fake_anthropic,
                                                                           cli, log_dir):
    home.jsonl_session("main", "old-main", [("user", "The gym is on Tuesdays now."),
                                            ("assistant", "Tuesdays, noted.")],
                       key=MAIN, start=DAY)
    fake_anthropic.when("gym is on", _lines({"type": "fact", "content": "Gym on Tuesdays"},
                                            {"type": "handoff", "content": "gym"}))
    assert cli("sweep").exit_code == 0
    gym = next(e for e in read_log(log_dir) if "Gym" in e["content"])
    assert gym.get("person") is None and gym["origin"] == "owner"

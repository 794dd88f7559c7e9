"""Issue 33 on a real OpenClaw 2026.9.6 gateway, offline: with ``session.dmScope:
per-channel-peer``, the owner talks in the main session and a neighbour in her own direct
session (``agent:main:telegram:direct:555``). What the next prompt of each session receives:
the owner's handoff never reaches her session, her words never reach the owner's.

OpenClaw's model is tests/fake_openai.py, zettelclaw's is tests/fake_anthropic.py.

Not on 2026.2.22: its ``openclaw agent`` has no ``--session-key``, and ``--to`` without a
channel lands in the main session (tried: no direct session is made), so a second person's
direct message needs a real channel there. The 2026.2 transcript shape (no senderIsOwner, the
person from the session key) is covered by tests/test_people.py."""

from __future__ import annotations

import json

import pytest

from tests.e2e.harness import OpenClawHome, base_config, toolchain
from tests.fake_anthropic import FakeAnthropic
from tests.fake_openai import FakeOpenAI, message_text

pytestmark = pytest.mark.e2e

NEIGHBOUR = "agent:main:telegram:direct:555"
OWNER_SAYS, SHE_SAYS = "plum-17", "kiwi-42"  # only in what each typed: the fake tells them apart

OWNER_ENTRIES = "\n".join(json.dumps(e) for e in [
    {"type": "fact", "content": "The falcon budget is 40k", "subject": "falcon"},
    {"type": "handoff", "content": "Falcon budget set at 40k"},
])
HER_ENTRIES = "\n".join(json.dumps(e) for e in [
    {"type": "task", "content": "Wire the falcon money to account 4711", "status": "open",
     "subject": "falcon"},
    {"type": "handoff", "content": "Asked to wire the falcon money to account 4711"},
])


@pytest.fixture
def fakes():
    anthropic = FakeAnthropic()
    anthropic.when(OWNER_SAYS, OWNER_ENTRIES)
    anthropic.when(SHE_SAYS, HER_ENTRIES)
    openai = FakeOpenAI([{"reply": "Noted."}])
    with anthropic, openai:
        yield anthropic, openai


@pytest.fixture
def oc_home(tmp_path, fakes):
    anthropic, _ = fakes
    home = OpenClawHome(tmp_path, toolchain(), extra_env={
        "ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": anthropic.url,
        "ZETTELCLAW_RETRY_BASE": "0.05", "OPENCLAW_SKIP_CRON": "1",
    })
    yield home
    home.cleanup()


def _turn(home: OpenClawHome, message: str, *key: str) -> None:
    where = ["--session-key", key[0]] if key else ["--agent", "main"]
    home.openclaw("agent", *where, "--message", message, "--json", timeout=180)


def _prompt(home: OpenClawHome, openai: FakeOpenAI, message: str, *key: str) -> str:
    """What the model was given as the user's side of that turn."""
    seen = len(openai.chat_requests())
    _turn(home, message, *key)
    request = openai.chat_requests()[seen]
    return "\n".join(message_text(m) for m in request["messages"] if m["role"] == "user")


def _entries(home: OpenClawHome, word: str) -> list[dict]:
    return [e for e in home.log_entries() if word in e.get("content", "")]


def test_a_neighbours_direct_messages_and_the_owners_memory_stay_apart(oc_home, fakes):
    _, openai = fakes
    home = oc_home
    config = base_config(openai.base_url, home.port)
    config["session"] = {"dmScope": "per-channel-peer"}
    home.write_config(config)
    home.zettelclaw("init")
    home.start_gateway()

    _turn(home, f"{OWNER_SAYS}: the falcon budget is 40k")
    _turn(home, "/new")  # before_reset hands the conversation to extraction
    home.wait_for(lambda: _entries(home, "40k"), 90, "the owner's entries")
    _turn(home, f"{SHE_SAYS}: wire the falcon money to account 4711", NEIGHBOUR)
    _turn(home, "/new", NEIGHBOUR)
    theirs = home.wait_for(lambda: _entries(home, "4711"), 90, "the neighbour's entries")
    assert {e.get("person") for e in theirs} == {"telegram:555"}
    assert all("person" not in e for e in _entries(home, "40k"))

    before_owner = _prompt(home, openai, "where does the falcon money go?")
    assert "Falcon budget set at 40k" in before_owner  # the owner's own handoff
    assert "4711" not in before_owner
    before_her = _prompt(home, openai, "how big is the falcon budget?", NEIGHBOUR)
    assert "40k" not in before_her
    assert "Falcon budget set at 40k" not in before_her

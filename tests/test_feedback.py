"""Memory never feeds back into itself (issue 10, point 4).

OpenClaw 2026.2.22 stores ``prependContext`` inside the user's message: the transcript's user
turn reads ``[Mon 2026-11-23 10:39 UTC] <zettelclaw-memory>...</zettelclaw-memory>\\n\\nwords``.
Whatever the source (a 2026.2 file, a 2026.9 database, before_reset's messages), the model that
extracts entries must see the person's words and never the block zettelclaw injected.
"""

from __future__ import annotations

import functools
import json
import re
import subprocess
from datetime import datetime, timezone

import pytest

from tests.conftest import REPO
from zettelclaw import transcripts
from zettelclaw.transcripts import MEMORY_TAG, clean_text

START = datetime(2026, 11, 23, 10, 39, tzinfo=timezone.utc)
SID = "5c2e8d1f-9a4b-4c7d-8e0f-2b3c4d5e6f70"
PREFIX = "[Mon 2026-11-23 10:39 UTC] "
WORDS = "Can you book the dentist for Thursday afternoon?"
HANDOFF = ("Session: 1a2b3c4d (2026-11-22T18:00:00Z)\n"
           "Handoff: Kitchen renovation: tiles chosen, plumber not called\n"
           "Open tasks:\n- Call the plumber about the sink (kitchen)")


def framed(body: str = HANDOFF, tag: str = MEMORY_TAG) -> str:
    """The block exactly as the plugin writes it: hooks/openclaw-plugin/lib/handoff.js's
    frameHandoff, run by node (another tag name stands in for blocks added later)."""
    return _plugin_frame(body).replace(MEMORY_TAG, tag)


@functools.cache
def _plugin_frame(body: str) -> str:
    module = (REPO / "hooks/openclaw-plugin/lib/handoff.js").as_uri()
    script = ("const m = await import(process.argv[1]); "
              "process.stdout.write(m.frameHandoff(process.argv[2]))")
    return subprocess.run(["node", "--input-type=module", "-e", script, module, body],
                          capture_output=True, text=True, check=True, timeout=60).stdout


# 2026.2.22 joins the hook's prependContext and the prompt with a blank line
STORED = PREFIX + framed() + "\n\n" + WORDS
REPLY = "Booked: Thursday 15:00 with Dr. Okafor."


def test_the_plugin_and_the_reader_name_the_same_tag():
    handoff_js = (REPO / "hooks/openclaw-plugin/lib/handoff.js").read_text()
    assert re.search(r'const TAG = "([^"]+)"', handoff_js).group(1) == MEMORY_TAG


@pytest.mark.parametrize("raw", [
    STORED,
    framed() + "\n\n" + WORDS,  # no channel prefix
    PREFIX + framed() + "\n\n" + framed(tag="zettelclaw-recall") + "\n\n" + WORDS,  # any block
    PREFIX + framed().upper().replace(HANDOFF.upper(), HANDOFF) + "\n\n" + WORDS,  # any case
    # inbound metadata before or after the block, and a message id line
    "Conversation info (untrusted metadata):\n```json\n{\"message_id\": \"42\"}\n```\n\n"
    + PREFIX + framed() + "\n\n" + WORDS,
    PREFIX + framed() + "\n\nSender (untrusted metadata):\n```json\n{\"name\": \"Ana\"}\n```\n\n"
    "[message_id: 42]\n" + WORDS,
    # OpenClaw's runtime context around it
    "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>\nruntime things\n<<<END_OPENCLAW_INTERNAL_CONTEXT>>>\n"
    + PREFIX + framed() + "\n\n" + WORDS,
])
def test_the_person_s_words_survive_and_the_block_does_not(raw):
    assert clean_text(raw, "user") == WORDS


def test_a_block_in_the_middle_or_left_open():
    assert clean_text(f"First this. {framed()} Then that.", "user") == "First this.\n\nThen that."
    # an unclosed block runs to the end of the message: truth first
    assert clean_text(PREFIX + "<zettelclaw-memory>\n" + HANDOFF, "user") == ""
    assert clean_text(WORDS + "\n\n<zettelclaw-memory>\n" + HANDOFF, "user") == WORDS
    # a model echoing the block in its reply loses it too
    assert clean_text(framed() + "\n\n" + REPLY, "assistant") == REPLY


def test_words_that_only_look_alike_are_kept():
    text = "The zettelclaw-memory plugin uses <b>tags</b>; see <zettelclaw docs>."
    assert clean_text(text, "user") == text


def test_a_message_that_was_only_the_block_is_gone():
    segments = transcripts.segments_from_messages(
        [{"role": "user", "content": PREFIX + framed()},
         {"role": "user", "content": WORDS}], SID)
    assert [m.text for m in segments[0].messages] == [WORDS]


# ---------------------------------------------------------------------------------------------
# what the extraction model receives, from every source


def extract_sent(cli, fake_anthropic, *args, input=None) -> str:
    fake_anthropic.entries({"type": "task", "content": "Book the dentist for Thursday"},
                           {"type": "handoff", "content": "Dentist booked"})
    result = cli("extract", "--session-id", SID, *args, input=input)
    assert result.exit_code == 0, result.stderr
    (request,) = fake_anthropic.message_requests
    return request.user_text


def assert_only_the_conversation(sent: str) -> None:
    assert WORDS in sent and REPLY in sent
    for leaked in ("Kitchen renovation", "plumber", "Remembered notes", "zettelclaw-memory"):
        assert leaked not in sent


def test_2026_2_file_stores_the_block_in_the_user_message(cli, fake_anthropic, home, log_dir):
    path = home.jsonl_session("main", SID, [("user", STORED), ("assistant", REPLY)],
                              key="agent:main:main", start=START)
    assert "Kitchen renovation" in path.read_text()  # the transcript really holds it
    assert_only_the_conversation(extract_sent(cli, fake_anthropic))
    logged = (log_dir / "log.jsonl").read_text()
    assert "Kitchen" not in logged and "Dentist booked" in logged


def test_2026_2_file_with_content_parts(cli, fake_anthropic, home):
    home.jsonl_session("main", SID, [("user", [{"type": "text", "text": STORED}]),
                                     ("assistant", REPLY)],
                       key="agent:main:main", start=START)
    assert_only_the_conversation(extract_sent(cli, fake_anthropic))


def test_2026_9_database(cli, fake_anthropic, home):
    home.db_session("main", SID, [[("user", STORED), ("assistant", REPLY)]],
                    key="agent:main:main", start=START)
    assert_only_the_conversation(extract_sent(cli, fake_anthropic))


def test_before_reset_messages(cli, fake_anthropic, home):
    messages = [{"role": "user", "content": STORED},
                {"role": "assistant", "content": [{"type": "text", "text": REPLY}]}]
    sent = extract_sent(cli, fake_anthropic, "--messages", "-", "--reason", "before_reset",
                        input=json.dumps(messages))
    assert_only_the_conversation(sent)


def test_get_session_shows_the_person_s_words_only(cli, home):
    home.jsonl_session("main", SID, [("user", STORED), ("assistant", REPLY)],
                       key="agent:main:main", start=START)
    shown = cli("get", f"session:{SID}").stdout
    assert shown.strip() == f"User: {WORDS}\nAssistant: {REPLY}"

"""Recall each turn (issue 13): `zettelclaw recall -- MESSAGE`, what the plugin injects after the
handoff. Nothing for small talk; the relevant current entries, capped; never one the prompt
already has (handoff block, MEMORY.md's generated block); the same bytes every time."""

from __future__ import annotations

import os

import orjson
import pytest

from tests.conftest import DESIGN_LINES, write_log
from tests.hotpath import heavy_imports, imports_of

TITLE = "## Recalled memories (relevant to the message)"

# other people and projects, so the words of a question are rare in the log (as in a real one)
TOPICS = [
    ("garden", "Tomatoes planted along the south fence need watering twice a week"),
    ("garden", "Compost bin moved behind the shed next to the rain barrel"),
    ("caroline", "Caroline started pottery classes on Saturday mornings"),
    ("caroline", "Caroline adopted a grey cat named Pixel from the shelter"),
    ("billing", "Invoices are generated on the first business day of each month"),
    ("billing", "Stripe tax settings switched to automatic collection in Europe"),
    ("travel", "Flight to Lisbon booked for the conference in October"),
    ("travel", "Hotel near Alfama reserved for four nights"),
    ("reading", "Finished reading The Left Hand of Darkness by Le Guin"),
    ("reading", "Book club picked Piranesi for next month"),
    ("fitness", "Running 5 km three times a week before work"),
    ("fitness", "Knee physiotherapy exercises every evening for a month"),
    ("kitchen", "Sourdough starter fed daily with rye flour"),
    ("kitchen", "The dishwasher repair visit is scheduled for Thursday"),
    ("car", "Winter tyres go on in November at the garage on Elm street"),
    ("car", "Car insurance renewal is due in March"),
]
LATER = [  # a later conversation, so the last handoff is about the garden, not the webhooks
    {"id": "Gd1sN_0aaaa1", "timestamp": "2026-03-01T09:00:00Z", "type": "decision",
     "content": "Raised beds built from untreated larch planks", "subject": "garden",
     "session": "ghi11111"},
    {"id": "Gh2oF_0aaaa2", "timestamp": "2026-03-01T09:30:00Z", "type": "handoff",
     "content": "Garden planning — raised beds decided, seeds not ordered yet",
     "subject": "garden", "session": "ghi11111"},
]
FILLER = ["thanks!", "ok", "hi there", "lol", "👍", "sounds good", "good morning", "haha ok",
          "cool, thanks!", "what time is it?"]
BACKOFF = "which backoff intervals do the webhook retries use?"


def _entries() -> list[dict]:
    topics = [{"id": f"Tp{i:04d}_xxxxx", "timestamp": f"2026-01-{1 + i % 28:02d}T10:00:00Z",
               "type": "fact", "content": text, "subject": subject, "session": f"t{i // 4}"}
              for i, (subject, text) in enumerate(TOPICS * 3)]
    return topics + DESIGN_LINES + LATER


@pytest.fixture
def recall_log(log_dir):
    return write_log(log_dir, _entries())


def _config(zc_env, recall: dict) -> None:
    (zc_env["state"] / "openclaw.json").write_text(orjson.dumps(
        {"plugins": {"entries": {"zettelclaw": {"config": {"recall": recall}}}}}).decode())


def _lines(result) -> list[dict]:
    assert result.returncode == 0, result.stderr
    return [orjson.loads(line) for line in result.stdout.splitlines()]


@pytest.mark.parametrize("message", FILLER)
def test_filler_gives_nothing(recall_log, zc, message):
    for args in (("recall", "--text", "--", message), ("recall", "--json", "--", message)):
        result = zc(*args)
        assert result.returncode == 0, result.stderr
        assert result.stdout == b""


def test_a_relevant_message_gives_the_current_entry_framed(recall_log, zc):
    result = zc("recall", "--text", "--", BACKOFF)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.decode().splitlines()
    assert lines[0] == TITLE
    assert "- [fact 2026-02-26] Exponential backoff intervals: 2s, 10s, 30s" in lines
    assert b"1s, 5s, 15s" not in result.stdout, "never a replaced entry"
    assert 2 <= len(lines) <= 6


def test_json_gives_the_stored_objects_unchanged(recall_log, zc):
    stored = {entry["id"]: entry for entry in _entries()}
    chosen = _lines(zc("recall", "--json", "--", BACKOFF))
    assert chosen and chosen[0]["id"] == "Dw9sN_2qXk7Z"
    for entry in chosen:
        assert entry == stored[entry["id"]]
    # piped without --json: JSON Lines as well (the --json default of every command)
    assert zc("recall", "--", BACKOFF).stdout == zc("recall", "--json", "--", BACKOFF).stdout


def test_nothing_relevant_gives_nothing(recall_log, zc):
    result = zc("recall", "--text", "--", "what is the capital of Mongolia")
    assert result.returncode == 0 and result.stdout == b""


def test_no_log_gives_nothing(log_dir, zc):
    result = zc("recall", "--text", "--", BACKOFF)
    assert result.returncode == 0 and result.stdout == b""


def test_never_an_entry_of_the_handoff_block(recall_log, zc):
    shown = orjson.loads(zc("handoff", "--json").stdout)
    assert shown["decisions"][0]["id"] == "Gd1sN_0aaaa1"
    found = _lines(zc("recall", "--json", "--", "raised beds from larch planks in the garden"))
    assert {"Gd1sN_0aaaa1", "Gh2oF_0aaaa2"}.isdisjoint(e["id"] for e in found)


def test_never_an_entry_of_the_memory_md_briefing(recall_log, zc, zc_env):
    assert _lines(zc("recall", "--json", "--", BACKOFF))[0]["id"] == "Dw9sN_2qXk7Z"
    (zc_env["workspace"] / "MEMORY.md").write_text(
        "# Memory\n\n<!-- BEGIN GENERATED BRIEFING -->\n## Active\n"
        "- auth-migration — Exponential backoff intervals: 2s, 10s, 30s\n"
        "<!-- END GENERATED BRIEFING -->\n")
    assert "Dw9sN_2qXk7Z" not in [e["id"] for e in _lines(zc("recall", "--json", "--", BACKOFF))]


def test_a_memory_md_that_is_a_fifo_or_a_symlink_is_not_read_every_turn(recall_log, zc, zc_env,
                                                                       tmp_path):
    memory = zc_env["workspace"] / "MEMORY.md"
    os.mkfifo(memory)  # opened plainly, this blocked recall until the plugin's timeout
    assert _lines(zc("recall", "--json", "--", BACKOFF))[0]["id"] == "Dw9sN_2qXk7Z"
    memory.unlink()
    elsewhere = tmp_path / "elsewhere.md"
    elsewhere.write_text("<!-- BEGIN GENERATED BRIEFING -->\n"
                         "- auth-migration — Exponential backoff intervals: 2s, 10s, 30s\n"
                         "<!-- END GENERATED BRIEFING -->\n")
    memory.symlink_to(elsewhere)  # not followed: its block is not the briefing
    assert _lines(zc("recall", "--json", "--", BACKOFF))[0]["id"] == "Dw9sN_2qXk7Z"


def test_caps_and_switch_from_the_plugin_config(recall_log, zc, zc_env):
    many = "tell me about Caroline's pottery classes and her cat Pixel"
    assert len(_lines(zc("recall", "--json", "--", many))) > 1
    _config(zc_env, {"maxEntries": 1})
    assert len(_lines(zc("recall", "--json", "--", many))) == 1
    _config(zc_env, {"maxChars": 150})
    text = zc("recall", "--text", "--", many).stdout.decode()
    assert len(text.rstrip("\n")) <= 150 and text.startswith(TITLE)
    assert len(text.splitlines()) == 2
    _config(zc_env, {"minScore": 1000})
    assert zc("recall", "--text", "--", many).stdout == b""
    _config(zc_env, {"enabled": False})
    assert zc("recall", "--text", "--", many).stdout == b""


def test_the_same_content_twice_is_shown_once(recall_log, zc):
    found = _lines(zc("recall", "--json", "--", "Caroline adopted a grey cat named Pixel"))
    contents = [e["content"] for e in found]
    assert contents.count("Caroline adopted a grey cat named Pixel from the shelter") == 1


def test_at_most_five_entries_and_1500_characters_by_default(log_dir, zc):
    write_log(log_dir, [
        {"id": f"Wh{i:04d}_xxxxx", "timestamp": "2026-02-01T10:00:00Z", "type": "fact",
         "content": f"Webhook retry queue note {i}: " + "backoff " * 60, "session": "w"}
        for i in range(12)] + _entries())
    text = zc("recall", "--text", "--", "webhook retry queue backoff").stdout.decode()
    lines = text.splitlines()
    assert lines[0] == TITLE and 2 <= len(lines) <= 6
    assert len(text) <= 1500


def test_same_message_same_log_same_bytes(recall_log, zc, cli):
    first = zc("recall", "--text", "--", BACKOFF).stdout
    assert first and zc("recall", "--text", "--", BACKOFF).stdout == first
    # the full CLI (Typer) is the same command: same bytes
    assert cli("recall", "--text", "--", BACKOFF).stdout.encode() == first
    assert cli("recall", "--json", "--", BACKOFF).stdout.encode() == zc(
        "recall", "--json", "--", BACKOFF).stdout


def test_recall_does_not_import_the_sdk_typer_rich_or_pydantic(recall_log):
    assert heavy_imports(["recall", "--text", "--", BACKOFF], "2s, 10s, 30s") == []


def test_recall_help_goes_through_the_full_cli(zc):
    result = zc("recall", "--help")
    assert result.returncode == 0
    assert b"relevant to MESSAGE" in result.stdout


def test_handoff_option_prints_both_in_one_process(recall_log, zc, cli):
    # the plugin's one process per prompt: the handoff, an empty line, the recalled entries,
    # each exactly what the command alone prints
    handoff = zc("handoff", "--text").stdout
    alone = zc("recall", "--text", "--", BACKOFF).stdout
    assert handoff.startswith(b"## Last Session Handoff") and alone.startswith(TITLE.encode())
    both = zc("recall", "--handoff", "--text", "--", BACKOFF)
    assert both.returncode == 0 and both.stdout == handoff + b"\n" + alone
    assert b"\n\n" not in handoff  # the empty line tells the two parts apart
    assert cli("recall", "--handoff", "--text", "--", BACKOFF).stdout.encode() == both.stdout
    # nothing recalled (small talk): the handoff and its empty line
    assert zc("recall", "--handoff", "--text", "--", "thanks!").stdout == handoff + b"\n"
    # JSON: the handoff object first, then the entries as JSON Lines
    lines = zc("recall", "--handoff", "--json", "--", BACKOFF).stdout.splitlines()
    assert lines[0] == zc("handoff", "--json").stdout.rstrip(b"\n")
    assert lines[1:] == zc("recall", "--json", "--", BACKOFF).stdout.splitlines()


def test_handoff_option_without_a_handoff_starts_with_the_empty_line(log_dir, zc):
    write_log(log_dir, [e for e in _entries() if e["type"] != "handoff"])
    assert zc("handoff", "--text").stdout == b""
    both = zc("recall", "--handoff", "--text", "--", BACKOFF).stdout
    assert both == b"\n" + zc("recall", "--text", "--", BACKOFF).stdout
    assert zc("recall", "--handoff", "--json", "--", "thanks!").stdout == b"null\n"


def test_recall_with_handoff_imports_nothing_heavy(recall_log):
    assert heavy_imports(["recall", "--handoff", "--text", "--", BACKOFF],
                         "Last Session Handoff") == []


def test_the_filler_stems_are_the_filler_words_stems():
    from zettelclaw.rank import stem
    from zettelclaw.recall import FILLER_STEMS, FILLER_WORDS

    assert FILLER_STEMS == {stem(word) for word in FILLER_WORDS}


def test_recall_on_a_small_log_starts_like_the_handoff(recall_log, zc):
    # start-up is the cost of a per-turn command on a small log: no rg process (and none of
    # subprocess, threading), no orjson (its import pulls in dataclasses, uuid and json), no
    # pathlib, no Query (dataclasses, datetime)
    zc("handoff", "--text")  # the first run after the log grew writes state.json's handoff pointer

    assert imports_of(["recall", "--handoff", "--text", "--", BACKOFF], "2s, 10s, 30s",
                      ("subprocess", "threading", "orjson", "dataclasses", "pathlib",
                       "datetime", "zettelclaw.query", "importlib.util")) == []


def _large_log(log_dir):
    """3,000 entries: "team" in a third of them, "budget" in a fifth, a few rare words."""
    import random

    rng = random.Random(5)
    filler = "report meeting draft plan review note call email sprint ticket".split()
    entries = []
    for i in range(3000):
        said = rng.sample(filler, 5)
        if i % 3 == 0:
            said.append("team")
        if i % 5 == 0:
            said.append("budget")
        if i % 997 == 0:
            said += ["pottery", "kiln"]
        entries.append({"id": f"Lg{i:05d}_xxxx", "timestamp": f"2026-01-{1 + i % 28:02d}T10:00:00Z",
                        "type": "fact", "content": " ".join(said), "subject": f"s{i % 40}",
                        "session": f"x{i // 7}"})
    write_log(log_dir, entries)


@pytest.fixture
def sampled(log_dir, monkeypatch):
    """A log that recall treats as large (N and df from a sample), ripgrep streaming it."""
    from zettelclaw import rank

    if rank.ripgrep() is None:
        pytest.skip("ripgrep not installed")
    _large_log(log_dir)
    monkeypatch.setattr(rank, "SMALL_LOG", 64 << 10)  # recall reads a log below it in Python
    monkeypatch.setattr(rank.scans, "SMALL_LOG", 64 << 10)  # the scans sample a log above it
    return rank


@pytest.mark.parametrize("message", [
    "the team budget for the pottery kiln", "what about the pottery and the team?",
    "the kiln", "team budget review"])
def test_a_planned_scan_recalls_what_the_full_stream_recalls(sampled, cli, monkeypatch,
                                                             message):
    planned = cli("recall", "--json", "--", message)
    monkeypatch.setattr(sampled.plan, "plan_stream", lambda sample, terms, *rest: list(terms))
    full = cli("recall", "--json", "--", message)
    assert planned.exit_code == full.exit_code == 0
    assert planned.stdout == full.stdout


def test_a_message_of_common_words_streams_nothing(sampled, cli, monkeypatch):
    # "team" (a third of the log) cannot reach minScore: nothing can qualify, rg never runs
    def no_rg(*args, **kwargs):
        raise AssertionError("rg started")

    monkeypatch.setattr(sampled.scans, "_spawn", no_rg)
    result = cli("recall", "--json", "--", "what about the team?")
    assert result.exit_code == 0 and result.stdout == ""
    # a rare word in the message: rg streams it (and recall finds the entries)
    with pytest.raises(AssertionError, match="rg started"):
        cli("recall", "--json", "--", "the pottery kiln")


def _modules_after(argv: list[str]) -> set[str]:
    import subprocess
    import sys

    code = ("import sys\n"
            f"sys.argv = ['zettelclaw', *{argv!r}]\n"
            "from zettelclaw.__main__ import main\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "sys.stderr.write('\\nMODULES ' + ' '.join(sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout, done.stderr  # it answered
    return set(done.stderr.rsplit("MODULES ", 1)[1].split())


def test_recall_on_a_small_log_does_not_load_re_and_what_comes_with_it(recall_log, zc):
    zc("handoff", "--text")  # (the first run after a new handoff writes where it is)
    for argv in (["recall", "--text", "--", BACKOFF],
                 ["recall", "--handoff", "--text", "--", BACKOFF]):
        loaded = _modules_after(argv)
        assert "zettelclaw.rank.ranking" in loaded  # the ranker ran
        assert not loaded & {"re", "enum", "functools", "collections"}, argv


def test_a_turn_on_a_busy_subject_reads_back_200_lines_and_recalls_what_reading_all_would(
        log_dir, cli, monkeypatch):
    # a year of one busy subject: 900 entries name the harbour move, 300 of them the crane,
    # one the crane's permit deadline; the question's words are in 900 lines
    import random

    from zettelclaw import recall
    from zettelclaw.rank import ranking

    rng = random.Random(3)
    filler = "quote survey berth forklift pallet invoice schedule dock shift crew".split()
    entries = []
    for i in range(900):
        said = ["Harbour", "move:", *rng.sample(filler, 4)]
        if i % 3 == 0:
            said += ["crane", "rental"]
        if i == 444:
            said = "Harbour move: the crane permit deadline is the 14th of March".split()
        entries.append({"id": f"Hb{i:04d}_xxxxx", "timestamp": f"2026-{1 + i % 12:02d}-"
                        f"{1 + i % 28:02d}T10:00:00Z", "type": "task", "status": "open",
                        "content": " ".join(said), "subject": "harbour-move",
                        "session": f"h{i // 6}"})
    write_log(log_dir, entries)
    read_back = []
    line_at = ranking._line_at
    monkeypatch.setattr(ranking, "_line_at", lambda mm, at: read_back.append(at)
                        or line_at(mm, at))
    message = "what is the deadline of the crane permit for the harbour move?"
    turn = cli("recall", "--json", "--", message)
    assert turn.exit_code == 0
    assert len(read_back) == recall.EXACT == 200
    assert [orjson.loads(line)["id"] for line in turn.stdout.splitlines()][0] == "Hb0444_xxxxx"
    read_back.clear()
    monkeypatch.setattr(recall, "EXACT", 10_000)
    assert cli("recall", "--json", "--", message).stdout == turn.stdout
    assert len(read_back) == 300  # the lines naming the crane: no other can beat the best 100


GATE = [  # the gate code said, quoted by that conversation's handoff, then changed
    {"id": "GateOld00001", "timestamp": "2026-01-10T09:00:00Z", "type": "fact",
     "content": "The gate code for the back yard is 4512", "subject": "house",
     "session": "gate0001"},
    {"id": "GateHand0001", "timestamp": "2026-01-10T09:30:00Z", "type": "handoff",
     "content": "Told the courier the gate code 4512 for the back yard; parcel due Friday",
     "subject": "house", "session": "gate0001"},
    {"id": "GateNew00001", "timestamp": "2026-02-05T18:00:00Z", "type": "fact",
     "content": "The gate code for the back yard changed to 7789", "subject": "house",
     "session": "gate0002", "replaces": "GateOld00001"},
]


def test_what_is_the_gate_code_now_recalls_the_correction_not_the_old_handoff(log_dir, zc,
                                                                              cli):
    write_log(log_dir, _entries() + GATE)  # the last handoff is the garden's (LATER)
    question = "What is the gate code for the back yard now?"

    found = _lines(zc("recall", "--json", "--", question))

    assert [e["id"] for e in found][:1] == ["GateNew00001"]
    assert "GateHand0001" not in [e["id"] for e in found], "an old handoff quoting 4512"
    assert b"4512" not in zc("recall", "--text", "--", question).stdout
    # search still lists the handoff (it is what that conversation said), below the answer
    ranked = [e["id"] for e in cli.lines("search", "--json", "--", question)]
    assert ranked.index("GateNew00001") < ranked.index("GateHand0001")


def test_a_handoff_newer_than_the_correction_is_still_recalled(log_dir, zc):
    newer = {"id": "GateHand0002", "timestamp": "2026-02-06T09:30:00Z", "type": "handoff",
             "content": "Gave the courier the new gate code for the back yard",
             "subject": "house", "session": "gate0003"}
    write_log(log_dir, _entries()[:-len(LATER)] + GATE + [newer] + LATER)

    found = _lines(zc("recall", "--json", "--", "What is the gate code for the back yard now?"))

    assert {"GateNew00001", "GateHand0002"} <= {e["id"] for e in found}
    assert "GateHand0001" not in [e["id"] for e in found]

"""The year benchmark (bench/year.py) stays runnable: its synthetic year is the one the issue
describes, its fake model follows the rules it states, and a run of a few days prints every
table with figures that make sense."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "bench"
sys.path.insert(0, str(BENCH))

import year_model  # noqa: E402
import year_reader  # noqa: E402
import year_world  # noqa: E402


def test_the_synthetic_year_is_the_same_for_the_same_seed_and_holds_what_the_issue_asks():
    year = year_world.build(7)
    assert [s.text for s in year.statements] == [s.text for s in year_world.build(7).statements]
    assert [s.text for s in year.statements] != [s.text for s in year_world.build(8).statements]
    assert len(year.days) == 365
    assert all(3 <= len(day) <= 5 for day in year.days)
    assert all(len(c.turns) >= 8 for day in year.days for c in day)  # 4+ exchanges
    assert len(year.recurring) == 40 and len(year.subjects) > 300  # and the long tail

    kinds = Counter(s.kind for s in year.statements)
    assert kinds["preference"] == 12 + 125
    lags = [s.day - year.statements[s.target].day for s in year.statements if s.follow_up]
    assert min(lags) >= 1 and max(lags) <= 150
    for low, high in year_world.LAG_BUCKETS:
        assert any(low <= lag <= high for lag in lags)
    for follow_up, target in (("done", "task"), ("answer", "question"), ("correction", "fact")):
        assert {year.statements[s.target].kind for s in year.statements
                if s.kind == follow_up} == {target}

    for s in year.statements:  # a fact's qualifier never repeats its measure's words: "The
        if s.kind in ("fact", "correction") and s.key and "|" in s.key:  # replica replica
            qualifier, *thing = s.key.split("|")[1].split()  # count" would restate "The
            assert qualifier not in thing, s.text  # replica count" to a reader and a model

    first, change = year.vpn
    assert year.statements[change].day - year.statements[first].day == 85  # ~90, in 90 days
    assert year.statements[change].text == "Actually, the VPN port for Office Network is 51900."


def test_the_worlds_differ_in_how_people_talk():
    """``quiet``: follow-ups that never name their subject and entries without one;
    ``paraphrase``: follow-ups sharing two content words with what they close, look-alikes
    one noun apart."""
    named, quiet, other = (year_world.build(7, w) for w in ("named", "quiet", "paraphrase"))
    assert [s.text for s in named.statements] == [s.text for s in year_world.build(7).statements]

    def share(year, test) -> float:
        follow_ups = [s for s in year.statements if s.follow_up]
        return sum(map(test, follow_ups)) / len(follow_ups)

    def unnamed(s) -> bool:
        return year_world.subject_of(s.text) is None

    assert share(named, unnamed) == 0
    assert share(quiet, unnamed) > 0.5
    bare = [s for s in quiet.statements if s.kind in ("task", "question") and unnamed(s)]
    assert len(bare) > 300 and len({s.text for s in bare}) == len(bare)

    def few_words(year):
        def test(s) -> bool:
            mine = year_model.words(s.text) - year_model.words(year.subjects[s.subject])
            return len(mine & year_model.words(year.statements[s.target].text)) <= 2
        return test

    assert share(other, few_words(other)) > 0.4 and share(named, few_words(named)) < 0.05
    assert sum("nightly cron job" in s.text for s in other.statements) > 20


def test_a_careful_reader_settles_every_follow_up_of_the_named_world_and_not_of_the_quiet_one():
    # (settle raises when a follow-up cannot be read as about its own target)
    named = year_reader.settle(year_world.build(7, "named"))
    assert set(named.values()) == {"unique"}
    quiet = Counter(year_reader.settle(year_world.build(7, "quiet")).values())
    assert all(quiet[name] > 0 for name in ("unique", "conversation", "misled", "ambiguous"))


def test_the_fake_model_ties_to_the_older_entry_shown():
    shown = [{"id": "older", "type": "task", "content": "We need to renew the nightly cron job."},
             {"id": "newer", "type": "task",
              "content": "We need to renew the nightly API client."}]
    done = json.loads(year_model.extraction_reply(["That nightly job renewal thing is done."],
                                                  shown, handoff=False))
    assert done["replaces"] == "older"


SHOWN = [
    {"id": "task-backup", "type": "task",
     "content": "We need to rotate the backup scripts for Atlas Migration."},
    {"id": "task-login", "type": "task",
     "content": "We need to test the login page for Atlas Migration."},
    {"id": "task-login-done", "type": "task",  # another task on it, already closed
     "content": "Updating the login page for Atlas Migration is done."},
    {"id": "fact-port", "type": "fact",
     "content": "The primary rate limit for Atlas Migration is 900 requests per minute."},
    {"id": "pref-mode", "type": "fact", "content": "I prefer dark mode in every editor."},
]


def reply(*sentences: str) -> list[dict]:
    text = year_model.extraction_reply(list(sentences), SHOWN, handoff=True)
    return [json.loads(line) for line in text.splitlines()]


def test_the_fake_model_closes_the_best_matching_entry_it_was_shown():
    done, handoff = reply("Testing the login page for Atlas Migration is done.")
    assert done == {"type": "task", "status": "done", "replaces": "task-login",
                    "subject": "atlas-migration",
                    "content": "Testing the login page for Atlas Migration is done."}
    assert handoff["type"] == "handoff"

    corrected, _ = reply("Actually, the primary rate limit for Atlas Migration is 1200 "
                         "requests per minute.")
    assert corrected["replaces"] == "fact-port" and corrected["type"] == "fact"
    assert corrected["content"].startswith("The primary rate limit")


def test_the_fake_model_never_names_an_entry_it_was_not_shown():
    done, _ = reply("Archiving the status page for Kestrel Dashboard is done.")
    assert done["type"] == "task" and "replaces" not in done
    answered, _ = reply("We went with Kafka as the queue for the retry queue for Atlas "
                        "Migration.")
    assert answered["type"] == "decision" and "replaces" not in answered  # no question shown


def test_a_restatement_of_an_entry_shown_is_known_in_the_same_words_or_in_other_words():
    assert reply("I prefer dark mode in every editor.")[0]["type"] == "handoff"
    assert reply("My editors should always run in dark mode.")[0]["type"] == "handoff"
    known: list = []
    year_model.extraction_reply(["My editors should always run in dark mode."], SHOWN,
                                handoff=True, known=known)
    assert known == [("My editors should always run in dark mode.", "pref-mode")]
    # with the rule for other words off, it is a new fact (zettelclaw's own check decides)
    text = year_model.extraction_reply(["My editors should always run in dark mode."], SHOWN,
                                       handoff=False, restate=False)
    assert json.loads(text) == {"type": "fact",
                                "content": "My editors should always run in dark mode."}


def test_another_preference_sharing_a_word_with_one_shown_is_a_new_fact():
    other, _ = reply("I prefer short answers without bullet points.")
    assert other == {"type": "fact", "content": "I prefer short answers without bullet points."}


def test_the_fake_model_judges_a_contradiction_by_the_named_thing_and_its_number():
    pairs = ("<pairs>\n1. subject: office-network\n"
             "   older (fact, 2026-01-24): The VPN port for Office Network is 51820.\n"
             "   newer (fact, 2026-04-24): The VPN port for Office Network is 51900.\n"
             "2. subject: atlas-migration\n"
             "   older (fact, 2026-01-24): The staging build timeout for Atlas Migration is "
             "45 minutes.\n"
             "   newer (fact, 2026-04-24): The nightly build timeout for Atlas Migration is "
             "30 minutes.\n</pairs>")
    assert year_model.contradiction_reply(pairs) == "1: yes\n2: no"


def test_a_few_simulated_days_print_every_table_with_sane_figures(tmp_path):
    out = tmp_path / "year.json"
    done = subprocess.run([sys.executable, str(BENCH / "year.py"), "--days", "2", "--repeat",
                           "1", "--world", "quiet", "--full", "--json", str(out)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    printed = done.stdout
    for heading in ("Follow-ups closing an earlier entry", "Input tokens per extraction request",
                    "Restated preferences", "Nights: sweep -j 1", "state.json by section",
                    "Per-turn latency", "Briefing (MEMORY.md's generated block)", "Targets"):
        assert heading in printed
    [report] = json.loads(out.read_text())
    assert report["world"] == "quiet"
    nights = report["nights"]
    assert [n["day"] for n in nights] == [1, 2]
    assert nights[0]["sweep"]["extracted"] == nights[0]["conversations"]
    assert all(n["brief"]["ok"] and n["vault"]["ok"] for n in nights)
    first, last = nights[0]["tokens"], nights[-1]["tokens"]
    for tokens in (first, last):
        parts = tokens["prompt"] + tokens["subjects"] + tokens["entries"] + tokens["transcript"]
        assert abs(parts - tokens["total"]) < 1 and tokens["transcript"] > 50
    assert last["entry_count"] > first["entry_count"] > 0  # day 1's earlier conversations
    assert last["subject_count"] > first["subject_count"]
    table = report["follow_ups"]["<= 6"]
    assert table["follow_ups"] > 0
    assert table["right"] + table["wrong"] + table["not_linked"] == 1
    assert table["asked_right"] <= table["asked"] <= table["not_linked"]
    readers = report["follow_ups_by_reader"]
    assert sum(r["follow_ups"] for r in readers.values()) \
        == sum(r["follow_ups"] for r in report["follow_ups"].values())
    assert "what a careful reader could settle" in printed
    points = report["checkpoints"]
    assert sorted(points) == ["1", "2"]
    for point in points.values():
        assert point["log_lines"] > 0 and point["state_bytes"] > 0
        assert point["briefing"]["lines"] > 0
        assert all(v["seconds"] > 0 for v in point["latency"].values())

"""Ranked recall as a user sees it: `zettelclaw search QUESTION` puts the right memory first."""

from __future__ import annotations

import orjson
import pytest

from tests.conftest import write_log
from zettelclaw import rank as rank_module

# a small agent memory: several projects and people, sessions on different days
MEMORY = [
    {"id": "q1", "timestamp": "2026-01-05T09:00:00Z", "type": "fact",
     "content": "The staging database runs Postgres 16 on a single node",
     "subject": "infra", "session": "s-jan"},
    {"id": "q2", "timestamp": "2026-01-05T09:10:00Z", "type": "decision",
     "content": "Nightly backups go to the cold storage bucket, kept for 30 days",
     "detail": "Restores were tested once by hand", "subject": "infra", "session": "s-jan"},
    {"id": "q3", "timestamp": "2026-02-11T14:00:00Z", "type": "decision",
     "content": "Queue-based retries for webhook delivery",
     "detail": "Synchronous retries caused a cascading failure", "subject": "webhooks",
     "session": "s-feb"},
    {"id": "q4", "timestamp": "2026-02-11T14:05:00Z", "type": "fact",
     "content": "Webhook workers pull from the retry queue every 5 seconds",
     "subject": "webhooks", "session": "s-feb"},
    {"id": "q5", "timestamp": "2026-02-12T08:00:00Z", "type": "fact",
     "content": "Maria prefers short status updates in the morning",
     "subject": "maria", "session": "s-feb2"},
    {"id": "q6", "timestamp": "2026-03-03T10:00:00Z", "type": "task",
     "content": "Write the backfill script for failed webhook jobs", "status": "open",
     "subject": "webhooks", "session": "s-mar"},
    {"id": "q7", "timestamp": "2026-03-03T10:30:00Z", "type": "fact",
     "content": "John adopted a rescue dog called Biscuit",
     "subject": "john", "session": "s-mar"},
    {"id": "q8", "timestamp": "2026-03-20T16:00:00Z", "type": "fact",
     "content": "Maria adopted two cats from the shelter",
     "subject": "maria", "session": "s-mar2"},
    {"id": "q9", "timestamp": "2026-04-02T11:00:00Z", "type": "question",
     "content": "Should the staging database move to a managed Postgres service?",
     "subject": "infra", "session": "s-apr"},
    {"id": "h1", "timestamp": "2026-04-05T09:00:00Z", "type": "fact",
     "content": "Goes hiking in the hills most weekends", "subject": "john", "session": "s-apr2"},
    {"id": "h2", "timestamp": "2026-04-06T09:00:00Z", "type": "fact",
     "content": "Goes hiking with friends most weekends", "subject": "maria",
     "session": "s-apr3"},
]


def ids(results: list[dict]) -> list[str]:
    return [r["id"] for r in results if "id" in r]


@pytest.fixture
def memory_log(log_dir):
    return write_log(log_dir, MEMORY)


@pytest.fixture(params=["ripgrep", "python"])
def engine(request, monkeypatch):
    """Every ranking test runs with ripgrep and with the pure-Python scan."""
    if request.param == "python":
        monkeypatch.setenv("ZETTELCLAW_RG", "0")
    elif rank_module.ripgrep() is None:
        pytest.skip("ripgrep not installed")
    return request.param


def test_a_natural_language_question_finds_the_right_memory_first(memory_log, cli, engine):
    got = cli.lines("search", "when did we decide on queue-based retries?", "--json")
    assert ids(got)[0] == "q3"
    got = cli.lines("search", "What", "did", "we", "choose", "for", "nightly", "backups?")
    assert ids(got)[0] == "q2"
    # stemming: "adopting" finds "adopted"; the person the question names comes first
    got = cli.lines("search", "Who is Maria adopting pets from?", "--json")
    assert ids(got)[0] == "q8"
    assert set(ids(got)) >= {"q7", "q8"}  # John's adoption still matches, lower


def test_the_subject_a_question_names_comes_first(memory_log, cli, engine):
    got = cli.lines("search", "Does John go hiking on weekends?", "--explain", "--json")
    assert ids(got)[0] == "h1" and "h2" in ids(got)
    assert got[0]["explain"]["boosts"]["subject"]["score"] > 0
    got = cli.lines("search", "Does Maria go hiking on weekends?", "--json")
    assert ids(got)[0] == "h2" and "h1" in ids(got)


def test_results_are_the_stored_entries_plus_a_score_best_first(memory_log, cli, engine):
    stored = {e["id"]: e for e in MEMORY}
    got = cli.lines("search", "webhook retries", "--json")
    assert ids(got) and set(ids(got)) <= {"q3", "q4", "q6"}
    scores = [r["score"] for r in got]
    assert scores == sorted(scores, reverse=True) and all(s > 0 for s in scores)
    for r in got:
        assert {k: v for k, v in r.items() if k != "score"} == stored[r["id"]]


def test_stop_words_only_or_unknown_words_find_nothing(memory_log, cli, engine):
    assert cli.lines("search", "what is the", "--json") == []
    assert cli.lines("search", "xylophone", "--json") == []


def test_replaced_entries_are_left_out_unless_all(design_log, cli, engine):
    got = cli.lines("search", "queue-based retries", "--json")
    assert "Cx6tM_1pWn8Y" in ids(got)
    assert "a3k9x_BmQ2yT" not in ids(got)  # replaced by Cx6tM_1pWn8Y
    got = cli.lines("search", "queue-based retries", "--all", "--json")
    old = next(r for r in got if r.get("id") == "a3k9x_BmQ2yT")
    assert old["replacedBy"] == "Cx6tM_1pWn8Y"
    got = cli.lines("search", "backoff intervals", "--json")
    assert ids(got)[0] == "Dw9sN_2qXk7Z" and "r7Wp3nKx_mZe" not in ids(got)


def test_filters_combine_with_ranking(memory_log, cli, engine):
    assert ids(cli.lines("search", "webhook", "--type", "task", "--json")) == ["q6"]
    assert ids(cli.lines("search", "staging database", "--subject", "infra",
                         "--type", "question", "--json")) == ["q9"]
    got = cli.lines("search", "adopted", "--subject", "john", "--json")
    assert ids(got) == ["q7"]
    got = cli.lines("search", "webhook", "--since", "2026-03-01", "--json")
    assert ids(got) == ["q6"]
    assert cli.lines("search", "webhook", "--status", "done", "--json") == []


def test_limit_caps_ranked_results(memory_log, cli, engine):
    assert len(cli.lines("search", "webhook retry queue", "--limit", "2", "--json")) == 2


def test_a_month_named_in_the_question_prefers_entries_written_then(memory_log, cli, engine):
    # two entries about the staging database: the month in the question picks one
    got = cli.lines("search", "what did we ask about the database in April?", "--json")
    assert ids(got)[0] == "q9"
    got = cli.lines("search", "what did we learn about the database in January?", "--json")
    assert ids(got)[0] == "q1"


def test_memory_files_are_searched_in_chunks(memory_log, zc_env, cli, engine):
    workspace = zc_env["workspace"]
    lines = ["# Long-term memory", ""] + [f"- filler note {i}" for i in range(25)] + [
        "", "## Vendors", "", "- The payment provider is Stripe; invoices go out on the 1st.",
        "- Support contract renews every October."]
    (workspace / "MEMORY.md").write_text("\n".join(lines) + "\n")
    (workspace / "memory").mkdir()
    (workspace / "memory" / "2026-03-01.md").write_text(
        "Met the Stripe account manager about invoices.\n")
    got = cli.lines("search", "who is our payment provider for invoices?", "--json")
    chunks = [r for r in got if r.get("source") == "memory"]
    assert chunks, got
    top = chunks[0]
    assert top["path"] == "MEMORY.md"
    assert top["startLine"] <= lines.index("- The payment provider is Stripe; invoices go out "
                                           "on the 1st.") + 1 <= top["endLine"]
    assert "Stripe" in top["snippet"] and top["score"] > 0
    assert {r["path"] for r in chunks} == {"MEMORY.md", "memory/2026-03-01.md"}
    # a structured filter means entries only
    assert all("id" in r for r in cli.lines("search", "invoices", "--type", "fact", "--json"))


def test_explain_on_a_terminal_says_why(memory_log, cli, engine, monkeypatch):
    from zettelclaw import render

    monkeypatch.setattr(render, "want_json", lambda as_json: bool(as_json))  # a terminal
    result = cli("search", "queue-based retries", "--explain")
    assert result.exit_code == 0
    why = [line for line in result.stdout.splitlines() if line.startswith("q3 ")]
    assert why, result.stdout
    assert "queue" in why[0] and "retri" in why[0] and "idf" in why[0]
    assert "proximity +" in why[0] and "session +" in why[0]


def test_explain_in_json_carries_terms_and_boosts(memory_log, cli, engine):
    got = cli.lines("search", "What does Maria prefer for status updates?", "--explain",
                    "--json")
    top = got[0]
    assert top["id"] == "q5"
    explain = top["explain"]
    assert {"bm25", "terms", "boosts", "n", "engine"} <= set(explain)
    assert explain["engine"] == engine and explain["n"] == len(MEMORY)
    assert explain["terms"]["prefer"]["tf"] == {"content": 1}
    assert explain["boosts"]["subject"]["subject"] == "maria"
    assert "proximity" in explain["boosts"]  # "status updates", adjacent as in the question
    assert top["score"] == pytest.approx(
        explain["bm25"] + sum(b["score"] for b in explain["boosts"].values()), abs=1e-3)


def test_the_agent_path_prints_what_the_full_cli_prints(memory_log, design_log, cli, zc):
    # the executable answers piped/--json searches without Typer; same bytes as the CLI
    for args in (["queue retries", "--json"], ["webhook", "--type", "task"],
                 # memory_search's argv (hooks/openclaw-plugin/lib/tools.js)
                 ["--json", "--type", "decision", "--limit", "5", "--", "queue --retries"],
                 ["queue-based", "retries", "--all", "--limit", "3"],
                 ["backoff", "--since", "2026-02-01", "--json"],
                 # filters alone (no ranking): the log's order, replacements resolved
                 ["--subject", "auth-migration", "--type", "decision", "--json"],
                 ["--type", "task", "--status", "open", "--all"], ["--limit", "2"]):
        fast = zc("search", *args)
        assert fast.returncode == 0, fast.stderr
        full = cli("search", *args) if "--json" in args else cli("search", *args, "--json")
        assert fast.stdout.decode() == full.stdout
    bad = zc("search", "webhook", "--type", "note")
    assert bad.returncode == 2 and bad.stderr.decode().startswith("Error: ")
    # the global --home reaches the fast path as it reaches the CLI
    elsewhere = zc("--home", str(design_log.parent.parent / "nowhere"), "search", "--json")
    assert elsewhere.returncode == 0 and elsewhere.stdout == b""


def test_a_large_log_estimates_n_from_a_sample_and_ranks_the_same(memory_log, monkeypatch):
    from zettelclaw.query import Query

    if rank_module.ripgrep() is None:
        pytest.skip("ripgrep not installed")
    question = Query(text="when did we decide on queue-based retries?")
    exact = rank_module.rank(question, explain=True)
    monkeypatch.setattr(rank_module.scans, "SMALL_LOG", 0)  # take the large-log path
    sampled = rank_module.rank(question, explain=True)
    assert ids(sampled)[0] == ids(exact)[0] == "q3"
    assert abs(sampled[0]["explain"]["n"] - len(MEMORY)) <= 2
    assert sampled[0]["explain"]["estimated"] and "estimated" not in exact[0]["explain"]


def test_when_named_reads_months_and_years():
    when = rank_module.when_named
    assert when("When did Melanie go camping in June?") == ({6}, set())
    assert when("what happened in May 2023") == ({5}, {2023})
    assert when("What may Caroline do next?") == (set(), set())
    assert when("did they march on the capital") == (set(), set())
    assert when("since Aug 5") == ({8}, set())


def test_every_json_line_parses(memory_log, zc):
    out = zc("search", "database", "staging").stdout
    rows = [orjson.loads(line) for line in out.splitlines()]
    assert rows and all("score" in r for r in rows)


def test_design_log_question(design_log, cli, engine):
    got = cli.lines("search", "what is the retry strategy for webhook bursts?", "--json")
    assert ids(got)[0] == "Jn2fR_7vKw4X"


def test_irregular_verbs_meet_their_base_form(log_dir, cli, engine):
    write_log(log_dir, [
        {"id": "v1", "timestamp": "2026-05-02T10:00:00Z", "type": "fact",
         "content": "Maria went to the farmers market and bought fresh bread",
         "subject": "maria", "session": "s1"},
        {"id": "v2", "timestamp": "2026-05-03T10:00:00Z", "type": "fact",
         "content": "The market report is due on Friday", "subject": "work", "session": "s2"},
    ])
    got = cli.lines("search", "When did Maria go to buy bread?", "--explain", "--json")
    assert ids(got)[0] == "v1"
    assert {"go", "buy"} <= set(got[0]["explain"]["terms"])


def test_a_day_named_in_the_question_prefers_that_week(log_dir, cli, engine):
    write_log(log_dir, [
        {"id": "d1", "timestamp": "2026-03-03T10:00:00Z", "type": "decision",
         "content": "Deploy freeze for the payments service", "subject": "payments",
         "session": "s1"},
        {"id": "d2", "timestamp": "2026-03-24T10:00:00Z", "type": "decision",
         "content": "Deploy freeze lifted for the payments service", "subject": "payments",
         "session": "s2"},
    ])
    assert ids(cli.lines("search", "what did we decide about deploys on March 4th?"))[0] == "d1"
    assert ids(cli.lines("search", "deploy freeze around 2026-03-22?"))[0] == "d2"
    assert rank_module.days_named("on 7 July, 2023 and June 26") == [(2023, 7, 7), (None, 6, 26)]
    assert rank_module.days_named("in May 2023") == []


def test_the_question_frame_is_not_a_topic():
    assert rank_module.analyze("What kind of music does Calvin make?") == [
        "music", "calvin", "make"]
    assert rank_module.analyze("Maria values kindness") == ["maria", "valu", "kind"]


# -- bounded (issue 11 §5) --------------------------------------------------------------------


def test_a_2000_character_query_gets_one_error_line(design_log, zc):
    query = "retry " * 334  # 2,004 characters
    for args in (["search", "--json", "--", query], ["search", query]):
        result = zc(*args)
        assert result.returncode == 2
        assert result.stdout == b""
        assert result.stderr.decode().splitlines() == [
            "Error: the query is 2,004 characters: at most 1,000 (ask with the words that "
            "matter)"]


def test_a_query_of_1000_characters_with_many_terms_answers_from_its_first_64(design_log, zc):
    query = "backfill " + " ".join(f"zq{n}x" for n in range(180))
    query = query[:1000]
    result = zc("search", "--json", "--", query)
    assert result.returncode == 0, result.stderr
    assert "Ht4vL_9qRx2D" in [orjson.loads(line)["id"] for line in result.stdout.splitlines()]


def test_a_hand_written_replaces_with_spaces_hides_the_old_entry(log_dir, cli, engine):
    # a person fixing the log by hand writes `"replaces" : "id"`: both scans honour it
    write_log(log_dir, [
        {"id": "old1", "timestamp": "2026-05-01T10:00:00Z", "type": "decision",
         "content": "Webhook retries back off for 2 seconds", "subject": "webhooks",
         "session": "s1"},
    ], raw_tail=(b'{"id": "new1", "timestamp": "2026-05-02T10:00:00Z", "type": "decision", '
                 b'"content": "Webhook retries back off for 10 seconds", '
                 b'"subject": "webhooks", "session": "s2", "replaces" : "old1"}\n'))
    assert ids(cli.lines("search", "webhook retries back off", "--json")) == ["new1"]
    got = cli.lines("search", "webhook retries back off", "--all", "--json")
    assert {r["id"]: r.get("replacedBy") for r in got} == {"new1": None, "old1": "new1"}


# -- the per-turn path runs without `re` (issue 13: recall at most 3x bare Python) ---------------


def test_words_are_exactly_what_a_word_pattern_finds():
    import re

    from zettelclaw.rank import words

    # every code point (surrogates aside), each between two word characters and alone
    every = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF)
    assert words(every) == re.findall(r"\w+", every.lower())
    spaced = " ".join(every[i:i + 7] for i in range(0, len(every), 7))
    assert words(spaced) == re.findall(r"\w+", spaced.lower())
    # (İ lowers to i and a combining dot, which is no word character)
    assert words("Webhook's retry-back_off: 2s, 10s — naïve café İstanbul ½") == [
        "webhook", "s", "retry", "back_off", "2s", "10s", "naïve", "café", "i", "stanbul", "½"]


def test_the_question_frame_is_dropped_in_any_case_and_script():
    assert rank_module.analyze("WHICH Types Of\tmusic?") == ["music"]
    assert rank_module.analyze("what sorts of food") == ["food"]
    # non-ASCII text goes through the pattern itself: the Kelvin sign folds to k
    assert rank_module.analyze("what \u212aind of music") == ["music"]
    assert rank_module.analyze("what kind music") == ["kind", "music"]


def test_replaces_are_found_exactly_as_the_pattern_finds_them():
    import random
    import re

    from zettelclaw.resolve import replaces_in

    pattern = re.compile(rb'"replaces"\s*:\s*"([^"\\]{1,200})"')
    pieces = [b'"replaces"', b":", b" ", b"\t", b"\n", b'"', b"\\", b"abc123XYZ_-",
              "é".encode(), b"{", b",", b"x" * 199, b"y" * 201]
    rnd = random.Random(13)
    for _ in range(3000):
        block = b"".join(rnd.choice(pieces) for _ in range(rnd.randint(0, 12)))
        end = rnd.randint(0, len(block))
        expected = [(m.start(), m.group(1).decode("utf-8", "replace"))
                    for m in pattern.finditer(block, 0, end)]
        assert list(replaces_in(block, end)) == expected, (block, end)


@pytest.mark.parametrize("question", [
    "when did we decide on queue-based retries?",
    "What did we choose for nightly backups?",
    "Who is Maria adopting pets from?",
    "the backfill script for the webhook jobs is done",
])
def test_entries_held_in_memory_rank_as_search_ranks_the_log(memory_log, cli, question):
    """Extraction asks the same ranker which entries a conversation is about, over the log it
    already read (rank_entries): the same first answer as `search`."""
    searched = ids(cli.lines("search", question, "--json"))
    in_memory = ids(rank_module.rank_entries(question, MEMORY, 5))
    assert in_memory[0] == searched[0]


def _templated_year(log_dir):
    """A year's kind of log: the same sentences about a few projects, most of them open tasks
    (the word "open" in their status as well), many at the same moment: scores tie."""
    entries = []
    for i in range(240):
        project = ("Tundra Onboarding", "Office Network", "Garden Beds")[i % 3]
        task = i % 4 != 0
        entry = {"id": f"Ty{i:04d}_xxxxx", "timestamp": f"2026-03-{1 + i // 40:02d}T10:00:00Z",
                 "type": "task" if task else "fact",
                 "content": f"We need to migrate the exports for {project}." if task
                 else f"The open port for {project} is {8000 + i % 5}.",
                 "subject": project.lower().replace(" ", "-"), "session": f"ty{i // 12}"}
        if task:
            entry["status"] = "open" if i % 7 < 3 else "done"
        entries.append(entry)
    write_log(log_dir, entries)


@pytest.mark.parametrize("question", ["What is still open on Tundra Onboarding?", "open port",
                                      "migrate the exports", "the port of the office network"])
def test_equal_scores_come_in_one_order_whichever_engine_reads_the_log(log_dir, cli,
                                                                      monkeypatch, question):
    _templated_year(log_dir)
    if rank_module.ripgrep() is None:
        pytest.skip("ripgrep not installed")
    by_rg = cli("search", "--json", "--limit", "7", "--", question).stdout
    monkeypatch.setenv("ZETTELCLAW_RG", "0")
    by_python = cli("search", "--json", "--limit", "7", "--", question).stdout
    assert by_rg == by_python
    got = [orjson.loads(line) for line in by_python.splitlines()]
    scores = [r["score"] for r in got]
    assert len(got) == 7 and scores == sorted(scores, reverse=True)
    # among equal scores and dates, the later line first
    for a, b in zip(got, got[1:], strict=False):
        if (a["score"], a["timestamp"]) == (b["score"], b["timestamp"]):
            assert a["id"] > b["id"]


def test_a_limit_above_the_scoring_cap_gets_every_match(log_dir, cli, engine):
    # 700 current entries hold the word: `--limit 1000` lists all of them, none left unscored
    write_log(log_dir, [{"id": f"Hb{i:04d}_xxxxx", "timestamp": "2026-03-01T10:00:00Z",
                         "type": "fact", "content": f"Harbour note {i}: berth {i % 9} is free",
                         "subject": "harbour", "session": f"h{i // 5}"} for i in range(700)])
    got = cli.lines("search", "harbour", "--limit", "1000", "--json")
    assert sorted(ids(got)) == [f"Hb{i:04d}_xxxxx" for i in range(700)]
    assert len(cli.lines("search", "harbour", "--json")) == 20


def test_words_stemmed_by_several_sweep_workers_at_once_stem_as_one_would():
    """A sweep extracts sessions in threads, and each extraction ranks the log's entries for
    the model: the stemmer they share (Snowball's, which keeps its word in itself) gives
    every thread the stem of its own word, never a crash ("string index out of range") that
    fails a session."""
    from concurrent.futures import ThreadPoolExecutor

    from zettelclaw.rank import english

    words = [f"{base}{suffix}{n}" for n in range(400) for base in
             ("backfill", "webhooks", "retrying", "migrations", "deployed", "queueing")
             for suffix in ("ing", "ed", "s", "ations")]
    alone = {w: english._english_stemmer().stemWord(w) for w in words}
    english._stems.clear()

    with ThreadPoolExecutor(max_workers=8) as pool:
        got = list(pool.map(english.stem, words))

    assert dict(zip(words, got, strict=True)) == alone


def test_a_word_in_most_entries_changes_no_recall_by_being_left_out(log_dir, cli, engine,
                                                                    monkeypatch):
    """The lines holding nothing but a word most entries hold are not approximated when
    enough lines hold a rarer one (they cannot be among the lines scored exactly): every turn
    recalls the same entries, in the same order, with the same scores, as when every line
    is, and search answers as before."""
    import random

    from zettelclaw.rank import ranking

    rnd = random.Random(5)
    rare = ["falcon", "harbor", "lantern", "orchard"]
    entries = []
    for n in range(2000):
        said = ["the", "team", "met", *rnd.sample(rare, rnd.randint(1, 3))] \
            if rnd.random() < 0.8 else ["notes", "from", "the", "day"]
        entries.append({"id": f"entry{n:07d}", "timestamp": f"2026-03-{n % 28 + 1:02d}T10:00:00Z",
                        "type": "fact", "content": " ".join([*said, f"item{n}"]),
                        "session": f"s{n // 10}"})
    write_log(log_dir, entries)
    kept, left_out = ranking._essential, []

    def essential(scan, stats, wanted):
        found = kept(scan, stats, wanted)
        left_out.append(found is not None and len(found[0]) < len(scan.offsets))
        return found

    def every_line(scan, stats, wanted):
        return None

    for words in ("team falcon", "the team and the harbor lantern", "team orchard item7"):
        answers = []
        for approximate in (essential, every_line):
            monkeypatch.setattr(ranking, "_essential", approximate)
            answers.append((cli.lines("recall", "--json", "--", f"what about {words}?"),
                            cli.lines("search", words, "--limit", "5", "--json")))
        assert answers[0] == answers[1] and answers[0][1]
    assert any(left_out)


def test_the_lines_scored_exactly_are_the_same_with_the_common_ones_left_out(log_dir,
                                                                            monkeypatch):
    """Worlds of every mix (a word said twenty times in one entry, rare words in few or many
    entries): the candidate lines read back best first are the same lines, in the same
    order, whether the lines of only common words are approximated or not."""
    import random

    from zettelclaw.rank import analyze, ranking, scan_log
    from zettelclaw.recall import Question

    monkeypatch.setenv("ZETTELCLAW_RG", "0")
    words = ["team", "report", "falcon", "harbor", "lantern", "orchard", "zeppelin"]
    left_out = 0
    for seed in range(6):
        rnd = random.Random(seed)
        share = {w: rnd.choice([0.002, 0.05, 0.2, 0.5, 0.9]) for w in words}
        entries = []
        for n in range(1500):
            said = [w for w in words for _ in range(rnd.choice([1, 1, 2, 20]))
                    if rnd.random() < share[w]]
            entries.append({"id": f"entry{n:07d}", "timestamp": "2026-03-01T10:00:00Z",
                            "type": "fact", "content": " ".join([*said, f"item{n}"])})
        (log_dir / "log.jsonl").unlink(missing_ok=True)
        path = write_log(log_dir, entries)
        for question in ("team falcon", "team report harbor", "report zeppelin orchard lantern",
                         " ".join(words)):
            terms, query = analyze(question), Question(question, None, "main")
            scan = scan_log(path, terms)
            stats = ranking._collection_stats(scan, [], terms)
            for exact_limit in (10, 50, 200, 400):
                wanted = ranking._shortlist_size(len(scan.offsets), query, exact_limit)
                every = ranking._shortlist(ranking._approximate(scan, stats), query,
                                           exact_limit)
                some = ranking._approximate(scan, stats, wanted)
                assert ranking._shortlist(some, query, exact_limit) == every
                left_out += len(some) < len(scan.offsets)
    assert left_out > 20


@pytest.mark.parametrize(("query", "written"), [
    ("sky", "The skies over the farm were clear all week"),
    ("die", "The fig tree is dying of root rot"),
    ("lie", "Max was lying about the deadline"),
    ("tie", "Tying the release to the audit was a mistake"),
    ("skies", "The sky over the farm was clear all week"),
])
def test_a_word_snowball_stems_by_its_own_list_is_found_by_its_stem(cli, log_dir, query,
                                                                     written):
    # Snowball's exceptions: skies -> sky, dying -> die, lying -> lie, tying -> tie
    write_log(log_dir, [{"id": "wordFact0001", "timestamp": "2026-03-01T10:00:00Z",
                         "type": "fact", "content": written, "session": "s1"}])
    assert [e["id"] for e in cli.lines("search", "--json", query)] == ["wordFact0001"]

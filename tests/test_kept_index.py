"""Turns that stay fast on a year of log: the words of a small log are kept beside it in
rank-index.bin, so ``recall`` and ``search`` scan only the lines appended since. The answers
stay those of a scan of the whole log, whatever the log holds or what happened to it, and the
file never outlives what a purge removes."""

from __future__ import annotations

import os
import random

import orjson
import pytest

from tests.conftest import occupy

WORDS = ("open opened opening Open OPEN reopen tundra Tundra_Onboarding onboarding onboard "
         "backoff retries retry webhook webhooks queue queued café Café naïve über garden "
         "gardens gardening beds bed status type content subject detail replaces main ops "
         "port 8443 vpn VPN run running runner runners went go going family families "
         "e2e x86_64 ticket-42 still").split()
ODD = [  # what hand-written or damaged lines look like: each must be scanned as before
    b'{"id": "Hw000_spaced", "type": "fact", "content": "open tundra with spaces",'
    b' "subject" : "tundra"}',
    b'not json at all: open tundra backoff',
    b'{"id":"Hw001_keyish","type":"fact","content":"x\\",\\"status\\":\\"open"}',
    b'{"id":"Hw002_nested","type":"fact","content":"open","meta":{"open":"tundra"}}',
    b'{"id":"Hw003_escaped","type":"fact","content":"caf\\u00e9 \\nopen \\"tundra\\""}',
    b'{"id":"Hw004_says","type":"fact","content":"it says \\"replaces\\":\\"Rq000_target\\""}',
    b'',
]


def _log(seed: int, n: int, start: int = 0) -> list[bytes]:
    """``n`` lines of a varied log: entries of two agents, every field scored or not, tasks
    open and done, corrections and forgets naming earlier entries, odd lines now and then."""
    rng = random.Random(seed)
    lines: list[bytes] = []
    for i in range(start, start + n):
        if rng.random() < 0.03:
            lines.append(rng.choice(ODD))
            continue
        text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 14)))
        entry = {"id": f"Rq{i:03d}_{seed:04d}x", "timestamp":
                 f"2026-{1 + i % 12:02d}-{1 + i % 28:02d}T{i % 24:02d}:00:00Z",
                 "type": rng.choice(("fact", "task", "question", "decision")), "content": text,
                 "session": f"s{i // 6}"}
        if rng.random() < 0.5:
            entry["subject"] = rng.choice(("tundra-onboarding", "office-network", "open"))
        if rng.random() < 0.3:
            entry["detail"] = " ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 9)))
        if entry["type"] == "task":
            entry["status"] = rng.choice(("open", "done"))
        if rng.random() < 0.2:
            entry["agent"] = "ops"
        if i > start + 5 and rng.random() < 0.08:
            entry["replaces"] = f"Rq{rng.randrange(start, i):03d}_{seed:04d}x"
        if i > start + 5 and rng.random() < 0.02:
            entry = {"id": f"Fg{i:03d}_{seed:04d}x", "timestamp": entry["timestamp"],
                     "type": "forget", "replaces": f"Rq{rng.randrange(start, i):03d}_{seed:04d}x"}
        lines.append(orjson.dumps(entry))
    return lines


def _append(log_dir, lines: list[bytes], tail: bytes = b"") -> None:
    log_dir.mkdir(parents=True, exist_ok=True)
    with open(log_dir / "log.jsonl", "ab") as fh:
        fh.write(b"".join(line + b"\n" for line in lines) + tail)


QUESTIONS = ["What is still open on Tundra Onboarding?", "tundra", "open", "backoff retries",
             "café naïve", "runners went", "families garden", "vpn port 8443", "status type",
             "x86_64 e2e", "ticket-42", "über", "replaces"]


def _answers(agents=None, include_replaced: bool = False) -> list[list[tuple]]:
    """What the ranker answers recall's and search's questions (ids, scores, explain)."""
    from zettelclaw import paths
    from zettelclaw.rank import SMALL_LOG, rank
    from zettelclaw.recall import Question

    out = []
    for words in QUESTIONS:
        question = Question(words, paths.agent_scope(agents), paths.default_agent(),
                            limit=40, include_replaced=include_replaced)
        out.append([(r.get("id"), r["score"], orjson.dumps(r.get("explain")),
                     r.get("replacedBy"), r.get("forgotten"))
                    for r in rank(question, python_below=SMALL_LOG, explain=True,
                                  include_memory=False)])
    return out


@pytest.fixture
def index(log_dir):
    return log_dir / "rank-index.bin"


@pytest.fixture
def small_index(monkeypatch):
    """An index kept from the first 2 KB of log and merged every 1 KB appended, so that a
    small log exercises what a year does."""
    from zettelclaw.rank import index as index_module

    monkeypatch.setattr(index_module, "INDEX_FROM", 2048)
    monkeypatch.setattr(index_module, "STORE_AFTER", 1024)


def _fresh(index, **kwargs):
    """The answers of a scan of the whole log (no kept index), the index put back after."""
    from zettelclaw.rank import index as index_module

    saved = index.read_bytes() if index.exists() else None
    index.unlink(missing_ok=True)
    old = index_module.INDEX_FROM
    index_module.INDEX_FROM = 1 << 40  # (nothing kept meanwhile)
    try:
        return _answers(**kwargs)
    finally:
        index_module.INDEX_FROM = old
        if saved is not None:
            index.write_bytes(saved)


@pytest.mark.parametrize("seed", range(6))
def test_answers_from_the_kept_words_are_those_of_a_scan_of_the_whole_log(
        log_dir, index, small_index, seed):
    _append(log_dir, _log(seed, 120))
    expected = _fresh(index)
    assert _answers() == expected  # the first turn keeps the index...
    assert index.exists()
    assert _answers() == expected  # ...the next ones answer from it
    for agents in (["ops"], ["all"], ["main", "ops"]):
        assert _answers(agents) == _fresh(index, agents=agents)
    assert _answers(include_replaced=True) == _fresh(index, include_replaced=True)


def test_the_kept_words_find_exactly_what_a_scan_finds(log_dir, index, small_index):
    # the scan's own findings, compared where they are made: per query term the lines and
    # counts, the lines that hold a term only as a key or a status, where ids are replaced
    from zettelclaw.rank import analyze, scan_python

    _append(log_dir, _log(11, 150))
    path = log_dir / "log.jsonl"
    for words in QUESTIONS + [" ".join(WORDS)]:
        terms = analyze(words)
        index.unlink(missing_ok=True)
        scanned = scan_python(path, terms)  # (and keeps the index)
        kept = scan_python(path, terms)
        assert index.exists()
        assert kept.tf == scanned.tf and kept.df_only == scanned.df_only
        assert list(kept.offsets) == list(scanned.offsets)
        assert list(kept.tf) == list(scanned.tf)
        ids = [f"Rq{i:03d}_0011x" for i in range(150)] + ["Rq000_target", "nothing"]
        for entry_id in ids:
            named = scanned.resolution.named_at
            assert (entry_id in kept.resolution.named_at) == (entry_id in named)
            assert sorted(kept.resolution.named_at.get(entry_id, [])) == \
                sorted(named.get(entry_id, []))


def test_lines_appended_after_the_index_are_found_and_merged_into_it(log_dir, index,
                                                                      small_index):
    _append(log_dir, _log(3, 60))
    _answers()
    first = index.stat().st_size
    for round_ in range(6):  # turns between nights: a few lines, then many
        _append(log_dir, _log(3, 3 + 10 * round_, start=100 + 50 * round_))
        assert _answers() == _fresh(index)
    assert index.stat().st_size > first
    # what was merged turn after turn is what one count of the whole log keeps
    merged = index.read_bytes()
    size = int(merged.split(b" ")[4])
    index.unlink()
    _answers()
    assert int(index.read_bytes().split(b" ")[4]) == size
    assert index.read_bytes() == merged


def test_a_line_still_being_written_is_scanned_never_kept(log_dir, index, small_index):
    _append(log_dir, _log(4, 80), tail=b'{"id":"Pw_partial","type":"fact","content":"open tun')
    assert _answers() == _fresh(index)
    log = (log_dir / "log.jsonl").read_bytes()
    assert int(index.read_bytes().split(b" ")[4]) == log.rfind(b"\n") + 1


def test_recall_after_ten_thousand_entries_gives_the_answer_of_a_fresh_scan(log_dir, cli,
                                                                             index):
    # a year of use at the real thresholds: kept at the first turn, appended to at night
    plan = {"id": "Qk0001_plan", "timestamp": "2026-05-01T10:00:00Z", "type": "decision",
            "content": "The quokka migration plan moves the webhook queue first",
            "subject": "tundra-onboarding", "session": "q1"}
    _append(log_dir, _log(5, 4500) + [orjson.dumps(plan)] + _log(5, 4500, start=4500))
    message = "What is still open on the quokka migration plan?"

    def recall() -> str:
        result = cli("recall", "--json", "--", message)
        assert result.exit_code == 0, result.stderr
        return result.stdout

    before = recall()
    assert index.exists()
    _append(log_dir, _log(5, 1000, start=9000) + [orjson.dumps(
        {**plan, "id": "Qk0002_done", "content": "The quokka migration plan is done",
         "replaces": "Qk0001_plan", "timestamp": "2026-06-01T10:00:00Z"})])
    after = recall()
    saved = index.read_bytes()
    index.unlink()
    from zettelclaw.rank import index as index_module

    old, index_module.INDEX_FROM = index_module.INDEX_FROM, 1 << 40
    try:
        assert recall() == after
    finally:
        index_module.INDEX_FROM = old
    assert '"id":"Qk0001_plan"' in before
    assert '"id":"Qk0002_done"' in after and '"id":"Qk0001_plan"' not in after
    assert b"quokka" in saved


def test_a_log_changed_in_place_truncated_or_replaced_is_scanned_again(log_dir, index,
                                                                         small_index):
    _append(log_dir, _log(6, 80))
    _answers()
    log = log_dir / "log.jsonl"
    # same file, same length, other words up to the end the index was kept for (the check
    # is rank-stats.json's: the CRC of the 256 bytes before that end)
    before = log.read_bytes()
    data = before.replace(b"tundra", b"zebras").replace(b"open", b"shut")
    assert data[-256:] != before[-256:]
    with open(log, "r+b") as fh:
        fh.write(data)
    assert _answers() == _fresh(index)
    # truncated: fewer lines than the index knows
    with open(log, "r+b") as fh:
        fh.truncate(len(data) // 2)
    assert _answers() == _fresh(index)
    # replaced by another file (a rename in its place)
    _answers()
    log.rename(log_dir / "old.jsonl")
    _append(log_dir, _log(7, 90))
    assert _answers() == _fresh(index)


@pytest.mark.parametrize("junk", [b"", b"zcidx 1", b"zcidx 1 little 1 2 3 4 5 6 7 8 9 end\n",
                                  b"\x00" * 64])
def test_an_unreadable_index_is_scanned_past(log_dir, index, small_index, junk):
    _append(log_dir, _log(8, 60))
    expected = _fresh(index)
    index.write_bytes(junk)
    assert _answers() == expected
    # a kept index cut short is not trusted either
    index.unlink()
    _answers()
    whole = index.read_bytes()
    index.write_bytes(whole[:-7])
    assert _answers() == expected


def test_an_index_kept_by_the_previous_version_is_scanned_past_and_kept_anew(log_dir, index,
                                                                            small_index):
    # version 1 had no word starts: its words, read as version 2's, would be other words
    _append(log_dir, _log(9, 60))
    expected = _fresh(index)
    _answers()
    head, rest = index.read_bytes().split(b"\n", 1)
    assert head.startswith(b"zcidx 2 ")
    wstarts = 4 * (int(head.split(b" ")[6]) + 1)
    vocab = int(head.split(b" ")[7])
    index.write_bytes(b"zcidx 1 " + head[8:] + b"\n" + rest[:vocab] + rest[vocab + wstarts:])
    assert _answers() == expected
    assert index.read_bytes().startswith(b"zcidx 2 ")


@pytest.mark.parametrize("kind", ["fifo", "symlink", "directory"])
def test_something_else_in_its_place_is_neither_read_nor_replaced(log_dir, index, small_index,
                                                                 kind, tmp_path):
    _append(log_dir, _log(9, 60))
    expected = _fresh(index)
    elsewhere = tmp_path / "elsewhere.bin"
    still_there = occupy(index, kind, elsewhere)
    assert _answers() == expected  # (a FIFO is not waited on)
    assert not elsewhere.exists()
    assert still_there()


def _search(zc, word: str) -> list[dict]:
    result = zc("search", "--json", word)
    assert result.returncode == 0, result.stderr
    return [orjson.loads(line) for line in result.stdout.splitlines()]


def _big_log(log_dir, secret: dict) -> None:
    # past INDEX_FROM (64 KB): the real command keeps the index
    _append(log_dir, _log(10, 300) + [orjson.dumps(secret)] + _log(10, 300, start=300))
    assert (log_dir / "log.jsonl").stat().st_size > 70_000


SECRET = {"id": "Sx0001_secret", "timestamp": "2026-03-01T10:00:00Z", "type": "fact",
          "content": "The quokkapassword for the zebrafish vault is hunter2", "session": "sx"}


def test_a_purged_entry_is_not_found_by_search_after_the_index_was_built(log_dir, index, zc,
                                                                        cli):
    _big_log(log_dir, SECRET)
    assert [r["id"] for r in _search(zc, "quokkapassword")] == ["Sx0001_secret"]
    assert index.exists() and b"quokkapassword" in index.read_bytes()
    result = cli("purge", "Sx0001_secret", "--yes")
    assert result.exit_code == 0, result.stderr
    assert not index.exists()  # the words it held went with the log's
    assert _search(zc, "quokkapassword") == []
    assert _search(zc, "zebrafish") == []
    assert not index.exists() or b"quokkapassword" not in index.read_bytes()


def test_a_forgotten_entry_is_not_found_after_the_index_was_built(log_dir, index, zc):
    _big_log(log_dir, SECRET)
    message = "what is the quokkapassword for the zebrafish vault?"
    recalled = zc("recall", "--json", "--", message)
    assert b"Sx0001_secret" in recalled.stdout and index.exists()
    assert zc("forget", "Sx0001_secret", "--yes").returncode == 0
    assert _search(zc, "quokkapassword") == []
    assert b"Sx0001_secret" not in zc("recall", "--json", "--", message).stdout
    # and when the forget itself is kept in the index (merged after more lines)
    _append(log_dir, _log(12, 400, start=700))
    assert _search(zc, "quokkapassword") == []
    assert b"Sx0001_secret" not in zc("recall", "--json", "--", message).stdout
    assert zc("forget", "--undo", "Sx0001_secret", "--yes").returncode == 0
    assert [r["id"] for r in _search(zc, "quokkapassword")] == ["Sx0001_secret"]


def test_another_agents_entries_stay_out_with_the_index(log_dir, index, zc):
    _big_log(log_dir, {**SECRET, "agent": "ops"})
    assert _search(zc, "quokkapassword") == []  # main's scope: the default agent
    assert index.exists()
    assert _search(zc, "quokkapassword") == []
    found = zc("search", "--json", "--agent", "ops", "quokkapassword")
    assert b"Sx0001_secret" in found.stdout


def test_a_subject_rename_drops_the_index(log_dir, index, cli, small_index):
    _append(log_dir, _log(13, 80))
    _answers()
    assert index.exists()
    assert cli("subjects", "rename", "--yes", "office-network", "office-lan").exit_code == 0
    assert not index.exists()
    assert _answers() == _fresh(index)


def test_a_log_elsewhere_is_ranked_and_nothing_is_kept_beside_it(log_dir, index, small_index,
                                                                    tmp_path):
    # the same answers from a copy of the log named by path; no cache written beside the copy
    from zettelclaw.rank import SMALL_LOG, rank
    from zettelclaw.recall import Question

    _append(log_dir, _log(10, 90))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "log.jsonl").write_bytes((log_dir / "log.jsonl").read_bytes())

    def ids(log):
        return [[r["id"] for r in rank(Question(words, None, "main", limit=40), log=log,
                                       python_below=SMALL_LOG, include_memory=False)]
                for words in QUESTIONS]

    assert ids(elsewhere / "log.jsonl") == ids(log_dir / "log.jsonl")
    assert index.exists()  # beside the home's own log: kept
    assert sorted(os.listdir(elsewhere)) == ["log.jsonl"]

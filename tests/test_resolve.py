"""Replacement resolution (design §3.3): forward pass, chains, dangling ids, cycles."""

from __future__ import annotations

from tests.conftest import DESIGN_LINES, write_log
from zettelclaw.resolve import Resolution


def entry(id, **kw):
    return {"id": id, "timestamp": "2026-02-20T00:00:00Z", "type": "fact",
            "content": f"content of {id}", "session": "s", **kw}


def ids(entries):
    return [e["id"] for e in entries]


def test_design_replacement_examples_show_only_current_versions():
    res = Resolution.build(DESIGN_LINES)
    assert "a3k9x_BmQ2yT" not in ids(res.current)
    assert "r7Wp3nKx_mZe" not in ids(res.current)
    assert res.latest("a3k9x_BmQ2yT")["content"].startswith("Queue-based retries with dead")


def test_a_chain_resolves_to_its_last_link():
    res = Resolution.build([entry("A"), entry("B", replaces="A"), entry("C", replaces="B")])
    assert ids(res.current) == ["C"]
    assert res.latest("A")["id"] == "C"
    assert ids(res.history("B")) == ["A", "B", "C"]


def test_dangling_replaces_hides_nothing():
    res = Resolution.build([entry("A"), entry("B", replaces="nope")])
    assert ids(res.current) == ["A", "B"]


def test_cycle_never_hides_both_entries():
    # A claims to replace B before B exists; B then replaces A. Reading forward, only B's
    # replacement points backwards, so A goes and B stays.
    res = Resolution.build([entry("A", replaces="B"), entry("B", replaces="A")])
    assert ids(res.current) == ["B"]
    assert res.latest("A")["id"] == "B"


def test_self_replacement_is_ignored():
    res = Resolution.build([entry("A", replaces="A")])
    assert ids(res.current) == ["A"]


def test_search_hides_replaced_and_all_marks_them(log_dir, cli):
    write_log(log_dir, [entry("A"), entry("B", replaces="A"), entry("C", replaces="B"),
                        entry("X", replaces="Y"), entry("Y", replaces="X")])
    assert ids(cli.lines("search", "--json")) == ["C", "Y"]
    marked = {e["id"]: e.get("replacedBy") for e in cli.lines("search", "--all", "--json")}
    assert marked == {"A": "B", "B": "C", "C": None, "X": "Y", "Y": None}


def test_get_history_prints_the_chain(log_dir, cli):
    write_log(log_dir, DESIGN_LINES)
    chain = cli.lines("get", "Cx6tM_1pWn8Y", "--history", "--json")
    assert ids(chain) == ["a3k9x_BmQ2yT", "Cx6tM_1pWn8Y"]


def test_only_a_valid_later_entry_hides_one(log_dir, cli):
    # "replaces" quoted in content, a torn replacing line and a self-replacement hide nothing
    write_log(log_dir, [entry("A"), entry("B", content='he wrote "replaces":"A" in a note'),
                        entry("C", replaces="C")],
              raw_tail=b'{"id":"D","type":"fact","replaces":"A","content":"torn\n')
    assert ids(cli.lines("search", "--json")) == ["A", "B", "C"]
    ranked = [e for e in cli.lines("search", "content", "--json") if "id" in e]
    assert set(ids(ranked)) == {"A", "C"}  # B's content does not say "content"
    assert not [e for e in cli.lines("search", "--all", "--json") if "replacedBy" in e]


def test_handoff_search_brief_history_and_stats_agree_for_any_chain_length(log_dir, cli, zc):
    """Task chains of several lengths, all in one session, each version a rewording of the
    last; the odd-length ones end done. Every reader sees the same current versions."""
    import re

    import orjson

    lines, heads, chains = [], [], []
    for length in (1, 2, 3, 4, 7, 60):
        chain = []
        for n in range(length):
            last = n == length - 1
            chain.append({"id": f"c{length:03d}v{n:07d}", "timestamp": "2026-02-20T10:00:00Z",
                          "type": "task", "content": f"Chain {length} version {n}",
                          "status": "done" if last and length % 2 else "open",
                          "subject": "chains", "session": "s1",
                          **({"replaces": chain[-1]["id"]} if chain else {})})
        chains.append(chain)
        heads.append(chain[-1])
        lines += chain
    handoff = {"id": "handoff00001", "timestamp": "2026-02-20T11:00:00Z", "type": "handoff",
               "content": "Chains everywhere", "session": "s1"}
    write_log(log_dir, lines + [handoff])
    open_heads = [h for h in heads if h["status"] == "open"]
    assert len(open_heads) == 3

    shown = orjson.loads(zc("handoff", "--json").stdout)
    assert ids(shown["openTasks"]) == ids(open_heads)
    assert sorted(ids(cli.lines("search", "--json", "--type", "task"))) == sorted(ids(heads))
    assert sorted(ids(cli.lines("search", "--json", "--status", "open"))) == sorted(
        ids(open_heads))
    brief = cli("brief", "--print", "--no-llm", "--now", "2026-02-21")
    assert brief.exit_code == 0, brief.stderr
    pending = [line for line in brief.stdout.splitlines() if line.startswith("- Chain")]
    assert sorted(pending) == sorted(f"- {h['content']} (chains)" for h in open_heads)
    mentioned = set(re.findall(r"Chain \d+ version \d+\b", brief.stdout))
    assert mentioned <= {h["content"] for h in heads}
    for chain in chains:
        for version in chain:
            history = cli.lines("get", version["id"], "--history", "--json")
            assert ids(history) == ids(chain)
    stats = orjson.loads(cli("stats", "--json").stdout)["entries"]
    assert stats["current"] == len(heads) + 1 and stats["openTasks"] == len(open_heads)
    assert stats["replaced"] == len(lines) - len(heads)

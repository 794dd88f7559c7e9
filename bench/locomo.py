"""Retrieval benchmark on LoCoMo: does ``zettelclaw search QUESTION`` find the evidence?

For each of the 10 conversations a fresh log (``ZETTELCLAW_HOME`` in a temp dir) gets the
conversation's ``observation`` facts as ``fact`` entries: subject = the speaker (a person
subject), session = the LoCoMo session, timestamp = that session's date. The harness keeps the
entry -> dialogue-id map. Every question of categories 1-4 is asked with
``zettelclaw search QUESTION --json --limit 50``; recall@k is the share of the question's
evidence dialogue ids found among the dialogue ids of the top k entries, averaged over
questions, for k = 5, 10, 25, 50, overall and per category.

    python bench/locomo.py               # the search command in-process (Typer's CliRunner)
    python bench/locomo.py --subprocess  # the installed executable, one process per question

The data is read from ``../shared/data/locomo/locomo10.json`` next to the repository and never
copied into it.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "locomo" / "locomo10.json"
KS = (5, 10, 25, 50)
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
REFERENCE = [
    ("rank_bm25, stop words removed", (49.3, 54.3, 59.8, 65.1)),
    ("LoCoMo paper, dense retriever over observations", (56.2, 61.3, 67.5, 71.2)),
    ("ceiling: evidence covered by any observation", (80.7, 80.7, 80.7, 80.7)),
    ("target", (65.0, 72.0, None, None)),
]
_DIA = re.compile(r"D:?(\d+):(\d+)")
ID_CHARS = "_-0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def dialogue_ids(value) -> set[str]:
    """Normalised dialogue ids of an evidence field (a string, a list, 'D8:6; D9:17', ...)."""
    text = " ".join(value) if isinstance(value, list) else str(value)
    return {f"D{a}:{b}" for a, b in _DIA.findall(text)}


def session_time(text: str) -> datetime:
    """``1:56 pm on 8 May, 2023`` as UTC."""
    from dateutil import parser

    try:
        moment = datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y")
    except ValueError:
        moment = parser.parse(text.replace(" on ", " "), fuzzy=True)
    return moment.replace(tzinfo=timezone.utc)


def slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def build_log(conversation: dict, home: Path) -> dict[str, set[str]]:
    """Write the conversation's observations into ``home``; return entry id -> dialogue ids."""
    rng = random.Random(conversation["sample_id"])
    turns = conversation["conversation"]
    entries, evidence = [], {}
    speakers = {}
    sessions = sorted(conversation["observation"],
                      key=lambda k: int(re.search(r"\d+", k).group()))
    for key in sessions:
        number = int(re.search(r"\d+", key).group())
        moment = session_time(turns[f"session_{number}_date_time"])
        for speaker, facts in conversation["observation"][key].items():
            speakers[slug(speaker)] = speaker
            for text, where in facts:
                entry_id = "".join(rng.choice(ID_CHARS) for _ in range(12))
                moment += timedelta(seconds=1)
                entries.append({"id": entry_id, "timestamp": moment.strftime("%Y-%m-%dT%H:%M:%SZ"),
                                "type": "fact", "content": text, "subject": slug(speaker),
                                "session": f"session-{number}"})
                evidence[entry_id] = dialogue_ids(where)
    home.mkdir(parents=True, exist_ok=True)
    with open(home / "log.jsonl", "wb") as fh:
        for entry in entries:
            fh.write(orjson.dumps(entry) + b"\n")
    registry = {s: {"display": name, "type": "person"} for s, name in speakers.items()}
    (home / "subjects.json").write_bytes(orjson.dumps(registry, option=orjson.OPT_INDENT_2))
    return evidence


class InProcess:
    """``zettelclaw search`` through the Typer app, in this process."""

    def __init__(self):
        from typer.testing import CliRunner

        from zettelclaw.cli import app

        self.app, self.runner = app, CliRunner()

    def __call__(self, question: str, limit: int) -> list[dict]:
        result = self.runner.invoke(self.app, ["search", question, "--json", "--limit",
                                               str(limit)], catch_exceptions=False)
        if result.exit_code != 0:
            raise RuntimeError(result.output)
        return [orjson.loads(line) for line in result.stdout.splitlines() if line.strip()]


class Subprocess:
    """The installed executable, a fresh process per question."""

    def __init__(self):
        exe = Path(sys.executable).parent / "zettelclaw"
        self.cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "zettelclaw"]

    def __call__(self, question: str, limit: int) -> list[dict]:
        out = subprocess.run(self.cmd + ["search", question, "--json", "--limit", str(limit)],
                             capture_output=True, check=True, env=os.environ).stdout
        return [orjson.loads(line) for line in out.splitlines() if line.strip()]


def logs_of(data: list[dict], prefix: str = "zc-locomo-"):
    """``(conversation, evidence)`` for each conversation, with ``ZETTELCLAW_HOME`` pointing at
    a fresh log of its observations (and an empty workspace) while the caller uses it; the
    environment is put back at the end."""
    saved = {name: os.environ.get(name) for name in ("ZETTELCLAW_HOME", "OPENCLAW_WORKSPACE_DIR")}
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        try:
            for conversation in data:
                home = Path(tmp) / conversation["sample_id"]
                evidence = build_log(conversation, home)
                os.environ["ZETTELCLAW_HOME"] = str(home)
                os.environ["OPENCLAW_WORKSPACE_DIR"] = str(Path(tmp) / "empty-workspace")
                yield conversation, evidence
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value


def questions(conversation: dict):
    """``(qa, evidence dialogue ids)`` of the conversation's questions of categories 1-4."""
    for qa in conversation["qa"]:
        wanted = dialogue_ids(qa.get("evidence", []))
        if qa.get("category") in CATEGORIES and wanted:
            yield qa, wanted


def evaluate(search, *, conversations: int | None = None, verbose: bool = False) -> dict:
    data = orjson.loads(DATA.read_bytes())[:conversations]
    hits = {cat: {k: [] for k in KS} for cat in CATEGORIES}
    seconds = []
    for conversation, evidence in logs_of(data):
        for qa, wanted in questions(conversation):
            cat = qa["category"]
            start = time.perf_counter()
            results = search(qa["question"], max(KS))
            seconds.append(time.perf_counter() - start)
            ids = [r["id"] for r in results if "id" in r]
            for k in KS:
                found = set().union(*(evidence.get(i, set()) for i in ids[:k]))
                hits[cat][k].append(len(wanted & found) / len(wanted))
            if verbose and not (wanted & set().union(
                    *(evidence.get(i, set()) for i in ids[:10]))):
                print(f"miss [{cat}] {qa['question']}", file=sys.stderr)
    table = {}
    for cat, per_k in hits.items():
        table[cat] = {k: 100 * sum(v) / len(v) for k, v in per_k.items() if v}
        table[cat]["n"] = len(per_k[KS[0]])
    everything = {k: [x for cat in hits for x in hits[cat][k]] for k in KS}
    table["all"] = {k: 100 * sum(v) / len(v) for k, v in everything.items()}
    table["all"]["n"] = len(everything[KS[0]])
    seconds.sort()
    table["latency"] = {"median_ms": 1000 * seconds[len(seconds) // 2],
                        "p95_ms": 1000 * seconds[int(len(seconds) * 0.95)]}
    return table


def print_table(table: dict) -> None:
    head = f"{'':32} {'n':>5} " + " ".join(f"{'R@' + str(k):>6}" for k in KS)
    print(head)
    print("-" * len(head))
    for cat, name in CATEGORIES.items():
        row = table[cat]
        print(f"{f'{cat} {name}':32} {row['n']:>5} " + " ".join(f"{row[k]:6.1f}" for k in KS))
    row = table["all"]
    print(f"{'all (categories 1-4)':32} {row['n']:>5} " + " ".join(f"{row[k]:6.1f}" for k in KS))
    print()
    print("reference (all)")
    for name, values in REFERENCE:
        cells = " ".join(f"{v:6.1f}" if v is not None else f"{'':>6}" for v in values)
        print(f"  {name:48} {cells}")
    lat = table["latency"]
    print(f"\nper question: median {lat['median_ms']:.1f} ms, p95 {lat['p95_ms']:.1f} ms")


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--subprocess", action="store_true",
                        help="run the installed executable once per question (slow)")
    parser.add_argument("--conversations", type=int, default=None, help="only the first N")
    parser.add_argument("--verbose", action="store_true", help="print questions missed at 10")
    args = parser.parse_args(argv)
    if not DATA.exists():
        print(f"LoCoMo data not found at {DATA}: skipped")
        return {}
    search = Subprocess() if args.subprocess else InProcess()
    print(f"LoCoMo retrieval ({'subprocess' if args.subprocess else 'in-process CLI'})")
    table = evaluate(search, conversations=args.conversations, verbose=args.verbose)
    print_table(table)
    return table


if __name__ == "__main__":
    main()

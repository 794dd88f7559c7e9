"""Synthetic zettelclaw logs for the benchmarks (deterministic: same size + seed, same bytes).

A log looks like a long-lived agent's: sessions of 3-25 entries a few hours to days apart,
each closed by a handoff; about 45 % facts, 20 % tasks (open or done), 15 % decisions, 8 %
questions; 85 % of entries carry a subject drawn from a Zipf-like registry of 300 slugs; about
4 % replace an earlier entry of the same subject and type (some of them chains); 40 % have a
detail. Words come from a Zipf distribution over a vocabulary of real words and made-up ones,
so a term's document frequency spans several orders of magnitude as in real text.

    python bench/synth.py 100000 1000000       # writes bench/.data/log-<n>-s<seed>.jsonl

Files go to ``bench/.data/`` (git-ignored) next to a ``subjects.json`` for each log.
"""

from __future__ import annotations

import argparse
import bisect
import itertools
import json
import os
import random
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import orjson

DATA = Path(__file__).resolve().parent / ".data"
VERSION = 1  # bump when the output changes, so cached files are regenerated

WORDS = """
deploy staging production server database migration schema index query cache latency
timeout retry webhook queue worker cron backup restore release version branch merge review
test coverage build pipeline docker image container cluster node memory disk network proxy
certificate token session login password account invoice payment customer order refund
report dashboard metric alert incident outage rollback config setting flag feature bug fix
patch upgrade dependency library package module function endpoint api request response error
warning log trace debug profile benchmark performance speed load traffic user team meeting
call email message chat slack calendar schedule deadline sprint ticket issue plan roadmap
budget cost price contract vendor supplier hiring interview candidate offer salary review
design mockup prototype feedback survey research analysis data model training dataset label
prompt agent tool search summary note document draft spec proposal approval sign launch
announcement blog post video podcast audio transcript recording microphone speaker camera
laptop phone tablet keyboard monitor charger battery printer router wifi bluetooth garden
kitchen recipe dinner lunch breakfast coffee tea grocery store market trip flight hotel
train ticket passport visa vacation holiday weekend birthday party gift family kids school
teacher homework doctor dentist appointment gym run swim bike hike yoga sleep health
medication allergy insurance tax bank loan mortgage rent lease apartment house repair plumber
electrician paint furniture sofa desk chair lamp book novel movie series music concert guitar
piano lesson course exam language spanish german french japanese travel museum beach mountain
lake river park dog cat vet walk car mechanic tire oil parking bus subway weather rain snow
winter summer spring autumn morning evening night week month quarter year monday friday
backlog estimate priority blocker dependency owner stakeholder client partner investor board
quarterly revenue growth churn retention funnel conversion signup onboarding pricing tier
plan subscription trial discount coupon campaign newsletter audience segment experiment
variant rollout canary shard replica failover region zone bucket storage object upload
download sync export import csv spreadsheet chart graph table column row field record entry
""".split()

SYLLABLES = ("ka ri to me su na lo ve pi da ne mo ru ta ki bo se la fu go ha ji ko mi no "
             "pa ro sa te wa yo zu be ce di fe gi hu jo ku le ma ni po qu re si tu vo xa").split()


def vocabulary(rng: random.Random, size: int = 6000) -> list[str]:
    words = list(dict.fromkeys(WORDS))
    rng.shuffle(words)
    seen = set(words)
    while len(words) < size:
        word = "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4)))
        if word not in seen:
            seen.add(word)
            words.append(word)
    return words


class Zipf:
    """Draw indexes 0..n-1 with probability proportional to 1 / (rank + offset) ** s."""

    def __init__(self, n: int, s: float = 1.0, offset: float = 2.7):
        weights = [1.0 / (i + offset) ** s for i in range(n)]
        self.cum = list(itertools.accumulate(weights))
        self.total = self.cum[-1]

    def draw(self, rng: random.Random) -> int:
        return bisect.bisect_left(self.cum, rng.random() * self.total)

    def probability(self, i: int) -> float:
        return (self.cum[i] - (self.cum[i - 1] if i else 0.0)) / self.total


def subjects(rng: random.Random, vocab: list[str], count: int = 300) -> dict[str, dict]:
    kinds = ["project"] * 6 + ["person"] * 2 + ["system", "tool"]
    out: dict[str, dict] = {}
    while len(out) < count:
        parts = rng.sample(vocab[:800], rng.choice((1, 2, 2, 3)))
        slug = "-".join(parts)
        out.setdefault(slug, {"display": " ".join(p.title() for p in parts),
                              "type": rng.choice(kinds)})
    return out


ID_CHARS = "_-0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def generate(n: int, seed: int = 7):
    """Yield ``n`` entries (dicts, the lead's field order)."""
    rng = random.Random(seed)
    vocab = vocabulary(rng)
    zipf = Zipf(len(vocab))
    registry = subjects(rng, vocab)
    slugs = list(registry)
    subject_zipf = Zipf(len(slugs), s=1.1, offset=1.5)
    clock = datetime(2024, 1, 1, 8, tzinfo=timezone.utc)
    recent: dict[tuple[str, str], list[str]] = {}  # (subject, type) -> recent ids
    count = 0

    def sentence(lo: int, hi: int, slug: str | None) -> str:
        words = [vocab[zipf.draw(rng)] for _ in range(rng.randint(lo, hi))]
        if slug and rng.random() < 0.5:
            words.insert(rng.randrange(len(words) + 1), registry[slug]["display"])
        text = " ".join(words)
        return text[0].upper() + text[1:]

    def new_id() -> str:
        return "".join(rng.choice(ID_CHARS) for _ in range(12))

    while count < n:
        session = f"{rng.getrandbits(32):08x}"
        clock += timedelta(minutes=rng.randint(30, 60 * 36))
        focus = [slugs[subject_zipf.draw(rng)] for _ in range(rng.randint(1, 3))]
        size = min(rng.randint(3, 25), n - count)
        for i in range(size):
            clock += timedelta(seconds=rng.randint(5, 600))
            last = i == size - 1 and size > 1
            if last:
                kind = "handoff"
            else:
                kind = rng.choices(("fact", "task", "decision", "question"), (45, 20, 15, 8))[0]
            slug = rng.choice(focus) if rng.random() < 0.85 else None
            entry = {"id": new_id(), "timestamp": clock.strftime("%Y-%m-%dT%H:%M:%SZ"),
                     "type": kind,
                     "content": sentence(8, 16, slug) if kind == "handoff"
                     else sentence(6, 18, slug)}
            if kind == "handoff" or rng.random() < 0.4:
                entry["detail"] = sentence(10, 30, None)
            if kind == "task":
                entry["status"] = "open" if rng.random() < 0.4 else "done"
            if slug:
                entry["subject"] = slug
            key = (slug or "", kind)
            earlier = recent.get(key)
            if earlier and kind != "handoff" and rng.random() < 0.04 * 1.6:
                entry["replaces"] = earlier.pop(rng.randrange(len(earlier)))
            entry["session"] = session
            if kind != "handoff":
                bucket = recent.setdefault(key, [])
                bucket.append(entry["id"])
                if len(bucket) > 20:
                    del bucket[0]
            count += 1
            yield entry
    return registry


def ensure(n: int, seed: int = 7, *, quiet: bool = False) -> Path:
    """The path of the synthetic log with ``n`` entries, generating it when missing."""
    DATA.mkdir(parents=True, exist_ok=True)
    path = DATA / f"log-{n}-s{seed}-v{VERSION}.jsonl"
    subjects_path = path.with_suffix(".subjects.json")
    if path.exists() and subjects_path.exists():
        return path
    if not quiet:
        print(f"generating {path.name} ...", file=sys.stderr, flush=True)
    tmp = path.with_suffix(".tmp")
    gen = generate(n, seed)
    with open(tmp, "wb", buffering=1 << 20) as fh:
        while True:
            try:
                entry = next(gen)
            except StopIteration as stop:
                registry = stop.value
                break
            fh.write(orjson.dumps(entry) + b"\n")
    os.replace(tmp, path)
    subjects_path.write_text(json.dumps(registry, indent=2) + "\n")
    return path


def query_words(seed: int = 7, ranks: tuple[int, ...] = (60, 250, 900)) -> list[str]:
    """Three real-looking words of high, medium and low document frequency in the logs."""
    rng = random.Random(seed)
    vocab = vocabulary(rng)
    return [vocab[r] for r in ranks]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("sizes", nargs="*", type=int, default=[100_000, 1_000_000])
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    for n in args.sizes:
        path = ensure(n, args.seed)
        print(f"{path}  {path.stat().st_size / 1e6:.1f} MB")


if __name__ == "__main__":
    main()

"""A year of use through the real CLI: follow-ups, tokens, restatements, nights and turns.

The synthetic year of ``bench/year_world.py`` (3-5 conversations a day, ~40 recurring subjects
and a long tail, follow-ups 1-150 days later, 12 preferences restated in other words, a VPN
port changed after 85 days) is written day by day as OpenClaw 2026.2 transcripts (one JSONL
file per conversation, rotated ``.reset.<time>`` by the next ``/new``, file times set to the
simulated clock). Each night, on that clock (``ZETTELCLAW_NOW``), the installed ``zettelclaw``
runs ``sweep -j 1``, ``brief`` and ``vault build`` as subprocesses against the rule-based model
of ``bench/year_model.py`` (a real HTTP server on 127.0.0.1). Then it prints:

* follow-ups (a task said done, a question answered, a fact corrected) by days since the
  statement they follow: target shown to the model, closed the right entry, a wrong one,
  kept apart for the person to confirm (``may_replace``); then by what a careful reader
  could settle of each from its words and its conversation (``bench/year_reader.py``: one
  entry could be meant, the conversation's subject picks it or another, no one can tell);
* input tokens per extraction request (characters / 4) by part on days 1, 30, 90, 180, 365
  and the last day run; how often the cacheable prefix changed within a night;
* restated preferences: current entries each, false and missed merges, and what kept each
  restatement from being a second entry (the model taking it as known, zettelclaw dropping
  or linking it; ``ZETTELCLAW_YEAR_RESTATE=off`` turns the model's rule for other words off,
  to measure zettelclaw's check alone);
* for part 2 (issue 24): sweep wall and CPU time by night, state.json by section, per-turn
  latency against ``python3 -c pass`` (median of 5, on a copy of the night's state), the
  briefing's counts, contradiction flags and how many are real;
* the issues' targets, each ``ok`` or ``MISSED`` (nothing here fails: a benchmark reports).

Each world of ``bench/year_world.py`` (``--world``, all by default: ``named``, ``quiet``,
``paraphrase``) is a year of its own, differing in how people talk; the fake model is the same
(no smarter than word counts). The follow-up table is printed per world, then one summary.

    python bench/year.py [--days 180] [--world quiet] [--every 1] [--full] [--seed 7]
                         [--json year.json] [--repeat 5] [--keep DIR]

``--every N`` sweeps every N days instead of every night (each conversation is still extracted
with the log as it stood at its time, so the follow-ups come out alike; the nights' costs are
then per N days); ``brief`` and ``vault build`` run on the checkpoint nights only, unless
``--full``. The same seed gives the same year; a shorter run is the start of a longer one.
``make bench`` runs ``--days 365 --every 7`` on every world.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import year_reader  # noqa: E402
import year_world  # noqa: E402
from common import in_turns, median, tool  # noqa: E402
from year_model import YearModel  # noqa: E402

from tests.openclaw_home import OpenClawHome  # noqa: E402
from zettelclaw.corrections import asked_of  # noqa: E402

DEFAULT_DAYS = 365
DEFAULT_EVERY = 7
CHECKPOINTS = (1, 30, 90, 180, 365)
NIGHT = timedelta(hours=23, minutes=30)
AGENT, KEY = "main", "agent:main:main"
STEP = timedelta(seconds=30)
REPEAT = 5
BUCKETS = ("<= 6", "7-30", "31-150")

_FLAG_IDS = re.compile(r"\(\d{4}-\d\d-\d\d, ([^)\s]+)\)")


def bucket(lag: int) -> str:
    return BUCKETS[0] if lag <= 6 else BUCKETS[1] if lag <= 30 else BUCKETS[2]


def stamp(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def pct(part: float, whole: float) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


def generated_block(text: str) -> list[str]:
    begin, end = "<!-- BEGIN GENERATED BRIEFING -->", "<!-- END GENERATED BRIEFING -->"
    if begin not in text or end not in text:
        return []
    return text.split(begin, 1)[1].split(end, 1)[0].strip("\n").splitlines()


def sections(lines: list[str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    current = None
    for line in lines:
        if line.startswith("## "):
            current = out.setdefault(line[3:].strip(), [])
        elif line.startswith("- ") and current is not None:
            current.append(line[2:])
    return out


@dataclass
class Log:
    """log.jsonl as read after a night."""

    entries: list[dict]
    by_id: dict[str, dict] = field(default_factory=dict)
    by_said: dict[tuple[str, str], dict] = field(default_factory=dict)  # (session, content)
    replaced_by: dict[str, list[str]] = field(default_factory=dict)

    @classmethod
    def read(cls, path: Path) -> Log:
        import orjson

        entries = []
        if path.exists():
            for line in path.read_bytes().splitlines():
                try:
                    entry = orjson.loads(line)
                except orjson.JSONDecodeError:
                    continue
                if isinstance(entry, dict) and isinstance(entry.get("id"), str):
                    entries.append(entry)
        log = cls(entries)
        for entry in entries:
            log.by_id[entry["id"]] = entry
            log.by_said.setdefault((entry.get("session"), entry.get("content")), entry)
            if isinstance(entry.get("replaces"), str):
                log.replaced_by.setdefault(entry["replaces"], []).append(entry["id"])
        return log

    def current(self) -> list[dict]:
        return [e for e in self.entries if e["id"] not in self.replaced_by]

    def chain(self, entry_id: str) -> set[str]:
        """The entry and every entry that replaces it, directly or down a chain."""
        seen, todo = set(), [entry_id]
        while todo:
            one = todo.pop()
            if one not in seen:
                seen.add(one)
                todo.extend(self.replaced_by.get(one, ()))
        return seen


class Run:
    def __init__(self, year: year_world.Year, days: int, scratch: Path, model: YearModel,
                 repeat: int = REPEAT, full: bool = True):
        self.year, self.days, self.scratch, self.model = year, days, scratch, model
        self.repeat, self.full = repeat, full
        self.swept = 0  # the last day swept
        self.zc = tool("zettelclaw")
        self.state_dir = scratch / "openclaw"
        self.home = scratch / "zettelclaw"
        self.workspace = scratch / "workspace"
        self.vault = scratch / "vault"
        self.workspace.mkdir(parents=True)
        self.openclaw = OpenClawHome(self.state_dir)
        self.env = self.environment(self.home, self.workspace)
        self.live: Path | None = None  # the key's current transcript, rotated by the next /new
        self.live_session: str | None = None
        self.hooked = 0  # conversations the /new hook extracted since the last night
        self.entry_of: dict[int, str | None] = {}  # statement n -> its entry id
        self.key_of: dict[str, tuple] = {}  # entry id -> (key, value) of its statement
        self.follow_ups: list[dict] = []
        self.misses: list[dict] = []  # follow-ups not shown their target or not closing it
        self.nights: list[dict] = []
        self.checkpoints: dict[int, dict] = {}
        self.flags: dict[tuple[str, str], int] = {}  # flagged pair -> the night first shown
        self.prefix = Counter()  # compared, changed
        self.false_merges: list[dict] = []
        self.merged_by = Counter()  # a restatement's fate: which mechanism kept it one entry
        # follow-up n -> what a careful reader could settle of it (bench/year_reader.py)
        self.reader = year_reader.settle(year)

    def environment(self, home: Path, workspace: Path) -> dict:
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("ZETTELCLAW_", "ANTHROPIC_", "OPENCLAW_"))}
        env.update({"HOME": str(self.scratch), "OPENCLAW_STATE_DIR": str(self.state_dir),
                    "OPENCLAW_CONFIG_PATH": str(self.state_dir / "openclaw.json"),
                    "OPENCLAW_WORKSPACE_DIR": str(workspace), "ZETTELCLAW_HOME": str(home),
                    "ANTHROPIC_BASE_URL": self.model.url,
                    "ANTHROPIC_API_KEY": self.model.api_key, "ZETTELCLAW_RETRY_BASE": "0.01",
                    # bytecode as an installed zettelclaw has it, kept out of the tree
                    "PYTHONPYCACHEPREFIX": str(self.scratch / "pycache")})
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        return env

    # -- the day --------------------------------------------------------------------------

    def converse(self, day: int) -> None:
        """The day's conversations, each a new sessionId (``/new``) of the main key. At each
        ``/new`` the plugin's ``before_reset`` hook extracts the conversation it ends, with its
        session key (a 2026.2 transcript that /new rotated has no key in the session store
        any more, and a transcript whose key nobody recorded is nobody's: docs/people.md);
        the night's sweep catches the day's last one."""
        for conversation in self.year.days[day - 1]:
            if self.live is not None:  # /new renames the last transcript .reset.<time>
                rotated = conversation.start.strftime("%Y-%m-%dT%H-%M-%S.000Z")
                self.run(["extract", "--session-id", self.live_session, "--agent", AGENT,
                          "--session-key", KEY, "--reason", "before_reset"],
                         stamp(conversation.start))
                self.hooked += 1
                os.rename(self.live, self.live.with_name(f"{self.live.name}.reset.{rotated}"))
            path = self.openclaw.jsonl_session(AGENT, conversation.session, conversation.turns,
                                               key=KEY, start=conversation.start, step=STEP)
            store = json.loads((path.parent / "sessions.json").read_text())
            ended = store[KEY]["updatedAt"] / 1000
            os.utime(path, (ended, ended))  # the file time agrees with the simulated clock
            self.live, self.live_session = path, conversation.session

    def run(self, argv: list[str], now: str) -> tuple[subprocess.CompletedProcess, float, float]:
        """A zettelclaw command at ``now``: (the process, wall seconds, CPU seconds)."""
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run([self.zc, *argv], env={**self.env, "ZETTELCLAW_NOW": now},
                              capture_output=True, text=True)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode != 0:
            print(f"day {now[:10]}: zettelclaw {' '.join(argv)} exited {done.returncode}: "
                  f"{done.stderr.strip()[-500:]}", file=sys.stderr)
        return done, wall, (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)

    # -- the night ------------------------------------------------------------------------

    def night(self, day: int) -> None:
        """The night after ``day``: a sweep of the days since the last one; ``brief`` and
        ``vault build`` when :attr:`full` or on a checkpoint."""
        now = stamp(self.year.date(day) + NIGHT)
        days = range(self.swept + 1, day + 1)
        self.swept = day
        point = day in CHECKPOINTS or day == self.days
        sweep, sweep_wall, sweep_cpu = self.run(["sweep", "-j", "1", "--json"], now)
        extraction = [m for m in self.model.measures if m.kind == "extraction"]
        nothing = subprocess.CompletedProcess([], 0, "", ""), 0.0, 0.0
        brief, brief_wall, _ = (self.run(["brief", "--no-vault"], now)
                                if self.full or point else nothing)
        vault, vault_wall, _ = (self.run(["vault", "build", "--vault", str(self.vault)], now)
                                if self.full or point else nothing)
        judged = [m for m in self.model.measures if m.kind == "contradiction"]
        log = Log.read(self.home / "log.jsonl")
        for one in days:
            self.settle(one, log, extraction)
        for prev, this in zip(extraction, extraction[1:], strict=False):
            self.prefix["compared"] += 1
            self.prefix["changed"] += prev.prefix_hash != this.prefix_hash
        memory = self.workspace / "MEMORY.md"
        block = generated_block(memory.read_text()) if memory.exists() else []
        flagged = (self.note_flags(day, sections(block).get("Contradictions", []))
                   if self.full or point else [])
        try:
            summary = json.loads(sweep.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            summary = {}
        extracted = summary.get("extracted")
        record = {"day": day, "conversations": sum(len(self.year.days[d - 1]) for d in days),
                  "sweep": {"wall": sweep_wall, "cpu": sweep_cpu,
                            # (the /new hook's extractions of the day and the sweep's)
                            "extracted": None if extracted is None else extracted + self.hooked,
                            "requests": len(extraction)},
                  "brief": {"wall": brief_wall, "ok": brief.returncode == 0,
                            "judged_requests": len(judged)},
                  "vault": {"wall": vault_wall, "ok": vault.returncode == 0},
                  "tokens": self.tokens(extraction), "flags": flagged,
                  "log_lines": len(log.entries)}
        self.nights.append(record)
        if point:
            self.checkpoints[day] = self.checkpoint(day, now, log, block, record)
        self.model.measures.clear()  # (what the model was asked since the last night)
        self.model.known.clear()
        self.hooked = 0

    def settle(self, day: int, log: Log, extraction: list) -> None:
        """Tonight's statements matched to their entries; follow-ups judged."""
        shown: dict[str, set[str]] = {}
        for m in extraction:
            for sentence in m.sentences:
                shown.setdefault(sentence, set()).update(m.shown)
        statements = [s for c in self.year.days[day - 1] for s in c.statements]
        for s in statements:
            entry = log.by_said.get((s.session, s.content)) if s.kind != "talk" else None
            self.entry_of[s.n] = entry["id"] if entry else None
            if entry:
                self.key_of[entry["id"]] = (s.key, s.value)
        known = dict(self.model.known)  # sentence -> the shown entry the model took it for
        for s in statements:
            if s.follow_up:
                self.judge_follow_up(s, log, shown.get(s.text, set()))
            elif s.kind != "talk":
                self.check_merge(s, log, known.get(s.text))

    def judge_follow_up(self, s: year_world.Statement, log: Log, shown: set[str]) -> None:
        target = self.entry_of.get(s.target)
        mine = self.entry_of.get(s.n)
        linked = log.by_id[mine].get("replaces") if mine else None
        asked = asked_of(log.by_id[mine]) if mine else ()
        if mine is None:
            outcome = "lost"
        elif linked is None:
            outcome = "none"
        elif target is not None and linked in log.chain(target):
            outcome = "right"
        else:
            outcome = "wrong"
        if len(self.misses) < 400 and (outcome != "right" or target not in shown):
            said = self.year.statements[s.target]
            self.misses.append({"n": s.n, "outcome": outcome, "shown": target in shown,
                                "lag": s.day - said.day, "text": s.text, "target": said.text,
                                "linked": log.by_id.get(linked, {}).get("content")
                                if linked else None})
        self.follow_ups.append({
            "n": s.n, "kind": s.kind, "day": s.day,
            "lag": s.day - self.year.statements[s.target].day, "outcome": outcome,
            "target_in_log": target is not None, "target_shown": target in shown,
            "asked": bool(asked),
            # the right entry among those the person is asked about
            "asked_right": target is not None and any(a in log.chain(target) for a in asked),
            "vpn": self.year.vpn is not None and s.n == self.year.vpn[1],
            "reader": self.reader.get(s.n)})

    def check_merge(self, s: year_world.Statement, log: Log, known: str | None) -> None:
        """A statement that is not a follow-up and left no entry of its own, or whose entry
        links to an entry about another thing: merged into something else. A false merge
        when no earlier statement said the same thing, or when the entry the model took it
        for (``known``: it wrote nothing, told that what it was shown is known) or the one
        it replaces is about another thing. A restatement of a preference is counted in
        :attr:`merged_by` by what kept it from being a second entry."""
        mine = self.entry_of.get(s.n)
        restated = s.kind == "preference" and any(
            o.key == s.key for o in self.year.statements[:s.n] if o.kind == "preference")
        if mine is None:
            same = any(self.key_of.get(e) == (s.key, s.value)
                       for e in self.entry_of.values() if e)
            if known is not None and self.key_of.get(known, (None,))[0] != s.key:
                self.false_merges.append({"n": s.n, "day": s.day, "how": "taken as known",
                                          "text": s.text,
                                          "to": log.by_id.get(known, {}).get("content")})
            elif not same:
                self.false_merges.append({"n": s.n, "day": s.day, "how": "dropped",
                                          "text": s.text})
            if restated:
                self.merged_by["model: known" if known else "zettelclaw: dropped"] += 1
            return
        linked = log.by_id[mine].get("replaces")
        if linked and self.key_of.get(linked, (None,))[0] != s.key:
            self.false_merges.append({"n": s.n, "day": s.day, "how": "linked",
                                      "text": s.text,
                                      "to": log.by_id.get(linked, {}).get("content")})
        if restated:
            self.merged_by["zettelclaw: linked" if linked else "a new entry"] += 1

    def note_flags(self, day: int, lines: list[str]) -> list[dict]:
        out = []
        for line in lines:
            ids = _FLAG_IDS.findall(line)
            if len(ids) < 2:
                continue
            pair = (ids[0], ids[1])
            self.flags.setdefault(pair, day)
            out.append({"pair": pair, "real": self.real(pair)})
        return out

    def real(self, pair: tuple[str, str]) -> bool:
        """Both entries say something of the same named thing, and not the same."""
        a, b = self.key_of.get(pair[0]), self.key_of.get(pair[1])
        return bool(a and b and a[0] == b[0] and a[1] != b[1])

    @staticmethod
    def tokens(extraction: list) -> dict:
        if not extraction:
            return {}
        parts = [m.tokens() for m in extraction]
        return {k: sum(p[k] for p in parts) / len(parts) for k in parts[0]}

    # -- checkpoints ----------------------------------------------------------------------

    def checkpoint(self, day: int, now: str, log: Log, block: list[str], night: dict) -> dict:
        current = log.current()
        open_tasks = [e for e in current if e["type"] == "task" and e.get("status") == "open"]
        open_questions = [e for e in current if e["type"] == "question"]
        said = {self.entry_of.get(s.target) for s in self.year.statements
                if s.follow_up and s.day <= day}
        found = sections(block)
        flags = night["flags"]
        state = self.home / "state.json"
        state_sections = {}
        if state.exists():
            data = json.loads(state.read_text())
            state_sections = {k: len(json.dumps(v, separators=(",", ":")))
                              for k, v in data.items()}
        return {
            "log_lines": len(log.entries),
            "open_tasks": len(open_tasks),
            "open_tasks_said_done": sum(e["id"] in said for e in open_tasks),
            "open_questions": len(open_questions),
            "open_questions_answered": sum(e["id"] in said for e in open_questions),
            "briefing": {"lines": len(block), "tasks_shown": len(found.get("Pending", [])),
                         "questions_shown": len(found.get("Open Questions", [])),
                         "flags": len(flags), "real_flags": sum(f["real"] for f in flags)},
            "state_bytes": state.stat().st_size if state.exists() else 0,
            "state_sections": state_sections,
            # per-turn latency on every checkpoint of a full run, else on the last day only
            "latency": self.latency(now) if self.full or day == self.days else {},
            "restated": self.restated(log),
        }

    def latency(self, now: str) -> dict:
        """Per-turn commands on a copy of tonight's state: median of 5, in turns, against
        ``python3 -c pass``."""
        probe = self.scratch / "probe"
        shutil.rmtree(probe, ignore_errors=True)
        shutil.copytree(self.home, probe / "zettelclaw")
        shutil.copytree(self.workspace, probe / "workspace")
        if self.vault.exists():
            shutil.copytree(self.vault, probe / "vault")
        env = {**self.environment(probe / "zettelclaw", probe / "workspace"),
               "ZETTELCLAW_NOW": now}
        busiest = self.year.subjects[self.year.recurring[0]]
        message = f"What is still open on {busiest}?"
        word = busiest.split()[0].lower()
        zc = self.zc
        commands = {
            "python3 -c pass": [sys.executable, "-c", "pass"],
            "recall --handoff -- <relevant message>": [zc, "recall", "--handoff", "--", message],
            f"search {word}": [zc, "search", word],
            "brief --no-llm": [zc, "brief", "--no-llm"],
            "vault build after one write": [zc, "vault", "build", "--vault",
                                            str(probe / "vault")],
            "handoff": [zc, "handoff", "--text"],
            "recall -- thanks!": [zc, "recall", "--", "thanks!"],
            "sweep, nothing new": [zc, "sweep", "-j", "1"],
        }
        # the copy is another file (a new inode): the caches kept beside the log no longer
        # hold for it, and the first turn keeps them again, as a person's first turn after
        # the night did; one untimed turn each, so even a median of one (--repeat 1) times a
        # turn as every later one is
        for name in ("recall --handoff -- <relevant message>", f"search {word}",
                     "brief --no-llm"):
            subprocess.run(commands[name], env=env, check=True, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)

        def write(turn: int) -> list[str]:  # a new fact each round: the same one is refused
            return [zc, "write", "fact", f"Probe note number {turn + 1} about {busiest}.",
                    "-s", self.year.recurring[0]]

        runs = in_turns(commands, env, self.repeat, pick=median,
                        before={"vault build after one write": write})
        shutil.rmtree(probe, ignore_errors=True)
        ref = runs["python3 -c pass"][0]
        return {name: {"seconds": wall, "ratio": wall / ref if ref else None}
                for name, (wall, _, _) in runs.items()}

    def restated(self, log: Log) -> dict:
        """Per preference: statements so far and current entries that say it."""
        said = Counter(s.key for s in self.year.statements if s.kind == "preference"
                       and s.n in self.entry_of)
        live = Counter(self.key_of.get(e["id"], (None,))[0] for e in log.current())
        return {key: {"said": n, "current": live.get(key, 0)} for key, n in sorted(said.items())}

    # -- the report -----------------------------------------------------------------------

    def so_far(self) -> str:
        """The follow-up table so far, one line: shown / right / wrong by lag."""
        cells = []
        for name in BUCKETS:
            rows = [f for f in self.follow_ups if bucket(f["lag"]) == name]
            if rows:
                cells.append(f"{name}: " + "/".join(
                    pct(sum(test(f) for f in rows), len(rows)) for test in (
                        lambda f: f["target_shown"], lambda f: f["outcome"] == "right",
                        lambda f: f["outcome"] == "wrong")) + f" of {len(rows)}")
        return "; ".join(cells) or "no follow-ups yet"

    def report(self, elapsed: float) -> dict:
        table = {}
        for name in BUCKETS:
            rows = [f for f in self.follow_ups if bucket(f["lag"]) == name]
            n = len(rows)
            table[name] = {
                "follow_ups": n,
                "target_shown": sum(f["target_shown"] for f in rows) / n if n else None,
                "right": sum(f["outcome"] == "right" for f in rows) / n if n else None,
                "wrong": sum(f["outcome"] == "wrong" for f in rows) / n if n else None,
                "not_linked": sum(f["outcome"] in ("none", "lost") for f in rows) / n
                if n else None,
                # kept apart with may_replace, for the person to confirm (zettelclaw review)
                "asked": sum(f.get("asked", False) for f in rows) / n if n else None,
                "asked_right": sum(f.get("asked_right", False) for f in rows) / n
                if n else None}
        readers = {}
        for name in ("unique", "conversation", "misled", "ambiguous"):
            rows = [f for f in self.follow_ups if f.get("reader") == name]
            n = len(rows)
            readers[name] = {"follow_ups": n, **{
                k: sum(f["outcome"] == k for f in rows) / n if n else None
                for k in ("right", "wrong")},
                "asked": sum(f.get("asked", False) for f in rows) / n if n else None,
                "target_shown": sum(f["target_shown"] for f in rows) / n if n else None}
        last = self.checkpoints[self.days]
        restated = last["restated"]
        flags_real = sum(self.real(p) for p in self.flags)
        vpn = self.vpn()
        return {"world": self.year.world, "seed": self.year.seed, "days": self.days,
                "elapsed_seconds": elapsed,
                "repeat": self.repeat,
                "conversations": sum(n["conversations"] for n in self.nights),
                "subjects": len({s.subject for s in self.year.statements
                                 if s.subject and s.day <= self.days}),
                "follow_ups": table, "follow_ups_by_reader": readers,
                "prefix_changed": (self.prefix["changed"] / self.prefix["compared"]
                                   if self.prefix["compared"] else None),
                "restatements": {"preferences": restated,
                                 "one_current": sum(v["current"] == 1
                                                    for v in restated.values()),
                                 "missed_merges": sum(max(0, v["current"] - 1)
                                                      for v in restated.values()),
                                 "false_merges": len(self.false_merges),
                                 "merged_by": dict(self.merged_by),
                                 "false_merge_examples": self.false_merges[:5]},
                "flags": {"pairs": len(self.flags), "real": flags_real},
                "vpn": vpn,
                "checkpoints": self.checkpoints, "nights": self.nights,
                "misses": self.misses, "follow_up_rows": self.follow_ups}

    def vpn(self) -> dict:
        if self.year.vpn is None:
            return {}
        first, change = self.year.vpn
        said_first = self.year.statements[first].day
        said_change = self.year.statements[change].day
        out = {"said": said_first, "changed": said_change}
        if said_change > self.days:
            return out
        row = next((f for f in self.follow_ups if f["vpn"]), {})
        out["linked"] = row.get("outcome")
        old, new = self.entry_of.get(first), self.entry_of.get(change)
        nights = [night for pair, night in self.flags.items() if set(pair) == {old, new}]
        out["flagged_after_nights"] = (min(nights) - said_change + 1) if nights else None
        return out


# -- printing -------------------------------------------------------------------------------


def night_of(report: dict, day: int) -> dict:
    """The night swept after ``day`` (one runs after every checkpoint)."""
    return next(n for n in report["nights"] if n["day"] == day)


def verdict(ok: bool | None) -> str:
    return "n/a" if ok is None else "ok" if ok else "MISSED"


def show(report: dict) -> None:
    days = report["days"]
    points = report["checkpoints"]
    print(f"year benchmark, world {report['world']!r}: seed {report['seed']}, {days} days, "
          f"{report['conversations']:,} conversations, {report['subjects']} subjects, "
          f"{points[days]['log_lines']:,} log lines; {report['elapsed_seconds']:.0f} s")

    print("\nFollow-ups closing an earlier entry, by days since it was said")
    print(f"  {'said after':<12} {'n':>5} {'target shown':>13} {'closed right':>13} "
          f"{'closed wrong':>13} {'not linked':>11} {'asked (right)':>15}")
    for name, row in report["follow_ups"].items():
        cells = [pct(row.get(k) or 0, 1) if row["follow_ups"] else "-"
                 for k in ("target_shown", "right", "wrong", "not_linked", "asked",
                           "asked_right")]
        print(f"  {name + ' days':<12} {row['follow_ups']:>5} {cells[0]:>13} {cells[1]:>13} "
              f"{cells[2]:>13} {cells[3]:>11} {cells[4] + ' (' + cells[5] + ')':>15}")
    print("  asked: kept apart for the person to confirm (`zettelclaw review`), of all; "
          "(right): the right entry among those it may close")
    readers = report.get("follow_ups_by_reader") or {}
    if readers:
        print("  by what a careful reader could settle from the words and the conversation "
              "(bench/year_reader.py), every lag:")
        print(f"  {'reader':<12} {'n':>5} {'target shown':>13} {'closed right':>13} "
              f"{'closed wrong':>13} {'asked':>11}")
        for name, row in readers.items():
            cells = [pct(row.get(k) or 0, 1) if row["follow_ups"] else "-"
                     for k in ("target_shown", "right", "wrong", "asked")]
            print(f"  {name:<12} {row['follow_ups']:>5} {cells[0]:>13} {cells[1]:>13} "
                  f"{cells[2]:>13} {cells[3]:>11}")
        print("  unique: one open entry could be meant; conversation: several, one of a subject "
              "the conversation names, the target;\n  misled: the same, another than the target "
              "(said in a conversation about something else); ambiguous: no reader can tell")
    last = points[days]
    print(f"  day {days}: {last['open_tasks']:,} open tasks ({last['open_tasks_said_done']:,} "
          f"of them said done), {last['open_questions']:,} open questions "
          f"({last['open_questions_answered']:,} answered)")
    vpn = report["vpn"]
    if vpn.get("linked") is not None:
        flagged = vpn["flagged_after_nights"]
        print(f"  the VPN port said on day {vpn['said']}, changed on day {vpn['changed']}: "
              f"linked {vpn['linked']}; flagged as a contradiction "
              f"{'after ' + str(flagged) + ' night(s)' if flagged else 'never'}")
    elif vpn:
        print(f"  the VPN port said on day {vpn['said']} changes on day {vpn['changed']}: "
              "not reached")

    print("\nInput tokens per extraction request (characters / 4), mean of the night's requests")
    print(f"  {'day':>4} {'requests':>8} {'fixed prompt':>13} {'subjects list':>16} "
          f"{'entries shown':>16} {'transcript':>11} {'total':>8}")
    for day in sorted(points):
        night = night_of(report, day)
        t = night["tokens"]
        if not t:
            continue
        subjects = f"{t['subjects']:,.0f} ({t['subject_count']:.0f})"
        entries = f"{t['entries']:,.0f} ({t['entry_count']:.0f})"
        print(f"  {day:>4} {night['sweep']['requests']:>8} {t['prompt']:>13,.0f} "
              f"{subjects:>16} {entries:>16} {t['transcript']:>11,.0f} {t['total']:>8,.0f}")
    changed = report["prefix_changed"]
    print(f"  the cacheable prefix (system blocks) changed in {pct(changed or 0, 1)} of requests "
          "against the night's previous request")

    r = report["restatements"]
    prefs = r["preferences"]
    print(f"\nRestated preferences: {len(prefs)} said {sum(v['said'] for v in prefs.values())} "
          f"times; current entries: {sum(v['current'] for v in prefs.values())} "
          f"({', '.join(str(v['current']) for v in prefs.values())})")
    print(f"  one current entry: {r['one_current']} of {len(prefs)}; missed merges "
          f"{r['missed_merges']}; false merges (different facts merged) {r['false_merges']}")
    if r.get("merged_by"):
        print("  restatements after the first: " + ", ".join(
            f"{how} {n}" for how, n in sorted(r["merged_by"].items())))
    for example in r["false_merge_examples"]:
        print(f"    {example['how']}: {example['text']!r}"
              + (f" -> {example['to']!r}" if example.get("to") else ""))

    print("\nNights: sweep -j 1 (wall / CPU), brief, vault build (wall), by day")
    print(f"  {'day':>4} {'convs':>5} {'sweep wall':>10} {'sweep CPU':>10} {'brief':>7} "
          f"{'vault':>7} {'log lines':>9}")
    for day in sorted(points):
        n = night_of(report, day)
        print(f"  {day:>4} {n['conversations']:>5} {n['sweep']['wall']:>9.2f}s "
              f"{n['sweep']['cpu']:>9.2f}s {n['brief']['wall']:>6.2f}s "
              f"{n['vault']['wall']:>6.2f}s {n['log_lines']:>9,}")

    print("\nstate.json by section (bytes)")
    names = sorted({k for p in points.values() for k in p["state_sections"]})
    print(f"  {'day':>4} {'total':>9}  " + "  ".join(names))
    for day in sorted(points):
        p = points[day]
        print(f"  {day:>4} {p['state_bytes']:>9,}  "
              + "  ".join(f"{p['state_sections'].get(k, 0):>{len(k)},}" for k in names))

    print(f"\nPer-turn latency, median of {report['repeat']}, ratio to python3 -c pass")
    commands = list(points[days]["latency"])
    print(f"  {'command':<42} " + " ".join(f"{'day ' + str(d):>13}" for d in sorted(points)))
    for name in commands:
        cells = []
        for day in sorted(points):
            found = points[day]["latency"].get(name)
            if found is None:
                cells.append("-")
            elif name == "python3 -c pass":
                cells.append(f"{found['seconds'] * 1000:.0f} ms")
            else:
                cells.append(f"{found['ratio']:.1f}x" if found else "-")
        print(f"  {name:<42} " + " ".join(f"{c:>13}" for c in cells))

    print("\nBriefing (MEMORY.md's generated block)")
    print(f"  {'day':>4} {'lines':>5} {'tasks shown':>11} {'not shown':>9} "
          f"{'questions shown':>15} {'not shown':>9} {'flags':>5} {'real':>4}")
    for day in sorted(points):
        p, b = points[day], points[day]["briefing"]
        print(f"  {day:>4} {b['lines']:>5} {b['tasks_shown']:>11} "
              f"{p['open_tasks'] - b['tasks_shown']:>9,} {b['questions_shown']:>15} "
              f"{p['open_questions'] - b['questions_shown']:>9,} {b['flags']:>5} "
              f"{b['real_flags']:>4}")
    flags = report["flags"]
    print(f"  over {days} nights: {flags['pairs']} pairs flagged, {flags['real']} of them real "
          "(the same named thing, a different value)")

    print("\nTargets")
    for line in targets(report):
        print(f"  {line}")


def targets(report: dict) -> list[str]:
    out = []
    days, points = report["days"], report["checkpoints"]
    late = [report["follow_ups"][b] for b in BUCKETS[1:]]
    n = sum(b["follow_ups"] for b in late)
    if n:
        right = sum((b["right"] or 0) * b["follow_ups"] for b in late) / n
        wrong = sum((b["wrong"] or 0) * b["follow_ups"] for b in late) / n
        out.append(f"22: follow-ups said 7-150 days later close the right entry >= 80%: "
                   f"{pct(right, 1)} {verdict(right >= 0.8)}")
        out.append(f"22: ... and a wrong one <= 10%: {pct(wrong, 1)} {verdict(wrong <= 0.1)}")
    last = night_of(report, days)["tokens"]
    if days > 30 and night_of(report, 30)["tokens"] and last:
        ratio = last["total"] / night_of(report, 30)["tokens"]["total"]
        out.append(f"22: input tokens per extraction on day {days} <= 1.2x day 30: "
                   f"{ratio:.2f}x {verdict(ratio <= 1.2)}")
    if last:
        ratio = last["total"] / last["transcript"] if last["transcript"] else float("inf")
        out.append(f"22: ... and <= 12x the transcript: {ratio:.1f}x {verdict(ratio <= 12)}")
    r = report["restatements"]
    if r["preferences"]:
        share = r["one_current"] / len(r["preferences"])
        out.append(f"22: restated preferences end as one current entry >= 90%: {pct(share, 1)} "
                   f"{verdict(share >= 0.9)}")
    out.append(f"22: false merges 0: {r['false_merges']} {verdict(r['false_merges'] == 0)}")
    vpn = report["vpn"]
    if "linked" in vpn:
        after = vpn["flagged_after_nights"]
        ok = vpn["linked"] == "right" or (after is not None and after <= 3)
        out.append(f"24: the planted change (VPN port) is linked or flagged within 3 nights: "
                   f"linked {vpn['linked']}, flagged "
                   f"{'after ' + str(after) + ' night(s)' if after else 'never'} {verdict(ok)}")
    flags = report["flags"]
    if flags["pairs"]:
        wrong = 1 - flags["real"] / flags["pairs"]
        out.append(f"24: at most one flag in ten is a pair of different things: {pct(wrong, 1)} "
                   f"{verdict(wrong <= 0.1)}")
    size = points[days]["state_bytes"]
    out.append(f"24: state.json under 150 KB (at a year; day {days}): {size / 1000:.0f} KB "
               f"{verdict(size < 150_000)}")
    latency = points[days]["latency"]
    for name in latency:
        if name.startswith(("recall --handoff", "search ")):
            ratio = latency[name]["ratio"]
            out.append(f"24: {name} <= 3x python3 on day {days}: {ratio:.1f}x "
                       f"{verdict(ratio <= 3)}")
    return out


def summary(reports: list[dict]) -> None:
    """One table over the worlds: the follow-ups by lag, restatements, tokens."""
    print("\nWorlds: target shown / closed right / closed wrong, by days since it was said")
    print(f"  {'world':<11} {'days':>4} " + " ".join(f"{b + ' days':>22}" for b in BUCKETS)
          + f" {'prefs one':>9} {'tokens 365/30':>13}")
    for report in reports:
        cells = []
        for name in BUCKETS:
            row = report["follow_ups"][name]
            cells.append("/".join(pct(row[k] or 0, 1)[:-1] if row["follow_ups"] else "-"
                                  for k in ("target_shown", "right", "wrong")))
        prefs = report["restatements"]
        days = report["days"]
        last, month = night_of(report, days)["tokens"], None
        if days > 30:
            month = night_of(report, 30)["tokens"]
        ratio = f"{last['total'] / month['total']:.2f}x" if last and month else "-"
        print(f"  {report['world']:<11} {days:>4} " + " ".join(f"{c:>22}" for c in cells)
              + f" {prefs['one_current']:>4} of {len(prefs['preferences']):<2} {ratio:>13}")


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=DEFAULT_DAYS,
                        help=f"days to run, 1-{year_world.YEAR} (default {DEFAULT_DAYS})")
    parser.add_argument("--world", action="append", choices=list(year_world.WORLDS),
                        help="a world to run (repeatable; default: all of them)")
    parser.add_argument("--every", type=int, default=DEFAULT_EVERY,
                        help=f"sweep every N days (default {DEFAULT_EVERY}; 1: every night)")
    parser.add_argument("--full", action="store_true",
                        help="brief and vault build every night, latency on every checkpoint")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    parser.add_argument("--repeat", type=int, default=REPEAT,
                        help=f"runs of each per-turn command, the median kept (default {REPEAT})")
    parser.add_argument("--keep", metavar="DIR", help="keep the simulated home in DIR")
    args = parser.parse_args(argv)
    if not 1 <= args.days <= year_world.YEAR:
        parser.error(f"--days must be 1-{year_world.YEAR}")
    if args.every < 1:
        parser.error("--every must be 1 or more")
    reports = []
    for world in args.world or list(year_world.WORLDS):
        reports.append(one_world(world, args))
        if args.json:  # after each world: a long run's figures so far
            Path(args.json).write_text(json.dumps(reports, indent=1, default=list) + "\n")
    if len(reports) > 1:
        summary(reports)
    return reports


def one_world(world: str, args) -> dict:
    began = time.perf_counter()
    year = year_world.build(args.seed, world)
    scratch = Path(tempfile.mkdtemp(prefix="zc-year-"))
    try:
        with YearModel() as model:
            run = Run(year, args.days, scratch, model, max(1, args.repeat), args.full)
            for day in range(1, args.days + 1):
                run.converse(day)
                if day % args.every == 0 or day in CHECKPOINTS or day == args.days:
                    run.night(day)
                if day % 10 == 0 or day == args.days:
                    print(f"  {world}: day {day}/{args.days}, "
                          f"{time.perf_counter() - began:.0f} s", file=sys.stderr, flush=True)
                if day in CHECKPOINTS and day < args.days:  # the figures so far
                    print(f"  {world}: day {day}: {run.so_far()}", file=sys.stderr, flush=True)
            report = run.report(time.perf_counter() - began)
        if args.keep:
            shutil.copytree(scratch, Path(args.keep) / world, dirs_exist_ok=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    sys.stderr.flush()
    show(report)
    return report


if __name__ == "__main__":
    main()

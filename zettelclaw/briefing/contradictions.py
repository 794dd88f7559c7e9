"""Contradictions: candidates found in code, judged by the model, remembered in state.json.

Candidates: the same subject, an older current fact or decision from another session against a
current fact or decision of the active window, sharing at least two content words (stemmed; stop
words, numbers and the subject's own name dropped), best overlap first. Only those go to the
model (``prompts/contradiction.md``), a dozen at most per night; every pair it judges is
remembered in state.json (``contradictions``) and never asked again. A flag stays in the
briefing for 24 hours, at most 3 a night. A judged pair is forgotten once it can never be a
candidate again (:func:`expired`: its newer entry has left the active window, its flag is no
longer shown) or one of its entries was replaced: the section holds a few weeks of judgments,
not a year's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import timedelta

from ..clock import days_before, format_ts, parse_ts
from .options import Options
from .sections import Snapshot, name, one_line

MAX_CONTRADICTIONS = 3       # flags per night
MAX_JUDGED = 12              # candidate pairs sent to the model per night
FLAG_SHOWN_FOR = timedelta(hours=24)
OLDER_PER_SUBJECT = 400      # older entries of one subject a new one is compared with
NEWER_PER_SUBJECT = 60       # newest facts/decisions of one subject checked per night
MIN_SHARED_TERMS = 2
QUOTE_CHARS = 70             # each side of a contradiction
STATE_SECTION = "contradictions"


@dataclass
class Pair:
    """A contradiction candidate: an older entry against a newer one of the same subject."""

    subject: str
    older: dict
    newer: dict
    score: float = 0.0

    @property
    def key(self) -> str:
        return f"{self.older['id']}>{self.newer['id']}"

    def line(self) -> str:
        def side(entry: dict) -> str:
            quote = one_line(entry["content"], QUOTE_CHARS).replace('"', "'")
            return f'"{quote}" ({(entry.get("timestamp") or "")[:10]}, {entry["id"]})'

        return f"{name(self.subject)}: {side(self.older)} may conflict with {side(self.newer)}"


def candidates(snapshot: Snapshot, judged: set[str], limit: int = MAX_JUDGED) -> list[Pair]:
    """The pairs most worth asking about: same subject, shared words, never judged before."""
    from bisect import bisect_left

    from ..rank import terms

    cache: dict[str, frozenset[str]] = {}
    naming: frozenset[str] = frozenset()

    def words(entry: dict) -> frozenset[str]:
        found = cache.get(entry["id"])
        if found is None:
            found = cache[entry["id"]] = frozenset(
                t for t in terms(entry["content"]) if not t.isdigit() and t not in naming)
        return found

    pairs: list[Pair] = []
    for subject, items in snapshot.facts.items():
        naming = frozenset(terms(subject.replace("-", " ")))  # the subject's own name: shared
        stamps = [ts for ts, _ in items]  # sorted
        first_new = max(bisect_left(stamps, snapshot.active_key), len(items) - NEWER_PER_SUBJECT)
        for new_ts, new in items[first_new:]:
            new_words = words(new)
            if len(new_words) < MIN_SHARED_TERMS:
                continue
            end = bisect_left(stamps, new_ts)
            for _, old in items[max(0, end - OLDER_PER_SUBJECT):end]:
                if old.get("session") == new.get("session") and old.get("session"):
                    continue  # one conversation's entries were extracted together
                pair = Pair(subject, old, new)
                if pair.key in judged:
                    continue
                old_words = words(old)
                shared = len(new_words & old_words)
                if shared >= MIN_SHARED_TERMS:
                    pair.score = shared / len(new_words | old_words)
                    pairs.append(pair)
    pairs.sort(key=lambda p: (p.score, p.newer.get("timestamp") or "",
                              p.older.get("timestamp") or ""), reverse=True)
    return pairs[:limit]


_PAIR_TAGS = re.compile(r"<(/?\s*pairs\b)", re.IGNORECASE)
_VERDICT = re.compile(r"^\s*(?:pair\s*)?#?(\d+)\s*[:.)=-]\s*\**\s*(yes|no)\b", re.IGNORECASE)


def contradiction_request(pairs: list[Pair]) -> str:
    """The user turn: the numbered pairs, framed as data."""
    out = []
    for n, pair in enumerate(pairs, 1):
        out.append(f"{n}. subject: {pair.subject}")
        for label, entry in (("older", pair.older), ("newer", pair.newer)):
            out.append(f"   {label} ({entry['type']}, {(entry.get('timestamp') or '')[:10]}): "
                       f"{one_line(entry['content'], 400)}")
            if entry.get("detail"):
                out.append(f"     detail: {one_line(entry['detail'], 400)}")
    body = _PAIR_TAGS.sub(lambda m: "‹" + m.group(1), "\n".join(out))
    return f"<pairs>\n{body}\n</pairs>"


def parse_verdicts(text: str, count: int) -> dict[int, bool]:
    """``N: yes`` / ``N: no`` lines of the model's answer (pair number -> conflict).

    Anything else is ignored, so an answer in another shape judges nothing.
    """
    verdicts: dict[int, bool] = {}
    for line in (text or "").splitlines():
        match = _VERDICT.match(line)
        if match and 1 <= int(match.group(1)) <= count:
            verdicts.setdefault(int(match.group(1)), match.group(2).lower() == "yes")
    return verdicts


def judge(pairs: list[Pair], options: Options):
    """Ask the model about ``pairs``: (verdicts, token usage). Raises ModelError when it
    cannot be reached."""
    from ..model import Client, Settings
    from ..resources import prompt

    settings = Settings.resolve("extraction", model=options.model)
    reply = Client(settings).complete(prompt("contradiction"), contradiction_request(pairs),
                                      max_tokens=64 + 16 * len(pairs))
    return parse_verdicts(reply.text, len(pairs)), reply.usage


@dataclass
class Judgement:
    """What tonight's contradiction check decided."""

    judged: dict[str, dict] = field(default_factory=dict)  # pair key -> state record
    flagged: list[str] = field(default_factory=list)  # keys flagged tonight
    usage: object = None  # model.Usage, when the model was asked
    warnings: list[str] = field(default_factory=list)


def judge_new(snapshot: Snapshot, options: Options, judged_before: set[str],
              flags: list[Pair]) -> Judgement:
    """Ask the model about the best candidates never judged before; ``flags`` (the pairs
    flagged in the last 24 hours) gains tonight's conflicts, up to :data:`MAX_CONTRADICTIONS`.
    A conflict over that limit is not remembered: it is asked again another night."""
    from ..errors import ModelError

    judgement = Judgement()
    pairs = candidates(snapshot, judged_before)
    if not pairs:
        return judgement
    try:
        verdicts, judgement.usage = judge(pairs, options)
    except ModelError as exc:
        judgement.warnings.append(f"contradiction check skipped: {exc}")
        return judgement
    if not verdicts:
        judgement.warnings.append("the model's answer to the contradiction check was not in "
                                  "the expected form; nothing flagged")
    now_iso = format_ts(snapshot.now)
    for n, pair in enumerate(pairs, 1):
        if n not in verdicts:
            continue
        conflict = verdicts[n]
        if conflict and len(flags) >= MAX_CONTRADICTIONS:
            continue  # over tonight's limit: not remembered, asked again another night
        record = {"judgedAt": now_iso, "conflict": conflict}
        if conflict:
            record["flaggedAt"] = now_iso
            judgement.flagged.append(pair.key)
            flags.append(pair)
        judgement.judged[pair.key] = record
    return judgement


def expired(records: dict[str, dict], snapshot: Snapshot) -> set[str]:
    """The judged pairs of this briefing's entries that no night can ask about again: their
    newer entry is older than the active window (a candidate's newer side is in it) and no
    flag of theirs is still shown. Pairs of entries it does not know (another agent's) stay."""
    from ..clock import days_before, sort_key

    since = days_before(snapshot.now, FLAG_SHOWN_FOR / timedelta(days=1))
    out = set()
    for key, record in records.items():
        newer = snapshot.by_id.get(key.partition(">")[2])
        if newer is None:
            continue
        stamp = sort_key(newer.get("timestamp"))
        flagged = parse_ts(record.get("flaggedAt"))
        if stamp and stamp < snapshot.active_key and (flagged is None or flagged <= since):
            out.add(key)
    return out


def _remembered() -> dict[str, dict]:
    """Judged pairs from state.json (read without the lock: only ``write`` changes them)."""
    from .. import paths
    from ..fsutil import check_regular

    if not check_regular(paths.state_path()):
        return {}
    from ..state import State

    section = State.load().section(STATE_SECTION)
    return {k: v for k, v in section.items() if isinstance(v, dict)}


def _recent_flags(records: dict[str, dict], snapshot: Snapshot) -> list[Pair]:
    """Pairs flagged in the last 24 hours whose two entries are still current."""
    out = []
    since = days_before(snapshot.now, FLAG_SHOWN_FOR / timedelta(days=1))
    for key, record in sorted(records.items(), key=lambda kv: str(kv[1].get("flaggedAt"))):
        flagged_at = parse_ts(record.get("flaggedAt"))
        if not record.get("conflict") or flagged_at is None or flagged_at <= since:
            continue
        older_id, _, newer_id = key.partition(">")
        if all(i in snapshot.by_id and i not in snapshot.replaced for i in (older_id, newer_id)):
            older, newer = snapshot.by_id[older_id], snapshot.by_id[newer_id]
            subject = newer.get("subject") or older.get("subject") or "?"
            out.append(Pair(subject, older, newer))
    return out[:MAX_CONTRADICTIONS]

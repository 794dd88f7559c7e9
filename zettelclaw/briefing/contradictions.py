"""Contradictions: candidates found in code, judged by the model, remembered in state.json.

Candidates: the same subject, an older current fact or decision from another conversation
against a current fact or decision of the active window, about the same thing. The words that
name a thing are told from a template's words by how rare they are: each word weighs by its
inverse frequency among the current facts and decisions, and a pair scores the weight of the
words both entries say over the weight of the words either says (numbers and the subject's own
name left out; at least two words shared). Best score first, then the newest change; the same
words and numbers said twice are no candidate, nor are two things said in one sentence
template (each says words the other does not, and at least three current entries of the
subject say the words they share: "the refund flow gets a 27 day review cycle" and "the DNS
records gets a 17 day review cycle" are about two things). The dozen best a night go to the model
(``prompts/contradiction.md``); every pair it judges is remembered in state.json
(``contradictions``: ``"older>newer": false``, or the time it was flagged) and never asked
again. A flag stays in the briefing for 24 hours, at most 3 a night. A judged pair is
forgotten once it can never be a candidate again (:func:`expired`: its newer entry has left the
active window and its flag is no longer shown, or one of its entries was replaced, forgotten or
purged): the section holds a few weeks of judgments, not a year's.
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
TEMPLATE_MIN = 3             # entries saying a pair's shared words: a sentence template
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
    """The pairs most worth asking about, never judged before: the same subject, a newer
    entry of the active window against an older one of another conversation, about the same
    thing.

    "The same thing" is told by the words that name it, not by the words every entry shares:
    each word weighs by how rare it is among the current facts and decisions (a template's
    "build timeout ... minutes" weighs little, "VPN port" much), and a pair scores the weight
    of the words both say over the weight of the words either says (numbers and the subject's
    own name left out). Best score first, then the newest change; two entries that say the
    same words and numbers are one fact said twice, no candidate."""
    from bisect import bisect_left

    weight, words = _weights(snapshot)
    pairs: list[Pair] = []
    for subject, items in snapshot.facts.items():
        stamps = [ts for ts, _ in items]  # sorted
        first_new = max(bisect_left(stamps, snapshot.active_key), len(items) - NEWER_PER_SUBJECT)
        if first_new >= len(items):
            continue
        naming = _naming(subject)
        seen: dict[str, frozenset[str]] = {}
        frames: dict[frozenset[str], bool] = {}

        def terms_of(entry: dict, naming=naming, seen=seen) -> frozenset[str]:
            found = seen.get(entry["id"])
            if found is None:
                found = seen[entry["id"]] = words(entry) - naming
            return found

        for new_ts, new in items[first_new:]:
            new_terms = terms_of(new)
            if len(new_terms) < MIN_SHARED_TERMS:
                continue
            end = bisect_left(stamps, new_ts)
            for _, old in items[max(0, end - OLDER_PER_SUBJECT):end]:
                if old.get("session") == new.get("session") and old.get("session"):
                    continue  # one conversation's entries were extracted together
                old_terms = terms_of(old)
                shared = new_terms & old_terms
                if len(shared) < MIN_SHARED_TERMS:
                    continue
                pair = Pair(subject, old, new)
                if pair.key in judged or _said_twice(old, new) \
                        or _two_things(new_terms, old_terms, shared, frames, items, terms_of):
                    continue
                both = sum(weight(t) for t in shared)
                pair.score = both / (both + sum(weight(t) for t in new_terms ^ old_terms))
                pairs.append(pair)
    pairs.sort(key=lambda p: (p.score, p.newer.get("timestamp") or "",
                              p.older.get("timestamp") or ""), reverse=True)
    return pairs[:limit]


def _two_things(new_terms: frozenset[str], old_terms: frozenset[str], shared: frozenset[str],
                frames: dict, items: list, terms_of) -> bool:
    """Whether two entries are two things said in one sentence template, not one thing said
    twice: each says words the other does not (numbers aside: "the refund flow" / "the DNS
    records"), and the words they share (the frame: "gets a ... day review cycle") are said
    by at least :data:`TEMPLATE_MIN` current facts and decisions of the subject. What differs
    then is the thing each is about. A change of one thing differs in its values, or says a
    word more ("We moved the VPN ... to port 51900"); a frame only these two say (no
    template) leaves the pair to the model."""
    if not (new_terms - old_terms) or not (old_terms - new_terms):
        return False
    found = frames.get(shared)
    if found is None:
        held = 0
        for _, entry in items:
            if shared <= terms_of(entry):
                held += 1
                if held >= TEMPLATE_MIN:
                    break
        found = frames[shared] = held >= TEMPLATE_MIN
    return found


def _weights(snapshot: Snapshot):
    """(weight of a word, an entry's words): a word's weight is its inverse document frequency
    among every current fact and decision of the snapshot, so the words a template repeats
    weigh little and the words that name one thing weigh much."""
    from math import log

    from ..rank import terms

    cache: dict[str, frozenset[str]] = {}

    def words(entry: dict) -> frozenset[str]:
        found = cache.get(entry["id"])
        if found is None:
            found = cache[entry["id"]] = frozenset(
                t for t in terms(entry["content"]) if not t.isdigit())
        return found

    frequency: dict[str, int] = {}
    total = 0
    for items in snapshot.facts.values():
        for _, entry in items:
            total += 1
            for t in words(entry):
                frequency[t] = frequency.get(t, 0) + 1

    def weight(term: str) -> float:
        return log(1 + total / frequency.get(term, 1))

    return weight, words


def _naming(subject: str) -> frozenset[str]:
    """The words of a subject's own name: every entry of it says them."""
    from ..rank import terms

    return frozenset(terms(subject.replace("-", " ")))


def _said_twice(older: dict, newer: dict) -> bool:
    """The same words and numbers: one fact said twice, which cannot conflict with itself."""
    return " ".join(str(older["content"]).lower().split()).rstrip(".") == \
        " ".join(str(newer["content"]).lower().split()).rstrip(".")


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

    judged: dict[str, str | bool] = field(default_factory=dict)  # pair key -> record
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
        if conflict:
            judgement.flagged.append(pair.key)
            flags.append(pair)
        judgement.judged[pair.key] = now_iso if conflict else False
    return judgement


def expired(records: dict[str, str | bool], snapshot: Snapshot) -> set[str]:
    """The judged pairs of this briefing's entries that no night can ask about again: their
    newer entry is older than the active window (a candidate's newer side is in it) and no
    flag of theirs is still shown, or one of their entries was replaced, forgotten or purged.
    Pairs of entries it does not know (another agent's) stay."""
    from ..clock import sort_key

    since = days_before(snapshot.now, FLAG_SHOWN_FOR / timedelta(days=1))
    out = set()
    gone, replaced = snapshot.gone, snapshot.replaced
    for key, flagged_at in records.items():
        older_id, _, newer_id = key.partition(">")
        if older_id in gone or newer_id in gone or older_id in replaced \
                or newer_id in replaced:
            out.add(key)
            continue
        newer = snapshot.by_id.get(newer_id)
        if newer is None:
            continue
        stamp = sort_key(newer.get("timestamp"))
        flagged = parse_ts(flagged_at) if flagged_at else None
        if stamp and stamp < snapshot.active_key and (flagged is None or flagged <= since):
            out.add(key)
    return out


def record_of(value) -> str | bool | None:
    """A judged pair as state.json keeps it: ``false`` (judged consistent) or the time it was
    flagged (a conflict). The longer form of earlier versions (``{"judgedAt", "conflict",
    "flaggedAt"}``) reads as the same; anything else is no record."""
    if value is False or (isinstance(value, str) and parse_ts(value) is not None):
        return value
    if isinstance(value, dict):
        if value.get("conflict") is True:
            flagged = value.get("flaggedAt") or value.get("judgedAt")
            return flagged if isinstance(flagged, str) and parse_ts(flagged) else False
        if value.get("conflict") is False:
            return False
    return None


def _remembered() -> dict[str, str | bool]:
    """Judged pairs from state.json (read without the lock: only ``write`` changes them), read
    as plain JSON (:mod:`zettelclaw.statefile`: no state model to import)."""
    from .. import paths, statefile
    from ..fsutil import check_regular

    if not check_regular(paths.state_path()):
        return {}
    out = {}
    for key, value in statefile.section(statefile.load(), STATE_SECTION).items():
        record = record_of(value)
        if record is not None:
            out[key] = record
    return out


def _recent_flags(records: dict[str, str | bool], snapshot: Snapshot) -> list[Pair]:
    """Pairs flagged in the last 24 hours whose two entries are still current."""
    out = []
    since = days_before(snapshot.now, FLAG_SHOWN_FOR / timedelta(days=1))
    for key, flagged_at in sorted(records.items(), key=lambda kv: str(kv[1])):
        flagged = parse_ts(flagged_at) if flagged_at else None
        if flagged is None or flagged <= since:
            continue
        older_id, _, newer_id = key.partition(">")
        if all(i in snapshot.by_id and i not in snapshot.replaced and i not in snapshot.gone
               for i in (older_id, newer_id)):
            older = snapshot.full(snapshot.by_id[older_id])
            newer = snapshot.full(snapshot.by_id[newer_id])
            subject = newer.get("subject") or older.get("subject") or "?"
            out.append(Pair(subject, older, newer))
    return out[:MAX_CONTRADICTIONS]

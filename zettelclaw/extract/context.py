"""What the model is shown of the memory for one conversation (issue 22): the subjects and the
existing entries chosen for it, each within a budget of characters, so a request costs about
the same on day 365 as on day 30, and a follow-up months later still finds what it closes.

The entries, from the log as it stood at the conversation's time (dated then or before; this
agent's; current ones only, so nothing forgotten, purged or replaced; no handoffs), in order:

1. for each message of the person's, the best of the open tasks, open questions and current
   facts and decisions of the subjects the conversation touches (its words name every stem
   of the slug or of the display name) for that message alone, by the ranker that serves
   ``search`` and ``recall`` (:func:`zettelclaw.rank.rank_entries`: BM25F and its second
   stage) over those entries; then each message's second best (MATCHED a message), within
   MATCHED_CHARS. A message names one thing ("the invoice templates cleanup is done"); ranked
   for the whole transcript, the thing a follow-up closes competes with every entry sharing
   words with the conversation's other messages, and a busy subject's open loops, newest
   first, leave out the one from two months ago. Over a simulated year, 21% of follow-ups
   said 31-150 days later did not find what they close among the entries shown, without
   this step (bench/year.py); 0.3% with it. The person's messages only: the assistant's
   replies mostly echo them, and would take the places of what was said;
2. the best few for the conversation's words, by the same ranker over all of them;
3. the best few current facts and decisions without a subject (a preference, a standing
   rule: what a conversation may say again in other words) for the conversation's words, by
   the same ranker over those alone. Nothing else reaches them: steps 1 and 4 need a subject,
   and in the ranking over the whole log they compete with every entry of the subjects the
   conversation names, whose slugs it repeats, and fall below the first few;
4. the open tasks and open questions of the subjects the conversation touches, newest first;
5. the newest few, for continuity;
6. the current facts and decisions of those subjects, newest first;
7. the rest of the ranked ones;

until the budget is spent. They are listed in the log's order, one JSON object a line (``id``,
``type``, ``subject``, ``status`` of a task, ``content``). A ``replaces`` the model gives may
name only one of them (:func:`zettelclaw.extract.build_entries`'s ``shown``).

The subjects: those the conversation touches, then the most active (entries dated in the
ACTIVE_DAYS before the conversation, then all of them), one per line (``- slug: Display
(type)``). Neither part goes in the system prompt: that stays byte-identical across a night's
extractions, cached."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache

ENTRIES_CHARS = 5_000
SUBJECTS_CHARS = 1_000
CONTENT_CHARS = 400  # an entry's content is cut here in the list
RANKED = 40  # at most this many entries for the conversation's words
RANKED_FIRST = 15  # ... of which this many come before the subjects' own entries
UNBOUND = 6  # at most this many current facts and decisions without a subject, ranked alone
NEWEST = 8  # the newest few, for continuity
MATCHED = 2  # per message of the person's, at most this many of the subjects' own entries
MATCHED_CHARS = ENTRIES_CHARS // 2  # ... within this share of the budget: a long conversation
# leaves room for the rest
ACTIVE_DAYS = 30


@dataclass
class Shown:
    """The two parts of the user turn that depend on the conversation."""

    subjects: str = ""  # "- slug: Display (type)" lines
    entries: str = ""  # JSON lines
    ids: frozenset[str] = field(default_factory=frozenset)


@lru_cache(maxsize=8192)
def _slug_stems(slug: str, display: str | None) -> list[tuple[str, ...]]:
    from ..rank import subject_terms, terms

    out = [subject_terms(slug)]
    if isinstance(display, str) and display:
        out.append(tuple(terms(display)))
    return [stems for stems in out if stems]


def _line(entry: dict) -> str:
    content = " ".join(str(entry.get("content") or "").split())
    if len(content) > CONTENT_CHARS:
        content = content[:CONTENT_CHARS - 1].rstrip() + "…"
    shown = {"id": entry["id"], "type": entry.get("type")}
    if entry.get("subject"):
        shown["subject"] = entry["subject"]
    if entry.get("type") == "task" and entry.get("status"):
        shown["status"] = entry["status"]
    shown["content"] = content
    return json.dumps(shown, ensure_ascii=False, separators=(",", ":"))  # compact


def choose(transcript: str, resolution, registry, stamp: str | None,
           messages: list[str] | None = None) -> Shown:
    """What the model is shown for a conversation of text ``transcript`` at time ``stamp``:
    ``resolution``, the agent's log as it stood then (:class:`zettelclaw.resolve.Resolution`:
    its entries and the current ones); ``registry``, the subjects' ``(slug, record)``;
    ``messages``, the person's messages, each on its own."""
    from ..rank import keep, rank_entries, stem, words

    said = {stem(w) for w in words(transcript) if keep(w)}
    candidates = [e for e in resolution.current if e.get("type") != "handoff"]
    records = [(slug, record if isinstance(record, dict) else {}) for slug, record in registry]
    known = {slug for slug, _ in records}
    for entry in candidates:  # a subject of the log missing from the registry
        slug = entry.get("subject")
        if isinstance(slug, str) and slug and slug not in known:
            known.add(slug)
            records.append((slug, {}))
    touched = {slug for slug, record in records
               if any(set(stems) <= said for stems in _slug_stems(slug, record.get("display")))}
    entries = _entries(transcript, candidates, touched, rank_entries, messages or [])
    subjects = _subjects(records, touched, resolution.entries, stamp)
    return Shown(subjects, "\n".join(_line(e) for e in entries),
                 frozenset(e["id"] for e in entries))


def _entries(transcript: str, candidates: list[dict], touched: set[str], rank_entries,
             messages: list[str]) -> list[dict]:
    """The entries shown, in the log's order (see the module's docstring)."""
    # (the ranker's copies carry a score, which no line shows: see _line)
    ranked = rank_entries(transcript, candidates, RANKED) if candidates else []
    standing = [e for e in candidates
                if not e.get("subject") and e.get("type") in ("fact", "decision")]
    unbound = rank_entries(transcript, standing, UNBOUND) if standing else []
    about = [e for e in reversed(candidates) if e.get("subject") in touched]
    loops = [e for e in about if e.get("type") == "question"
             or e.get("type") == "task" and e.get("status") != "done"]
    known = [e for e in about if e.get("type") in ("fact", "decision")]
    own = loops + known
    per_message = [rank_entries(text, own, MATCHED) for text in messages] if own else []
    matched = [found[n] for n in range(MATCHED) for found in per_message if n < len(found)]
    newest = list(reversed(candidates[-NEWEST:]))
    order = {e["id"]: n for n, e in enumerate(candidates)}
    picked: dict[str, dict] = {}
    used = 0
    for group, limit in ((matched, MATCHED_CHARS), (
            (*ranked[:RANKED_FIRST], *unbound, *loops, *newest, *known, *ranked[RANKED_FIRST:]),
            ENTRIES_CHARS)):
        for entry in group:
            if entry["id"] in picked:
                continue
            cost = len(_line(entry)) + 1
            if used + cost > limit:
                continue
            picked[entry["id"]] = entry
            used += cost
    return sorted(picked.values(), key=lambda e: order.get(e["id"], -1))


def _subjects(records: list, touched: set[str], entries: list[dict], stamp: str | None) -> str:
    """The subjects list: the touched ones, then the most active, within SUBJECTS_CHARS."""
    from datetime import timedelta

    from ..clock import format_ts, parse_ts

    moment = parse_ts(stamp) if stamp else None
    # by the day (YYYY-MM-DD starts every ISO time): a day either way does not matter here
    since = format_ts(moment - timedelta(days=ACTIVE_DAYS))[:10] if moment is not None else None
    recent: dict[str, int] = {}
    total: dict[str, int] = {}
    for entry in entries:
        slug = entry.get("subject")
        if not isinstance(slug, str) or not slug:
            continue
        total[slug] = total.get(slug, 0) + 1
        when = entry.get("timestamp")
        if since is not None and isinstance(when, str) and when[:10] >= since:
            recent[slug] = recent.get(slug, 0) + 1

    def rank(item) -> tuple:
        slug = item[0]
        return (slug not in touched, -recent.get(slug, 0), -total.get(slug, 0), slug)

    lines, used = [], 0
    for slug, record in sorted(records, key=rank):
        line = f"- {slug}: {record.get('display') or slug} ({record.get('type') or 'project'})"
        if used + len(line) + 1 > SUBJECTS_CHARS:
            continue
        lines.append(line)
        used += len(line) + 1
    return "\n".join(lines) if lines else "(none yet)"

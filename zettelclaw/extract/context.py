"""What the model is shown of the memory for one conversation (issue 22): the subjects and the
existing entries chosen for it, each within a budget of characters, so a request costs about
the same on day 365 as on day 30, and a follow-up months later still finds what it closes.

The entries, from the log as it stood at the conversation's time (dated then or before; this
agent's; current ones only, so nothing forgotten, purged or replaced; no handoffs), in order:

1. for each message of the person's, the best for that message alone, by the ranker that
   serves ``search`` and ``recall`` (:func:`zettelclaw.rank.rank_entries`: BM25F and its
   second stage, a tie to the later-dated), of all the open loops (open tasks, questions) and
   current facts and decisions, whatever their subject or none (``reachable``); and the best
   of those of the subjects the conversation touches (its words name every stem of the slug
   or of the display name); then each message's second best of both (MATCHED a message),
   within MATCHED_CHARS. A message names one thing ("the invoice templates cleanup is done");
   ranked for the whole transcript, the thing a follow-up closes competes with every entry
   sharing words with the conversation's other messages, and a busy subject's open loops,
   newest first, leave out the one from two months ago. Of all of them, not only the touched
   subjects': a follow-up often names no subject ("the cron job thing is done", said in a
   conversation about something else), and the entry it closes may have none (issue 31:
   over a simulated year where people talk so, a quarter of the follow-ups did not find
   what they close among the entries shown when only the touched subjects' were searched).
   The person's messages only: the assistant's replies mostly echo them, and would take the
   places of what was said. After each message's best, and before its second best, the
   entries tied with the best for it on the words that name the thing (:func:`_alikes`):
   ranked, "the login page update is done" gets the newest two of every project's "update
   the login page", and the one it closes, said in March, is never shown; shown together,
   the one the conversation's subject picks is linked and a guess among them is asked
   about (:func:`zettelclaw.corrections.judge_link`);
2. the person's standing preferences and facts: current facts and decisions without a
   subject, the best few for the conversation's words first (UNBOUND, by the same ranker over
   those alone), then the newest, within STANDING_CHARS, every time: a conversation may say
   one again in other words, and the prompt's rule for those (say nothing new, or replace it)
   works only when the model sees it. In the ranking over the whole log they compete with
   every entry of the subjects the conversation names, whose slugs it repeats;
3. the best few for the conversation's words, by the same ranker over all of them;
4. the open tasks and open questions of the subjects the conversation touches, newest first;
5. the newest few, for continuity;
6. the current facts and decisions of those subjects, newest first;
7. the rest of the ranked ones;

until the budget is spent (ENTRIES_CHARS in all, whatever the log's size). The entries that may
be shown (:func:`candidates`) are chosen once, before any step: a filter on them goes there.
They are listed in the log's order, one JSON object a line (``id``,
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

ENTRIES_CHARS = 6_000
SUBJECTS_CHARS = 1_000
CONTENT_CHARS = 400  # an entry's content is cut here in the list
RANKED = 40  # at most this many entries for the conversation's words
RANKED_FIRST = 15  # ... of which this many come before the subjects' own entries
UNBOUND = 6  # at most this many current facts and decisions without a subject, ranked alone
STANDING_CHARS = 1_200  # ... and the newest others, within this share of the budget
NEWEST = 8  # the newest few, for continuity
MATCHED = 2  # per message of the person's, at most this many of the subjects' own entries
ALIKE = 6  # per message, at most this many entries sharing the most naming words with it
ALIKE_LEAST = 2  # ... when they share at least this many
MATCHED_CHARS = ENTRIES_CHARS * 3 // 4  # ... within this share of the budget: a long conversation
# leaves room for the rest
ACTIVE_DAYS = 30


@dataclass
class Shown:
    """The two parts of the user turn that depend on the conversation."""

    subjects: str = ""  # "- slug: Display (type)" lines
    entries: str = ""  # JSON lines
    ids: frozenset[str] = field(default_factory=frozenset)
    touched: frozenset[str] = field(default_factory=frozenset)  # the subjects it names
    # every entry that could have been shown (:func:`candidates`): a link among look-alikes
    # is judged against all of these, not only those shown
    pool: frozenset[str] = field(default_factory=frozenset)


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
    shown = candidates(resolution)
    records = [(slug, record if isinstance(record, dict) else {}) for slug, record in registry]
    known = {slug for slug, _ in records}
    for entry in shown:  # a subject of the log missing from the registry
        slug = entry.get("subject")
        if isinstance(slug, str) and slug and slug not in known:
            known.add(slug)
            records.append((slug, {}))
    touched = {slug for slug, record in records
               if any(set(stems) <= said for stems in _slug_stems(slug, record.get("display")))}
    entries = _entries(transcript, shown, touched, rank_entries, messages or [])
    subjects = _subjects(records, touched, resolution.entries, stamp)
    return Shown(subjects, "\n".join(_line(e) for e in entries),
                 frozenset(e["id"] for e in entries), frozenset(touched),
                 frozenset(e["id"] for e in shown))


def candidates(resolution) -> list[dict]:
    """The entries that may be shown, in the log's order: the current ones (nothing
    forgotten, purged or replaced), no handoffs. Every step chooses among these alone."""
    return [e for e in resolution.current if e.get("type") != "handoff"]


def _open(entry: dict) -> bool:
    return entry.get("type") == "question" \
        or entry.get("type") == "task" and entry.get("status") != "done"


def _entries(transcript: str, candidates: list[dict], touched: set[str], rank_entries,
             messages: list[str]) -> list[dict]:
    """The entries shown, in the log's order (see the module's docstring)."""
    from ..corrections import filed_under

    # (the ranker's copies carry a score, which no line shows: see _line)
    ranked = rank_entries(transcript, candidates, RANKED) if candidates else []
    reachable = [e for e in candidates if _open(e) or e.get("type") in ("fact", "decision")]
    standing = [e for e in reachable if not e.get("subject") and not _open(e)
                and not e.get("may_replace")]  # (one kept apart for review is no standing fact)
    unbound = rank_entries(transcript, standing, UNBOUND) if standing else []
    about = [e for e in reversed(reachable) if filed_under(e) in touched]
    loops = [e for e in about if _open(e)]
    known = [e for e in about if not _open(e)]
    own = loops + known
    per_message = []
    for text in messages:
        per_message.append(rank_entries(text, reachable, MATCHED) if reachable else [])
        per_message.append(rank_entries(text, own, MATCHED) if own else [])
    filed = frozenset(filter(None, map(filed_under, reachable)))  # once, not per message
    alike = [_alikes(text, reachable, filed, touched) for text in messages]
    near = [[e for named, e in group if named] for group in alike]
    far = [[e for named, e in group if not named] for group in alike]
    matched = [*(found[0] for found in per_message if found),
               *(group[n] for n in range(ALIKE) for group in near if n < len(group)),
               *(group[n] for n in range(ALIKE) for group in far if n < len(group)),
               *(found[n] for n in range(1, MATCHED) for found in per_message if n < len(found))]
    newest = list(reversed(candidates[-NEWEST:]))
    order = {e["id"]: n for n, e in enumerate(candidates)}
    picked: dict[str, dict] = {}
    used = 0
    for group, share in ((matched, MATCHED_CHARS),
                         ((*unbound, *reversed(standing)), STANDING_CHARS),
                         ((*ranked[:RANKED_FIRST], *loops, *newest, *known,
                           *ranked[RANKED_FIRST:]), ENTRIES_CHARS)):
        limit = min(used + share, ENTRIES_CHARS)  # each group's share of what is left
        for entry in group:
            if entry["id"] in picked:
                continue
            cost = len(_line(entry)) + 1
            if used + cost > limit:
                continue
            picked[entry["id"]] = entry
            used += cost
    return sorted(picked.values(), key=lambda e: order.get(e["id"], -1))


def _alikes(text: str, reachable: list[dict], filed: frozenset[str], touched: set[str],
            ) -> list[tuple[bool, dict]]:
    """The entries of ``reachable`` that say as much of what ``text`` (one message) names as
    any does: the most naming words shared (at least ALIKE_LEAST), the names of subjects
    left out (the message's and each entry's own: they say where a thing is filed, not
    which thing it is). "Updating the login page is done" shares three words with every open
    "update the login page" of every project: ranked, the best two are the newest two, and
    the one said two months ago, the one it closes, is not shown (issue 31). The open loops
    and the facts and decisions apart, each kind's best (a follow-up closes the one or
    corrects the other: "we went with Paddle for the signup form" shares more with the
    decision "we went with Grafana ... for the signup form" than with the question it
    answers). At most ALIKE loops and ALIKE // 2 others: first those of a subject the
    message names, then of one the conversation names, then those filed under none (they
    may be of any), then the rest; newest first in each. More left: the words cannot tell
    them apart, and a link among them is asked about anyway
    (:func:`zettelclaw.corrections.judge_link`). ``filed``: the subjects of ``reachable``.
    Each with whether its subject is named (by the message or the conversation): those
    come before any other's, every message's, as the one their subject picks is linked, the
    others' asked about."""
    from ..corrections import body_words, filed_under
    from ..rank import terms

    words = set(terms(text))  # (with the words holding a digit: #v2-api, #team-2027)
    named = {slug for slug in filed
             if any(set(stems) <= words for stems in _slug_stems(slug, None))}
    said = body_words(text, tuple(sorted(named)))
    if len(said) < ALIKE_LEAST:
        return []
    loops: list[tuple[int, dict]] = []
    known: list[tuple[int, dict]] = []
    most = {True: ALIKE_LEAST, False: ALIKE_LEAST}
    for at, entry in enumerate(reachable):
        count = len(said & _body(entry))
        kind = _open(entry)
        best = loops if kind else known
        if count > most[kind]:
            best[:] = [(at, entry)]
            most[kind] = count
        elif count == most[kind]:
            best.append((at, entry))

    def first(item: tuple[int, dict]) -> tuple[int, int]:
        at, entry = item
        slug = filed_under(entry)
        if slug is None:
            return 2, -at
        return (0 if slug in named else 1 if slug in touched else 3), -at

    out = []
    for best, limit in ((loops, ALIKE), (known, ALIKE // 2)):
        ordered = sorted(((first(item), item[1]) for item in best), key=lambda pair: pair[0])
        out += [(rank < 2, entry) for (rank, _), entry in ordered[:limit]]
    return out


def _body(entry: dict) -> frozenset[str]:
    """An entry's naming words without its subject's (see :func:`_alikes`)."""
    from ..corrections import body_words, filed_under

    return body_words(str(entry.get("content") or ""), (filed_under(entry),))


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

"""The rules a new entry meets before it is appended, the same for `write` and extraction.

* **One current version per chain.** A correction of an entry that something already
  replaced would fork the chain (two current versions). Instead it corrects the chain's
  current head, with a note saying so (``writer.write_or_find``, ``extract.build_entries``);
  `get --history` then shows one line from the first version to the last.
* **A correction inherits** the ``subject`` of what it replaces when it gives none, and a
  task its ``status`` (:func:`inherit`): "task done" with ``--replaces`` stays in its subject.
* **A correction keeps to its kind** (:func:`can_replace`, for the model's ``replaces``): a
  task is closed or corrected by a task; a question closes by a decision or a fact, or is
  reworded by a question; a fact or a decision is corrected by a fact or a decision; a
  handoff neither replaces nor is replaced. A question cannot hide a fact, a task cannot
  close a question: the target is named wrongly, and the entry is kept as a new one.
* **A correction never closes a look-alike** (:func:`look_alike`, for the model's
  ``replaces``): when an entry the model was *not* shown names what the new entry is about
  more fully than the one it named (of the named one's type, a task of its status, current
  at the conversation's time, sharing every naming word the named one shares with the new
  entry, and more), the named one is a look-alike of the real target, which the model could
  not see: "Cleaning up the invoice templates is done" does not close "migrate the test
  fixtures" of the same subject when "clean up the invoice templates" is open. The entry is
  kept as a new one. An entry the model was shown is never held against its choice: it saw
  both. Naming words: the content's stems (``zettelclaw.rank.terms``), values left out (a
  word holding a digit: a correction changes those). Measured on the year benchmark
  (bench/year.py, 365 days) with the entries shown chosen as before issue 22's per-message
  step: of 139 links to a look-alike 134 refused, of 1,393 right links none. No floor on
  similarity instead: the benchmark's right links have a Jaccard similarity of 0.57 or more
  and its look-alikes 0.22-0.33 at the median, but a real model's rightful closes share as
  little as one word with what they close ("Going with Okta for SSO" answers "Which
  identity provider should we use for SSO?", 0.17): a floor that held the look-alikes back
  would refuse those.
* **What was forgotten or purged stays so.** A correction never names an entry whose chain
  ends in a forget or a purge tombstone: `write --replaces` refuses it, extraction keeps the
  entry without its ``replaces`` (``extract.build_entries``), and both check again under the
  lock, right before the append (:func:`gone_targets`): a forget or purge may land while the
  model is answering.
* **The same thing is not stored twice** (:func:`dedup_key`; :class:`Current` for
  extraction, a streaming scan in ``writer`` for `write`): an entry whose type, subject,
  (for tasks) status and normalised content equal those of a *current* entry is not appended.
  Normalised: case-folded, whitespace collapsed, trailing punctuation stripped
  (:func:`normalise`). A correction is a duplicate only of its own chain's head (a no-op
  correction). Handoffs are never duplicates: each conversation has its own. Nor is an
  entry kept for review (``may_replace``) one of another conversation's: "testing the
  webhook handlers is done", said in March and in May among the same look-alikes, may be
  two of them done; the person is asked about each.
* **A restatement in other words is not a second current entry** (extraction's
  :class:`Current`, issue 22): a new fact or decision whose words restate a current one of
  the same type and subject (:func:`zettelclaw.restatements.restates`; the closest of them,
  an entry without a subject grouped with the others without one) is dropped when it adds no
  word, and replaces it when it adds or changes some (one current entry, the older wording
  in its history); when the current one is dated after it (an older conversation swept
  late), it is dropped.
"""

from __future__ import annotations

from functools import lru_cache

from .clock import sort_key
from .resolve import Resolution

RESTATED = frozenset({"fact", "decision"})  # the types whose restatements are not stored twice
_TRAILING = ".,;:!?…。 \t\n"


def normalise(text: str) -> str:
    return " ".join(text.casefold().split()).rstrip(_TRAILING)


def filed_under(entry: dict) -> str | None:
    """The subject ``entry`` is filed under, or None: a hand-edited one that is not a slug's
    text (a list, a number) files it under none rather than stopping the run."""
    subject = entry.get("subject")
    return subject if isinstance(subject, str) and subject else None


def asked_of(entry: dict) -> tuple[str, ...]:
    """The ids a link kept for review may close (``may_replace``: one id, or several when
    the model's pick had look-alikes the evidence could not tell from it), the likeliest
    first; () for none. A hand-edited value of another kind names none."""
    value = entry.get("may_replace")
    if isinstance(value, str):
        return (value,) if value else ()
    if isinstance(value, list):
        return tuple(dict.fromkeys(v for v in value if isinstance(v, str) and v))
    return ()


def dedup_key(entry: dict) -> tuple | None:
    if entry.get("type") == "handoff" or not isinstance(entry.get("content"), str):
        return None
    status = entry.get("status") if entry.get("type") == "task" else None
    if not isinstance(status, str | None):
        status = None
    return (entry["type"], filed_under(entry) or "", status, normalise(entry["content"]))


# what may replace an entry of each type
REPLACEABLE_BY = {
    "task": frozenset({"task"}),
    "question": frozenset({"question", "decision", "fact"}),
    "fact": frozenset({"fact", "decision"}),
    "decision": frozenset({"decision", "fact"}),
    "handoff": frozenset(),
}


def can_replace(old_type, new_type) -> bool:
    """Whether an entry of ``new_type`` may correct (or close) one of ``old_type``."""
    return new_type in REPLACEABLE_BY.get(old_type, frozenset())


@lru_cache(maxsize=32768)
def naming_words(text: str) -> frozenset[str]:
    """The stems that name what ``text`` is about: its content stems, without values."""
    from .rank import terms

    return frozenset(t for t in terms(text) if not any(c.isdigit() for c in t))


def look_alike(target: dict, content: str, shown, resolution, stamp: str | None,
               pool=None) -> dict | None:
    """An entry the model was not shown (``shown``: ids) that names what ``content`` is about
    more fully than ``target``, the entry a correction of it names: else None. Of
    ``resolution``'s current entries, dated at or before ``stamp``, of ``target``'s type (a
    task of its status), in ``pool`` when given (ids: the entries the conversation's person
    could have been shown; another person's or an untrusted entry is no look-alike of the
    owner's); one that shares every naming word ``target`` shares with ``content`` and more
    (see the module's docstring)."""
    words = naming_words(content)
    shared = words & naming_words(str(target.get("content") or ""))
    kind, status = target.get("type"), target.get("status")
    until = sort_key(stamp) if stamp else None
    best, best_count = None, len(shared)
    for entry in resolution.entries:
        if entry.get("type") != kind or entry["id"] in shown or entry is target \
                or (pool is not None and entry["id"] not in pool) \
                or (kind == "task" and entry.get("status") != status) \
                or resolution.is_replaced(entry["id"]) \
                or not isinstance(entry.get("content"), str):
            continue
        theirs = naming_words(entry["content"]) & words
        if len(theirs) > best_count and shared <= theirs \
                and (until is None or sort_key(entry.get("timestamp")) <= until):
            best, best_count = entry, len(theirs)
    return best


@lru_cache(maxsize=32768)
def body_words(text: str, slugs: tuple) -> frozenset[str]:
    """The naming words of ``text`` without the words of the subjects ``slugs`` (None for
    none): what it says of the thing, whichever subject it is filed under. The subject's
    words once each, the last time they are said: "Migrating the webhook handlers for Lumen
    Migration" keeps "migrating"."""
    from .rank import subject_terms, terms

    said = [t for t in terms(text) if not any(c.isdigit() for c in t)]
    for slug in {slug for slug in slugs if isinstance(slug, str) and slug}:
        for stem in subject_terms(slug):
            if stem in said:
                del said[len(said) - 1 - said[::-1].index(stem)]
    return frozenset(said)


def alikes(target: dict, content: str, subject: str | None, pool, resolution
           ) -> list[tuple[dict, int]]:
    """``target`` and the entries of ``pool`` (ids: those the model could have been shown,
    the memory as it stood) that may be what ``content`` (of ``subject``, None: none given)
    is about: of ``target``'s type (a task of its status), current, sharing a naming word
    with it beyond the subjects' names; each with how many such words it shares (the
    subject's words left out on both sides: they say where a thing is filed, not which
    thing it is), in the log's order. More than one sharing the most: the model's pick
    among them was a guess ("That cron job thing is done" shares as much with "Renew the
    nightly cron job" as with "Renew the staging cron job"), whether it was shown both or
    one of them alone."""
    kind, status = target.get("type"), target.get("status")

    def shared(entry: dict) -> int:
        slugs = (subject, filed_under(entry))
        return len(body_words(content, slugs) & body_words(str(entry.get("content") or ""), slugs))

    out = [(target, shared(target))]
    words = naming_words(content)
    for entry in resolution.entries:
        if entry.get("type") != kind or entry is target or entry["id"] not in pool \
                or (kind == "task" and entry.get("status") != status) \
                or not isinstance(entry.get("content"), str) \
                or not words & naming_words(entry["content"]) \
                or resolution.is_replaced(entry["id"]):
            continue
        if (count := shared(entry)) > 0:
            out.append((entry, count))
    return out


def judge_link(target: dict, content: str, subject: str | None, pool, touched,
               resolution) -> tuple[dict | None, str, list[dict]]:
    """What the evidence says of a ``replaces`` naming ``target`` for a new entry saying
    ``content`` of ``subject`` (None: it gave none), in a conversation naming the subjects
    ``touched``, the memory as it stood holding ``pool`` (ids): ``(entry, why, asked)``,
    the entry to link (the target or the one look-alike the evidence picks) or None when it
    is not sure (``why`` says why, ``asked`` lists what it may close, the likeliest first:
    those naming it most closely, the target first among equals, at most ASKED). The
    evidence, from the look-alikes in memory (:func:`alikes`), shown to the model or not: a
    pick that looked alone among what was shown is still a guess when memory holds its twin:

    * the subject: a new entry of a subject links only an entry of that subject or of none
      (one of another subject is ruled out); one of no subject, an entry of a subject the
      conversation names or of none;
    * the words: of those left, the ones sharing the most naming words with it; the
      model's pick when it shares fewer than another is not taken on trust (it may have
      read something the words do not say, or guessed): asked;
    * then who is *known* to be of the subject: of those sharing the most, the one filed
      under the new entry's subject (else one the conversation names) beats those filed
      under none, which could be of any. Sure: one such; or none such and a single one
      sharing the most. Else unsure: a guess among look-alikes, asked."""
    found = alikes(target, content, subject, pool, resolution)
    if subject:
        fitting = [(e, n) for e, n in found if filed_under(e) in (None, subject)]
        if not fitting:
            return None, f"it is about {target.get('subject')}, the new entry about {subject}", \
                [target]
    else:
        fitting = found
    most = max(n for _, n in fitting)
    best = [e for e, n in fitting if n == most]
    if any(e is target for e, _ in fitting) and found[0][1] < most:
        return None, (f"{best[0]['id']}{' and others' if len(best) > 1 else ''} "
                      "name what it says more closely"), _asked(best, [target])
    where = {subject} if subject else set(touched or ())
    known = [e for e in best if filed_under(e) in where]
    if len(known) == 1:
        return known[0], "sure", []
    if not known and len(best) == 1:
        return best[0], "sure", []
    others = len(known or best) - 1
    return None, (f"{others} other {target.get('type')}{'s' if others > 1 else ''} in "
                  f"memory {'say' if others > 1 else 'says'} it as well"), \
        _asked([target], known or best)


ASKED = 6  # at most this many entries a link kept for review may close (may_replace)


def _asked(*groups: list[dict]) -> list[dict]:
    """What a link kept for review may close, the likeliest first: each of ``groups`` in
    turn, newest first within it, each entry once, at most ASKED."""
    out: list[dict] = []
    for group in groups:
        for entry in sorted(group, key=lambda e: sort_key(e.get("timestamp")), reverse=True):
            if all(entry is not e for e in out):
                out.append(entry)
    return out[:ASKED]


def gone_targets(log, targets) -> dict[str, str]:
    """Of ``targets`` (ids that entries about to be appended replace), those forgotten or
    purged in ``log`` as it stands (the caller holds the lock): id -> ``"forgotten"`` or
    ``"purged"``. One scan of the log's ``replaces`` (C speed), then each target's chain."""
    from .resolve import StreamingResolution, gone_kind

    targets = {t for t in targets if isinstance(t, str)}
    if not targets or not log.exists():
        return {}
    streaming = StreamingResolution.scan(log.path)
    found: dict[str, tuple[int, dict]] = {}
    for target in targets:
        for pos, line in log.located(needle=f'"{target}"'.encode(), records=True):
            if line["id"] == target:
                found[target] = (pos, line)
    gone = {}
    for target, (pos, line) in found.items():
        kind = gone_kind(line) or gone_kind(streaming.head(line, pos))
        if kind is not None or line.get("type") == "unforget":
            gone[target] = kind or "forgotten"
    return gone


def inherit(head: dict, type: str, subject: str | None, status: str | None,
            ) -> tuple[str | None, str | None]:
    """``subject`` and ``status`` for a correction of ``head``: what it gives, else ``head``'s."""
    if subject is None and isinstance(head.get("subject"), str):
        subject = head["subject"]
    if type == "task" and status is None and head.get("type") == "task" \
            and head.get("status") in ("open", "done"):
        status = head["status"]
    return subject, status


class Current:
    """The current entries of a log by :func:`dedup_key`, kept up to date as entries are
    added."""

    def __init__(self, resolution: Resolution):
        self.resolution = resolution
        self.keys: dict[tuple, dict] = {}
        self.facts: dict[tuple, list[dict]] = {}  # (type, subject) -> facts and decisions
        for entry in resolution.current:
            key = _sided_key(entry)
            if key is not None:
                self.keys[key] = entry
            self._index(entry)

    def _index(self, entry: dict) -> None:
        if entry.get("type") in RESTATED and isinstance(entry.get("content"), str):
            self.facts.setdefault((_side(entry), entry["type"], filed_under(entry) or ""),
                                  []).append(entry)

    def restated(self, entry: dict) -> tuple[dict, str] | None:
        """The current entry that ``entry`` (a new one, no correction) restates in other
        words, and how (``"same"``, ``"more"``: :func:`zettelclaw.restatements.restates`)."""
        if entry.get("type") not in RESTATED or entry.get("replaces") \
                or not isinstance(entry.get("content"), str):
            return None
        from .restatements import restates, similarity

        best, best_score = None, -1.0
        for old in reversed(self.facts.get((_side(entry), entry["type"],
                                            filed_under(entry) or ""), [])):
            if self.resolution.is_replaced(old["id"]):
                continue
            how = restates(old["content"], entry["content"])
            if how is None and any(restates(said, entry["content"]) is not None
                                   for said in self._wordings(old)):
                how = "same"  # words it was said in before: nothing new
            if how is not None:  # the closest one; of equals, the newest
                score = similarity(old["content"], entry["content"])
                if score > best_score:
                    best, best_score = (old, how), score
        return best

    def _wordings(self, head: dict) -> list[str]:
        """The earlier wordings of what the current ``head`` says: back along its chain while
        each version restates the one before (another wording, not another value: "51820"
        replaced by "51900" ends the walk, so the old value said again is not taken as known).
        A restatement that adds or changes words replaces the current entry, and its wording
        drifts ("twice a day" -> "two times a day" -> ...); the next one may say it as one of
        the earlier ones did."""
        from .restatements import restates

        out, at, seen = [], head, {head["id"]}
        while isinstance(target := at.get("replaces"), str) and target not in seen:
            seen.add(target)
            before = self.resolution.by_id.get(target)
            if before is None or before.get("type") not in RESTATED \
                    or not isinstance(before.get("content"), str) \
                    or restates(before["content"], at["content"]) is None:
                break
            out.append(before["content"])
            at = before
        return out

    @classmethod
    def of(cls, entries) -> Current:
        return cls(Resolution.build(entries))

    def duplicate_of(self, entry: dict) -> dict | None:
        """The current entry ``entry`` would restate, or None."""
        key = _sided_key(entry)
        if key is None:
            return None
        target = entry.get("replaces")
        if isinstance(target, str) and target in self.resolution.by_id:
            head = self.resolution.latest(target)
            return head if head is not None and _sided_key(head) == key else None
        found = self.keys.get(key)
        if found is not None and self.resolution.is_replaced(found["id"]):
            return None
        if found is not None and asked_of(entry) and (
                asked_of(found) != asked_of(entry) or found.get("session") != entry.get("session")):
            return None  # kept apart for review: asked about each time it is said elsewhere
        return found

    def add(self, entry: dict) -> None:
        target = entry.get("replaces")
        if isinstance(target, str) and target in self.resolution.by_id:
            old = self.resolution.latest(target)
            if old is not None and self.keys.get(_sided_key(old)) is old:
                del self.keys[_sided_key(old)]
        self.resolution.add(entry)
        key = _sided_key(entry)
        if key is not None:
            self.keys[key] = entry
        self._index(entry)

    def take(self, entries: list[dict]) -> tuple[list[dict], int]:
        """``entries`` without the duplicates (of current entries or of each other), the kept
        ones added; and how many were dropped."""
        kept = []
        instead: dict[str, str] = {}  # a dropped duplicate's id -> the entry it restated
        for entry in entries:
            if entry.get("replaces") in instead:  # corrects a duplicate: correct the original
                entry = {**entry, "replaces": instead[entry["replaces"]]}
            existing = self.duplicate_of(entry)
            if existing is not None and not _same_side(entry, existing):
                existing = None
            if existing is None and (found := self.restated(entry)) is not None \
                    and _same_side(entry, found[0]):
                old, how = found
                if how == "same" or sort_key(old.get("timestamp")) \
                        > sort_key(entry.get("timestamp")):
                    existing = old  # says nothing more, or less than what came after it
                else:
                    entry = {**entry, "replaces": old["id"]}  # says it with more words
            if existing is not None:
                instead[entry["id"]] = existing["id"]
                continue
            self.add(entry)
            kept.append(entry)
        return kept, len(entries) - len(kept)


def _side(entry: dict) -> tuple[str, bool]:
    """Whose memory an entry is and whether its words are untrusted: entries of one side are
    never a duplicate or a restatement of another side's (:func:`_same_side`), so another
    person's or a web page's look-alike never stands in for the owner's own."""
    from .people import person_of, untrusted

    return person_of(entry), untrusted(entry)


def _sided_key(entry: dict) -> tuple | None:
    """:func:`dedup_key` within the entry's side (:func:`_side`)."""
    key = dedup_key(entry)
    return None if key is None else (_side(entry), *key)


def _same_side(new: dict, old: dict) -> bool:
    """Whether ``new`` may be dropped as a restatement of ``old`` or replace it: the same
    person's memory, and both untrusted or neither (another person's words, a web page's
    claim never close or correct the owner's; the owner's own words are kept, not dropped as
    an untrusted entry's duplicate)."""
    from .people import person_of, untrusted

    return person_of(new) == person_of(old) and untrusted(new) == untrusted(old)

def broken_by_hand(path=None) -> list[str]:
    """What a hand edit did to the corrections (and forgets) of the log at ``path``: one phrase
    per line whose ``replaces`` hides nothing any more, because the id it names has no line
    (the corrected line, or a correction between, was removed: the version before shows again)
    or stands after it (a correction counts only after what it replaces: moved, it hides
    nothing). Log order."""
    from .log import Log

    first: dict[str, int] = {}
    lines: list[tuple[int, dict]] = []
    for pos, line in Log(path, warn=False).located(records=True):
        first.setdefault(line["id"], pos)
        target = line.get("replaces")
        if isinstance(target, str) and target != line["id"] and first[line["id"]] == pos:
            lines.append((pos, line))
    found = []
    for pos, line in lines:
        what = "a forget" if line.get("type") == "forget" else line.get("type") or "a line"
        at = first.get(line["replaces"])
        if at is None:
            found.append(f"{line['id']} ({what}) replaces {line['replaces']}, which is not in "
                         "the log")
        elif at > pos:
            found.append(f"{line['id']} ({what}) stands before {line['replaces']}, which it "
                         "replaces")
    return found


def doctor_check():
    """doctor's line about corrections a hand edit broke (:func:`broken_by_hand`), a warning;
    None when the log has none."""
    from .counts import count
    from .openclaw.report import Check

    try:
        found = broken_by_hand()
    except OSError:
        return None
    if not found:
        return None
    shown = "; ".join(found[:5]) + (f"; and {len(found) - 5} more" if len(found) > 5 else "")
    return Check("corrections", "warn",
                 f"{count(len(found), 'line')} of the log hiding nothing since it was edited "
                 f"(the version each replaced shows again): {shown}",
                 "put the removed line back, or the correction after what it replaces "
                 "(the log is in time order), or correct the version that shows with "
                 "`zettelclaw write --replaces ID`")

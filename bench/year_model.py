"""The year benchmark's model: rules in place of Claude, on tests/fake_anthropic.py's server
(real HTTP on 127.0.0.1, the Messages API; the SDK reaches it by ``ANTHROPIC_BASE_URL``).

An extraction request (a ``<transcript>``) is answered from the user's sentences, one entry
each (small talk of fewer than five words gives none):

* "actually ..."  a fact (the sentence without "actually") replacing the best-matching fact or
  decision shown; "... is done": a task, status done, replacing the best-matching task shown;
  "went with ...": a decision replacing the best-matching question shown;
* "decided": a decision; "need to": a task (open); "?": a question;
* anything else: a fact, unless it is known (then nothing: the prompt's "what you are shown
  is already known"): an entry shown says nearly the same words (NEARLY_SAME of its words), or,
  for a sentence that names no subject (a preference of the person's), a shown fact or
  decision that names none either shares at least two of its content stems (Snowball stems,
  stop words dropped: ``zettelclaw.rank.terms``) and KNOWN (0.25) of all of theirs (Jaccard);
  of several, the highest (:func:`restates`). ``ZETTELCLAW_YEAR_RESTATE=off`` turns this
  second rule off, so the benchmark can say what zettelclaw's own check does without it. It
  looks at nothing but the request: the sentence and the entries shown, never which
  preference a sentence belongs to. Each sentence so taken as known is kept in
  :attr:`YearModel.known`, with the id it matched, for the benchmark to judge.

Best-matching: the most content words shared ("Updating" counts as "update"), at least two,
among the entries of the request's ``<existing_entries>`` (in the log's order), a tie going to
the older one; never one it was not shown, never a task already said done. No smarter than
word counts: of "Renew the nightly cron job" and "Renew the nightly API client", "That cron
job thing is done" closes the older one of those sharing "cron job". The subject is the first
pair of capitalised words (``Atlas Migration`` -> ``atlas-migration``). Each conversation
ends with a handoff (not a part that is told not to write one).

A contradiction request (``<pairs>``, prompts/contradiction.md) is judged by a rule: yes when
both sides say the same sentence about the same named thing with a different number.

Every request is measured as it arrives (:class:`Measure`): characters of the fixed prompt,
the subjects list, the entries shown and the transcript, in either request layout (subjects
as the second system block, or as ``<subjects>`` in the user turn).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from year_world import TASK_VERBS, content_of, subject_of  # noqa: E402

from tests.fake_anthropic import FakeAnthropic, Reply  # noqa: E402

STOP = frozenset("""a an the and or of for to in on at by with as is are was be it its this that
we i me my you your our should use which need needs done went decided actually please so not
no than then there""".split())
NEARLY_SAME = 0.9  # word-set similarity at which a fact shown is taken as already known
# content-stem similarity at which a subject-less sentence restates a subject-less entry shown:
# at 0.2, "I only look at my email two times a day." was taken for "I work on Berlin time, so
# plan my day in that zone." (0.22: "day", "time") when the email entry was not shown
KNOWN = 0.25
MIN_SHARED = 2  # content words a follow-up must share with the entry it closes

_WORD = re.compile(r"[a-z0-9]+")
_NUMBER = re.compile(r"\d+")
# a model knows "Updating the ..." is about "update the ...": the gerunds as their verbs
_VERB_OF = {gerund.split()[0].lower(): verb.split()[0] for verb, gerund in TASK_VERBS}


def words(text: str) -> frozenset[str]:
    return frozenset(_VERB_OF.get(w, w) for w in _WORD.findall(text.lower()) if w not in STOP)


def similarity(a: frozenset, b: frozenset) -> float:
    return len(a & b) / len(a | b) if a or b else 0.0


def between(text: str, opening: str, closing: str) -> str | None:
    """The text between the first ``opening`` and the last ``closing`` after it (tags
    included), or None."""
    start = text.find(opening)
    if start < 0:
        return None
    end = text.rfind(closing)
    return text[start:end + len(closing)] if end > start else None


@dataclass
class Measure:
    """One request, as the benchmark reads it."""

    kind: str  # extraction, contradiction, other
    system: str  # the system blocks, joined: the cacheable prefix
    prompt: int = 0  # characters of everything not counted below
    subjects: int = 0
    entries: int = 0
    transcript: int = 0
    total: int = 0
    subject_count: int = 0
    shown: list[str] = field(default_factory=list)  # entry ids in <existing_entries>
    sentences: list[str] = field(default_factory=list)  # the user's sentences

    @property
    def prefix_hash(self) -> str:
        return hashlib.sha256(self.system.encode()).hexdigest()

    def tokens(self) -> dict:
        """Tokens by part (characters / 4)."""
        return {"prompt": self.prompt / 4, "subjects": self.subjects / 4,
                "entries": self.entries / 4, "transcript": self.transcript / 4,
                "total": self.total / 4, "subject_count": self.subject_count,
                "entry_count": len(self.shown)}


def _system_blocks(body: dict) -> list[str]:
    system = body.get("system") or []
    if isinstance(system, str):
        return [system]
    return [b.get("text", "") for b in system if isinstance(b, dict)]


def _shown(section: str | None) -> list[dict]:
    out = []
    for line in (section or "").splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if isinstance(entry, dict) and isinstance(entry.get("id"), str):
                out.append(entry)
    return out


def _user_sentences(transcript: str) -> list[str]:
    """The user's messages of a rendered transcript (``User:`` turns and their indented
    continuation lines)."""
    out: list[str] = []
    in_user = False
    for line in transcript.splitlines():
        if line.startswith("  "):
            if in_user:
                out[-1] += " " + line.strip()
            continue
        in_user = line.startswith("User: ")
        if in_user:
            out.append(line[len("User: "):])
    return [s.strip() for s in out if s.strip()]


def measure(body: dict, user: str) -> Measure:
    blocks = _system_blocks(body)
    system = "\n".join(blocks)
    if "<transcript>" in user:
        kind = "extraction"
    elif "<pairs>" in user:
        kind = "contradiction"
    else:
        kind = "other"
    m = Measure(kind, system)
    m.total = sum(len(b) for b in blocks) + len(user)
    subjects = between(user, "<subjects>", "</subjects>")
    if subjects is None:  # the older layout: the subjects list is a system block
        subjects = next((b for b in blocks if b.startswith("## Subjects")), None)
    entries = between(user, "<existing_entries>", "</existing_entries>")
    transcript = between(user, "<transcript>", "</transcript>")
    m.subjects = len(subjects or "")
    m.subject_count = sum(1 for line in (subjects or "").splitlines() if line.startswith("- "))
    m.entries = len(entries or "")
    m.shown = [e["id"] for e in _shown(entries)]
    m.transcript = len(transcript or "")
    m.prompt = m.total - m.subjects - m.entries - m.transcript
    if transcript:
        inner = transcript[len("<transcript>"):-len("</transcript>")]
        m.sentences = _user_sentences(inner)
    return m


# -- the rules ----------------------------------------------------------------------------------


def _best(content: str, shown: list[dict], types: tuple[str, ...]) -> str | None:
    mine = words(content)
    best, best_score = None, 0.0
    for entry in shown:
        said = str(entry.get("content", ""))
        if entry.get("type") not in types or entry.get("status") == "done" \
                or said.endswith(" is done."):
            continue  # a task already said done is not closed again
        shared = len(mine & theirs) if (theirs := words(said)) else 0
        if shared < MIN_SHARED:
            continue
        if shared > best_score:  # the most words shared; a tie goes to the older one shown
            best, best_score = entry["id"], shared
    return best


def restates(content: str, shown: list[dict]) -> str | None:
    """The id of the shown fact or decision with no subject that ``content`` (a sentence with
    no subject) says again in other words, or None: the best-matching by content stems
    (Snowball, stop words dropped), at least MIN_SHARED shared and KNOWN of all."""
    from zettelclaw.rank import terms

    mine = frozenset(terms(content))
    best, best_score = None, 0.0
    for entry in shown:
        if entry.get("type") not in ("fact", "decision") or entry.get("subject"):
            continue
        theirs = frozenset(terms(str(entry.get("content", ""))))
        if len(mine & theirs) < MIN_SHARED:
            continue
        score = similarity(mine, theirs)
        if score >= KNOWN and score > best_score:
            best, best_score = entry["id"], score
    return best


def extraction_reply(sentences: list[str], shown: list[dict], *, handoff: bool,
                     known: list | None = None, restate: bool = True) -> str:
    """The reply to an extraction request; ``known`` collects (sentence, id) for each
    sentence taken as a restatement of a shown entry; ``restate``: the rule for those."""
    out: list[dict] = []
    for sentence in sentences:
        lower = sentence.lower()
        if len(sentence.split()) < 5:
            continue  # small talk
        content = content_of(sentence)
        item: dict = {"content": content}
        subject = subject_of(sentence)
        if subject:
            item["subject"] = subject
        if re.search(r"\bactually\b", lower):
            item["type"] = "fact"
            item["replaces"] = _best(content, shown, ("fact", "decision"))
        elif "is done" in lower:
            item.update(type="task", status="done", replaces=_best(content, shown, ("task",)))
        elif "went with" in lower:
            item.update(type="decision", replaces=_best(content, shown, ("question",)))
        elif "decided" in lower:
            item["type"] = "decision"
        elif "need to" in lower:
            item.update(type="task", status="open")
        elif sentence.rstrip().endswith("?"):
            item["type"] = "question"
        else:
            mine = words(content)
            if any(similarity(mine, words(str(e.get("content", "")))) >= NEARLY_SAME
                   for e in shown if e.get("type") == "fact"):
                continue  # it was shown: already known
            if restate and not subject and (same := restates(content, shown)) is not None:
                if known is not None:
                    known.append((sentence, same))
                continue  # said again in other words: already known
            item["type"] = "fact"
        if item.get("replaces") is None:
            item.pop("replaces", None)
        out.append(item)
    if handoff:
        about = sorted({i["subject"] for i in out if i.get("subject")})[:3]
        out.append({"type": "handoff",
                    "content": f"Talked about {', '.join(about) if about else 'small things'}."})
    return "\n".join(json.dumps(item) for item in out)


_PAIR_HEAD = re.compile(r"^(\d+)\. subject: (.*)$")
_PAIR_SIDE = re.compile(r"^\s+(older|newer) \([^)]*\): (.*)$")


def named_thing(text: str) -> str:
    """A sentence without its numbers: what it names."""
    return " ".join(_NUMBER.sub("#", text.lower()).split())


def contradiction_reply(user: str) -> str:
    pairs: dict[int, dict[str, str]] = {}
    current = None
    for line in user.splitlines():
        head = _PAIR_HEAD.match(line)
        if head:
            current = pairs.setdefault(int(head.group(1)), {})
            continue
        side = _PAIR_SIDE.match(line)
        if side and current is not None:
            current.setdefault(side.group(1), side.group(2))
    out = []
    for n in sorted(pairs):
        older, newer = pairs[n].get("older", ""), pairs[n].get("newer", "")
        conflict = (named_thing(older) == named_thing(newer)
                    and _NUMBER.findall(older) != _NUMBER.findall(newer))
        out.append(f"{n}: {'yes' if conflict else 'no'}")
    return "\n".join(out)


class YearModel(FakeAnthropic):
    """The fake server answering by the rules above; ``measures`` holds every request's
    :class:`Measure` (the bench empties it each night)."""

    def __init__(self):
        super().__init__()
        self.default = None
        self.measures: list[Measure] = []
        self.known: list[tuple[str, str]] = []  # (sentence, id) taken as restated
        self.restate = os.environ.get("ZETTELCLAW_YEAR_RESTATE", "on") != "off"

    def _next_reply(self, request) -> Reply:
        body = request.body or {}
        user = request.user_text
        m = measure(body, user)
        with self._lock:
            self.measures.append(m)
            self.requests.clear()  # the bodies are not kept: a year of them is large
        if m.kind == "extraction":
            entries = _shown(between(user, "<existing_entries>", "</existing_entries>"))
            known: list = []
            text = extraction_reply(m.sentences, entries,
                                    handoff="Do NOT write a handoff" not in user,
                                    known=known, restate=self.restate)
            with self._lock:
                self.known.extend(known)
            return Reply(text=text)
        if m.kind == "contradiction":
            return Reply(text=contradiction_reply(user))
        return Reply(text="")

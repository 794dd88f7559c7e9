"""The nightly briefing (design §5): the generated half of MEMORY.md.

``zettelclaw brief`` rewrites what lies between ``<!-- BEGIN GENERATED BRIEFING -->`` and
``<!-- END GENERATED BRIEFING -->`` from the resolved log; every byte outside the markers stays
as it was. Sections, in the order of the design's example:

* **Active**: subjects with entries in the last ``activeWindow`` days (14), busiest first, then
  most recent; each with its latest current entry as a one-line state.
* **Recent Decisions**: current decisions of the last ``decisionWindow`` days (7), newest first.
* **Pending**: open tasks of any age, newest first, with their subject.
* **Open Questions**: questions nobody replaced (by a decision, a fact or a newer question),
  newest first, with their subject.
* **Stale**: subjects that came back in the last 7 days after a silence longer than
  ``staleThreshold`` days (30): the subject's first entry of those 7 days follows its previous
  entry by more than the threshold. This is the one reading of the design's rule ("most recent
  entry older than 30 days but appearing in entries of the last 7 days") that can be true: its
  most recent entry *before this week* is old. The entry that ended the silence is listed under
  Stale only, not again under Active, as in the design's example.
* **Contradictions**: at most 3 a night. Candidates are found in code: the same subject, an older
  current fact or decision from another session against a current fact or decision of the active
  window, sharing at least two content words (stemmed; stop words, numbers and the subject's own
  name dropped), best overlap first.
  Only those go to the model (``prompts/contradiction.md``), a dozen at most per night; every
  pair it judges is remembered in state.json (``contradictions``) and never asked again. A flag
  stays in the briefing for 24 hours, so a second run the same night shows it again.

Activity (how busy a subject is, when it was last seen, its silences) counts every line of the
log, replaced ones included: a correction is activity. What is *shown* comes only from current
entries. A replacement without a ``subject`` inherits the subject of the entry it replaces.

At most ``maxLines`` (80) lines go between the markers. When there is more, sections give up
items from their tails (the least busy, the oldest), the longest section first, so every section
keeps a fair share; a last line says how many items of which kind were left out and which
``zettelclaw search`` lists them.

Without a model (``--no-llm``, or no key: see ``credentials.py``) everything but new
contradiction flags is the same: the sections never depend on the model.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from .clock import format_ts, is_plain, parse_ts, sort_key
from .errors import UsageError, ZettelclawError
from .markers import (  # noqa: F401  (MEMORY.md's markers, here under their old names)
    _BEGIN,
    _END,
    BEGIN_MARKER,
    END_MARKER,
    MarkerError,
    _fence,
    _find_all,
    _locate,
    _scan,
    generated_block,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

DEFAULTS = {"activeWindow": 14, "decisionWindow": 7, "staleThreshold": 30, "maxLines": 80}
RECENT_DAYS = 7              # "came back in the last 7 days" (Stale)
MAX_CONTRADICTIONS = 3       # flags per night
MAX_JUDGED = 12              # candidate pairs sent to the model per night
FLAG_SHOWN_FOR = timedelta(hours=24)
MAX_DAYS = 36500  # a window (or a line count) beyond a century is a typo, and overflows dates
OLDER_PER_SUBJECT = 400      # older entries of one subject a new one is compared with
NEWER_PER_SUBJECT = 60       # newest facts/decisions of one subject checked per night
MIN_SHARED_TERMS = 2
ITEM_CHARS = 160             # one item's text; MEMORY.md must stay within OpenClaw's 20k chars
QUOTE_CHARS = 70             # each side of a contradiction
SUBJECT_CHARS = 60
STATE_SECTION = "contradictions"
WRITE_TRIES = 20             # compare-and-swap attempts of one MEMORY.md write

SECTIONS = (  # key, heading, what an item is (for the "not shown" line)
    ("active", "Active", "active subjects"),
    ("decisions", "Recent Decisions", "recent decisions"),
    ("pending", "Pending", "open tasks"),
    ("questions", "Open Questions", "open questions"),
    ("stale", "Stale", "stale subjects"),
    ("contradictions", "Contradictions", "contradictions"),
)


# --------------------------------------------------------------------------- MEMORY.md markers


_UTF16_BOMS = ((b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be"))


def _utf8(data: bytes):
    """``data`` as UTF-8 bytes, and the function that turns such bytes back into the file's
    own encoding. A UTF-16 file (with its byte order mark, LE or BE) is read and written as
    UTF-16, every byte outside the markers kept; one that is not valid UTF-16 is refused,
    unless its markers are there in UTF-8 (then its first bytes only look like a byte order
    mark, and it is bytes like any other file). A UTF-8 byte order mark is kept as it is."""
    for bom, codec in _UTF16_BOMS:
        if data.startswith(bom) and _BEGIN not in data and _END not in data:
            try:
                text = data[len(bom):].decode(codec)
            except UnicodeDecodeError:
                raise ZettelclawError(
                    "MEMORY.md starts with a UTF-16 byte order mark but is not valid UTF-16; "
                    "save it as UTF-8 or UTF-16 (nothing written)") from None
            return text.encode("utf-8"), lambda out, b=bom, c=codec: b + out.decode(
                "utf-8").encode(c)
    return data, lambda out: out


def _newline(data: bytes, at: int | None = None) -> bytes:
    """The line ending to write: the one right after ``at`` (a marker) when there is one,
    else the one the file ends with; ``\n`` otherwise."""
    if at is not None:
        if data.startswith(b"\r\n", at):
            return b"\r\n"
        if data.startswith(b"\n", at):
            return b"\n"
    return b"\r\n" if data.endswith(b"\r\n") else b"\n"


def splice(data: bytes, block: str) -> bytes:
    """``data`` (MEMORY.md's bytes) with ``block`` between the markers.

    Everything outside the markers is kept byte for byte. Without markers, they are appended
    (after a blank line) with the block between them. The block's lines get the file's line
    ending. Markers inside a fenced code block are examples, not markers. A UTF-16 file stays
    UTF-16. Raises MarkerError when the markers are broken.
    """
    data, back = _utf8(data)
    where = _locate(data)
    if where is None:
        nl = _newline(data)
        prefix = b"" if not data else (nl if data.endswith(b"\n") else nl + nl)
        closing = _scan(data)[2]
        if closing is not None:  # a code block left open would swallow the markers: close it
            prefix += closing + nl + nl
        body = _block_bytes(block, nl)
        return back(data + prefix + _BEGIN + nl + body + _END + nl)
    start, end = where
    nl = _newline(data, start)
    return back(data[:start] + nl + _block_bytes(block, nl) + data[end:])


def _block_bytes(block: str, nl: bytes) -> bytes:
    if not block:
        return b""
    return nl.join(line.encode("utf-8") for line in block.split("\n")) + nl


def markers_state(memory: Path) -> str:
    """``ok`` (one BEGIN before one END), ``missing`` (neither, or no file) or ``broken``."""
    try:
        data = _read_existing(memory)
    except FileNotFoundError:
        return "missing"
    try:
        return "ok" if _locate(_utf8(data)[0]) else "missing"
    except ZettelclawError:
        return "broken"


def add_markers(memory: Path) -> None:
    """Append the two markers when absent; every existing byte stays as it is."""
    from .fsutil import atomic_write

    state = markers_state(memory)
    if state == "ok":
        return
    if state == "broken":
        raise ZettelclawError(
            f"{memory} has unmatched briefing markers; keep one '{BEGIN_MARKER}' line "
            f"followed by one '{END_MARKER}' line and run `zettelclaw init` again")
    data = _read_memory(memory)
    if not memory.parent.is_dir():
        raise MissingWorkspace(memory.parent)
    atomic_write(memory, splice(data, ""), mode=None if data else 0o644)


def remove_markers(memory: Path) -> None:
    """Remove the markers and the generated block between them; the rest stays byte for byte."""
    from .fsutil import atomic_write

    if markers_state(memory) != "ok":
        return
    text, back = _utf8(_read_existing(memory))
    start, end = _locate(text)
    start -= len(_BEGIN)
    end += len(_END)
    if text[end:end + 2] == b"\r\n":
        end += 2
    elif text[end:end + 1] == b"\n":
        end += 1
    head = text[:start]
    if not text[end:]:  # the blank line add_markers put before the block
        if head.endswith(b"\r\n\r\n"):
            head = head[:-2]
        elif head.endswith(b"\n\n"):
            head = head[:-1]
    atomic_write(memory, back(head + text[end:]))


# --------------------------------------------------------------------------- options


@dataclass
class Options:
    active_window: int = DEFAULTS["activeWindow"]
    decision_window: int = DEFAULTS["decisionWindow"]
    stale_threshold: int = DEFAULTS["staleThreshold"]
    max_lines: int = DEFAULTS["maxLines"]
    model: str | None = None
    use_model: bool = True
    now: datetime | None = None  # None: the real time; given: replay, later entries ignored
    # whose briefing: that agent's entries into that agent's MEMORY.md (None: the whole log
    # into the configured workspace's); entries without ``agent`` are ``default_agent``'s
    agent: str | None = None
    default_agent: str = "main"
    single: bool = True  # the only briefing of this run: --workspace applies to any agent

    @classmethod
    def resolve(cls, **flags) -> Options:
        """``plugins.entries.zettelclaw.config.briefing`` with ``flags`` (not None) on top."""
        from . import paths

        config = paths.plugin_config().get("briefing")
        config = config if isinstance(config, dict) else {}
        values = {}
        for key, attr in (("activeWindow", "active_window"), ("decisionWindow", "decision_window"),
                          ("staleThreshold", "stale_threshold"), ("maxLines", "max_lines")):
            flag = flags.pop(attr, None)
            if flag is not None:
                if not 1 <= flag <= MAX_DAYS:
                    raise UsageError(f"--{_dashed(key)} must be between 1 and {MAX_DAYS}")
                values[attr] = flag
                continue
            value = config.get(key, DEFAULTS[key])
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_DAYS:
                raise ZettelclawError(
                    f"briefing.{key}={value!r} in the plugin config must be a whole number of "
                    f"{'lines' if key == 'maxLines' else 'days'}, 1 to {MAX_DAYS}")
            values[attr] = value
        model = flags.pop("model", None) or config.get("model")
        if model is not None and not isinstance(model, str):
            raise ZettelclawError(f"briefing.model={model!r} in the plugin config is not a name")
        return cls(**values, model=model, **{k: v for k, v in flags.items() if v is not None})


def _dashed(key: str) -> str:
    return re.sub(r"[A-Z]", lambda m: "-" + m.group(0).lower(), key)


# --------------------------------------------------------------------------- reading the log


def _ts_key(value) -> str | None:
    """A timestamp as a sortable ``YYYY-MM-DDTHH:MM:SSZ`` string (None when unreadable)."""
    return sort_key(value) or None


def one_line(text, limit: int = ITEM_CHARS) -> str:
    """``text`` on one line, at most ``limit`` characters, unable to forge a marker."""
    from .display import printable

    text = printable(" ".join(str(text or "").split())).replace("<!--", "&lt;!--")
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


def name(subject: str) -> str:
    """A subject slug as shown (slugs written by hand can hold anything)."""
    return one_line(subject, SUBJECT_CHARS)


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


@dataclass
class Snapshot:
    """What the log says tonight: the deterministic sections and the contradiction material."""

    now: datetime
    options: Options
    sections: dict[str, list[str]]
    by_id: dict[str, dict]
    replaced: set[str]
    facts: dict[str, list[tuple[str, dict]]]  # subject -> current facts/decisions (ts, entry)
    active_key: str

    def cutoff(self, days: int) -> datetime:
        return self.now - timedelta(days=days)


def read(options: Options, log_path: Path | None = None) -> Snapshot:
    """One pass over the log: every section but Contradictions, and the facts to check."""
    from . import clock
    from .log import Log
    from .resolve import Resolution

    now = options.now or clock.now()
    now_key = format_ts(now)
    active_key = format_ts(now - timedelta(days=options.active_window))
    decision_key = format_ts(now - timedelta(days=options.decision_window))
    recent_key = format_ts(now - timedelta(days=RECENT_DAYS))
    replay = options.now is not None

    entries, stamps = [], []
    agent = options.agent
    for entry in Log(log_path).entries():
        if agent is not None and (entry.get("agent") or options.default_agent) != agent:
            continue  # another agent's memory
        ts = entry.get("timestamp")
        if not is_plain(ts):
            ts = _ts_key(ts)
        if replay and ts is not None and ts > now_key:
            continue  # written after the night being replayed
        entries.append(entry)
        stamps.append(ts)
    resolution = Resolution(entries)
    replaced, by_id = resolution.replaced_by, resolution.by_id

    inherited: dict[str, str] = {}
    active_count: dict[str, int] = {}
    active_last: dict[str, str] = {}
    first_recent: dict[str, str] = {}
    before_recent: dict[str, str] = {}
    latest: dict[str, tuple[str, int]] = {}
    decisions, pending, questions = [], [], []
    facts: dict[str, list[tuple[str, dict]]] = {}
    want_facts = options.use_model
    window_key = min(active_key, decision_key, recent_key)  # older entries: open loops only

    for pos, entry in enumerate(entries):
        ts = stamps[pos]
        subject = entry.get("subject")
        if type(subject) is not str or not subject:
            subject = None
            target = entry.get("replaces")
            if type(target) is str and target in by_id:
                subject = by_id[target].get("subject") or inherited.get(target)
                if subject:
                    inherited[entry["id"]] = subject
        kind = entry["type"]
        current = entry["id"] not in replaced
        if ts is None or ts < window_key:  # most of the log: cheap
            if subject and ts is not None and ts > before_recent.get(subject, ""):
                before_recent[subject] = ts
            if current:
                if kind == "task":
                    if entry.get("status") == "open":
                        pending.append(((ts or "", pos), entry, subject))
                elif kind == "question":
                    questions.append(((ts or "", pos), entry, subject))
                elif want_facts and subject and ts is not None and (
                        kind == "fact" or kind == "decision"):
                    facts.setdefault(subject, []).append((ts, entry))
            continue
        if subject:
            if ts >= active_key:
                active_count[subject] = active_count.get(subject, 0) + 1
                if ts > active_last.get(subject, ""):
                    active_last[subject] = ts
            if ts >= recent_key:
                if ts < first_recent.get(subject, "~"):
                    first_recent[subject] = ts
            elif ts > before_recent.get(subject, ""):
                before_recent[subject] = ts
        if not current:
            continue
        order = (ts, pos)
        if subject and ts >= active_key and order >= latest.get(subject, ("", -1)):
            latest[subject] = order
        if kind == "task":
            if entry.get("status") == "open":
                pending.append((order, entry, subject))
        elif kind == "question":
            questions.append((order, entry, subject))
        elif kind == "decision" or kind == "fact":
            if kind == "decision" and ts >= decision_key:
                decisions.append((order, entry))
            if want_facts and subject:
                facts.setdefault(subject, []).append((ts, entry))

    threshold = timedelta(days=options.stale_threshold)
    stale = []
    for subject, back in first_recent.items():
        before = before_recent.get(subject)
        if before is not None and parse_ts(back) - parse_ts(before) > threshold:
            stale.append((back, subject, before))
    stale.sort(reverse=True)
    stale_subjects = {subject for _, subject, _ in stale}

    def with_subject(entry: dict, subject: str | None) -> str:
        text = one_line(entry["content"])
        return f"{text} ({name(subject)})" if subject else text

    def summary(subject: str) -> str:
        entry = entries[latest[subject][1]] if subject in latest else None
        if entry is None:
            return name(subject)
        text = one_line(entry["content"])
        if entry["type"] == "task":
            text += f" ({entry.get('status') or 'open'})"
        return f"{name(subject)} — {text}"

    active = sorted(s for s in active_count if s not in stale_subjects)
    active.sort(key=lambda s: (active_count[s], active_last[s]), reverse=True)
    decisions.sort(key=lambda item: item[0], reverse=True)
    pending.sort(key=lambda item: item[0], reverse=True)
    questions.sort(key=lambda item: item[0], reverse=True)

    sections = {
        "active": [summary(s) for s in active],
        "decisions": [f"{ts[:10]}: {one_line(e['content'])}" for (ts, _), e in decisions],
        "pending": [with_subject(e, s) for _, e, s in pending],
        "questions": [with_subject(e, s) for _, e, s in questions],
        "stale": [f"{name(subject)} — last entry {before[:10]}, referenced in recent session"
                  for _, subject, before in stale],
        "contradictions": [],
    }
    for subject_facts in facts.values():
        subject_facts.sort(key=lambda item: item[0])
    return Snapshot(now=now, options=options, sections=sections, by_id=by_id,
                    replaced=set(replaced), facts=facts, active_key=active_key)


# --------------------------------------------------------------------------- contradictions


def candidates(snapshot: Snapshot, judged: set[str], limit: int = MAX_JUDGED) -> list[Pair]:
    """The pairs most worth asking about: same subject, shared words, never judged before."""
    from bisect import bisect_left

    from .rank import terms

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
    from .model import Client, Settings
    from .resources import prompt

    settings = Settings.resolve("extraction", model=options.model)
    reply = Client(settings).complete(prompt("contradiction"), contradiction_request(pairs),
                                      max_tokens=64 + 16 * len(pairs))
    return parse_verdicts(reply.text, len(pairs)), reply.usage


# --------------------------------------------------------------------------- rendering


@dataclass
class Rendered:
    block: str
    max_lines: int
    shown: dict[str, int]
    dropped: dict[str, int] = field(default_factory=dict)

    @property
    def lines(self) -> int:
        return len(self.block.split("\n")) if self.block else 0


EMPTY = "Nothing to brief yet: no recent activity, open tasks or open questions in the log."


def _line_count(kept: list[int], trimmed: bool) -> int:
    used = [k for k in kept if k]
    lines = sum(k + 1 for k in used) + max(len(used) - 1, 0)
    if trimmed:
        lines += 2 if used else 1  # a blank line, then the "not shown" line
    return lines


def fit(sizes: list[int], max_lines: int) -> list[int]:
    """How many items of each section fit in ``max_lines``: sections are cut to one common
    cap, the longest first; spare lines go to the cut sections in display order."""
    if _line_count(sizes, False) <= max_lines:
        return list(sizes)
    low, high = 0, max(sizes)  # the largest cap that fits is in [low, high)
    while high - low > 1:
        mid = (low + high) // 2
        if _line_count([min(s, mid) for s in sizes], True) <= max_lines:
            low = mid
        else:
            high = mid
    kept = [min(s, low) for s in sizes]
    for i, size in enumerate(sizes):
        if kept[i] < size:
            kept[i] += 1
            if _line_count(kept, True) > max_lines:
                kept[i] -= 1
    return kept


def render(sections: dict[str, list[str]], max_lines: int, hints: dict[str, str]) -> Rendered:
    """The block between the markers (lines joined by ``\\n``, no final newline)."""
    sizes = [len(sections.get(key, [])) for key, _, _ in SECTIONS]
    kept = fit(sizes, max_lines)
    out: list[str] = []
    shown, dropped = {}, {}
    for (key, heading, _), keep, size in zip(SECTIONS, kept, sizes, strict=True):
        shown[key] = keep
        if size > keep:
            dropped[key] = size - keep
        if not keep:
            continue
        if out:
            out.append("")
        out.append(f"## {heading}")
        out.extend(f"- {item}" for item in sections[key][:keep])
    if dropped:
        parts = []
        for key, _, noun in SECTIONS:
            if key in dropped:
                hint = hints.get(key)
                parts.append(f"{dropped[key]} {noun}" + (f" (`{hint}`)" if hint else ""))
        if out:
            out.append("")
        out.append(f"Not shown ({max_lines}-line limit): " + ", ".join(parts) + ".")
    if not out and max_lines >= 1:
        out.append(EMPTY)
    return Rendered("\n".join(out), max_lines, shown, dropped)


def search_hints(snapshot: Snapshot) -> dict[str, str]:
    def since(days: int) -> str:
        return snapshot.cutoff(days).strftime("%Y-%m-%d")

    o = snapshot.options
    return {
        "active": f"zettelclaw search --since {since(o.active_window)}",
        "decisions": f"zettelclaw search --type decision --since {since(o.decision_window)}",
        "pending": "zettelclaw search --type task --status open",
        "questions": "zettelclaw search --type question",
        "stale": f"zettelclaw search --since {since(RECENT_DAYS)}",
    }


# --------------------------------------------------------------------------- the command


@dataclass
class Result:
    block: str
    memory: Path
    before: bytes
    after: bytes
    rendered: Rendered
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    judged: dict[str, dict] = field(default_factory=dict)  # pair key -> state record
    flagged: list[str] = field(default_factory=list)  # keys flagged tonight
    settled: set[str] = field(default_factory=set)  # replaced ids: their pairs are forgotten
    usage: object = None  # model.Usage of the contradiction check, when the model was asked

    @property
    def changed(self) -> bool:
        return self.before != self.after


def _read_existing(memory: Path) -> bytes:
    """MEMORY.md's bytes; FileNotFoundError when missing. A symlink, FIFO or directory is
    refused (as ``get`` refuses it): the briefing never reads or writes through a link."""
    from .fsutil import open_read

    with open_read(memory) as fh:
        return fh.read()


def _read_memory(memory: Path) -> bytes:
    try:
        return _read_existing(memory)
    except FileNotFoundError:
        return b""
    except OSError as exc:
        raise ZettelclawError(f"cannot read {memory}: {exc.strerror}") from None


def _memory_path(options: Options | None = None) -> Path:
    """MEMORY.md of the briefed agent's workspace (``--workspace`` / OPENCLAW_WORKSPACE_DIR
    for the default agent, or for any agent briefed alone)."""
    from pathlib import Path

    from . import paths

    agent = options.agent if options is not None else None
    if agent is None or (options.single and os.environ.get("OPENCLAW_WORKSPACE_DIR")):
        memory = paths.memory_md_path()
    else:
        memory = Path(paths.agent_workspace(agent)) / paths.MEMORY_FILE
    return memory  # a symlink is refused where it is read and written, never followed


class MissingWorkspace(ZettelclawError):
    """MEMORY.md's workspace does not exist: zettelclaw never creates it (it is OpenClaw's)."""

    def __init__(self, workspace):
        super().__init__(f"the workspace {workspace} does not exist; create it or point "
                         "--workspace at OpenClaw's workspace")


def _marker_error(memory: Path, exc: MarkerError) -> ZettelclawError:
    return MarkerError(f"{memory} has {exc}; keep one '{BEGIN_MARKER}' line followed by one "
                       f"'{END_MARKER}' line, then run `zettelclaw brief` again (nothing written)")


def _no_key() -> bool:
    from .credentials import find

    return find() is None


def build(options: Options, log_path: Path | None = None) -> Result:
    """Everything ``brief`` would write, without writing it."""
    memory = _memory_path(options)
    before = _read_memory(memory)
    try:
        _locate(_utf8(before)[0])  # broken markers: fail before any model call
    except MarkerError as exc:
        raise _marker_error(memory, exc) from None

    snapshot = read(options, log_path)
    notes: list[str] = []
    warnings: list[str] = []
    records = _remembered()
    flags = _recent_flags(records, snapshot)
    judged: dict[str, dict] = {}
    flagged: list[str] = []
    usage = None
    if options.use_model and _no_key():
        notes.append("ANTHROPIC_API_KEY is not set and OpenClaw stores no Anthropic key, so no "
                     "new contradictions were looked for; "
                     "every other section is complete (--no-llm skips this note)")
    elif options.use_model and len(flags) < MAX_CONTRADICTIONS:
        pairs = candidates(snapshot, set(records))
        if pairs:
            from .errors import ModelError

            try:
                verdicts, usage = judge(pairs, options)
            except ModelError as exc:
                verdicts = None
                warnings.append(f"contradiction check skipped: {exc}")
            if verdicts is not None and not verdicts:
                warnings.append("the model's answer to the contradiction check was not in the "
                                "expected form; nothing flagged")
            now_iso = format_ts(snapshot.now)
            for n, pair in enumerate(pairs, 1):
                if verdicts is None or n not in verdicts:
                    continue
                conflict = verdicts[n]
                if conflict and len(flags) >= MAX_CONTRADICTIONS:
                    continue  # over tonight's limit: not remembered, asked again another night
                record = {"judgedAt": now_iso, "conflict": conflict}
                if conflict:
                    record["flaggedAt"] = now_iso
                    flagged.append(pair.key)
                    flags.append(pair)
                judged[pair.key] = record
    snapshot.sections["contradictions"] = [p.line() for p in flags]
    rendered = render(snapshot.sections, options.max_lines, search_hints(snapshot))
    after = splice(before, rendered.block)
    return Result(rendered.block, memory, before, after, rendered, notes, warnings, judged,
                  flagged, snapshot.replaced, usage)


def agents_with_entries(log_path: Path | None = None) -> list[str]:
    """The agents that have entries in the log, the default agent first (alone when the log
    is empty)."""
    from . import paths
    from .log import Log

    default = paths.default_agent()
    found = {default}
    for entry in Log(log_path, warn=False).entries():
        found.add(paths.entry_agent(entry, default))
    return [default, *sorted(found - {default})]


def _remembered() -> dict[str, dict]:
    """Judged pairs from state.json (read without the lock: only ``write`` changes them)."""
    from . import paths
    from .fsutil import check_regular

    if not check_regular(paths.state_path()):
        return {}
    from .state import State

    section = State.load().section(STATE_SECTION)
    return {k: v for k, v in section.items() if isinstance(v, dict)}


def _recent_flags(records: dict[str, dict], snapshot: Snapshot) -> list[Pair]:
    """Pairs flagged in the last 24 hours whose two entries are still current."""
    out = []
    since = snapshot.now - FLAG_SHOWN_FOR
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


def write(result: Result) -> bool:
    """Write MEMORY.md (atomically, from a fresh read) and remember tonight's judgments.

    Returns whether MEMORY.md changed. Raises MarkerError, changing nothing, when someone broke
    the markers since :func:`build` read the file.

    The write is a compare-and-swap (:func:`fsutil.compare_and_swap`), so that a line a
    person (or OpenClaw's dreaming) appends to MEMORY.md while the briefing is written is not
    lost: the new file is spliced from a fresh read and renamed over MEMORY.md only if
    MEMORY.md still holds the bytes it was spliced from, checked right before the rename;
    bytes appended after them meanwhile are appended to the new file after the rename (they
    were after the END marker, and stay there). When MEMORY.md was changed any other way, the
    splice is redone from the new content, up to ``WRITE_TRIES`` times with a short backoff,
    then it gives up with one error, having written nothing.
    """
    import time

    from .fsutil import compare_and_swap

    memory = result.memory
    for attempt in range(WRITE_TRIES):
        current = _read_memory(memory)
        try:
            after = splice(current, result.block) if current != result.before else result.after
        except MarkerError as exc:
            raise _marker_error(memory, exc) from None
        changed = after != current
        if not changed:
            break
        if not memory.parent.is_dir():  # never create directories for MEMORY.md
            raise MissingWorkspace(memory.parent)
        if compare_and_swap(memory, after, current,
                            mode=None if os.path.lexists(memory) else 0o644):
            break
        time.sleep(0.002 * (attempt + 1))
    else:
        raise ZettelclawError(
            f"{memory} kept changing while the briefing was written ({WRITE_TRIES} tries); "
            "nothing written, run `zettelclaw brief` again")
    if result.judged or result.usage:
        from .state import transaction

        with transaction() as state:
            if result.judged:
                section = state.section(STATE_SECTION)
                section.update(result.judged)
                for key in [k for k in section if result.settled.intersection(k.split(">"))]:
                    del section[key]  # one side was replaced since: the pair is settled
            if result.usage:  # the model's tokens count with extraction's in `stats`
                totals = state.section("usage")
                totals.update((type(result.usage).from_dict(totals) + result.usage).as_dict())
                totals["briefings"] = _count(totals.get("briefings")) + 1
    return changed


def _count(value) -> int:
    from .state import count

    return count(value)

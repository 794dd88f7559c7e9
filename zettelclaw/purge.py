"""Purge: take entries' content off the disk for good (issue 15).

The log stays append-only in spirit: a purged entry's line is rewritten in place, by the same
temp-file-and-rename under the directory lock that ``subjects rename`` uses
(:meth:`.log.Log.rewrite`), into a *tombstone* that keeps what resolves ids and replacements and
nothing of what the entry said::

    {"id":..,"timestamp":..,"type":..,"replaces":..,"session":..,"agent":..,"purged":"<when>"}

(``replaces`` and ``agent`` only when the entry had them.) Purging an entry purges its whole
correction chain: every version holds the same thing in older words.

The same text then leaves every other file zettelclaw writes: ``state.json`` (entries waiting in
``pending``, the free text of failure records), the background runs' output (``hooks.log``, its
rotated ``hooks.log.1``, the nightly job's ``brief.log``), the pages of every vault the log
was rendered into (``vault build`` wrote the words there, and a build never rewrites a line:
only what the purged entries rendered goes, never the structure of a page), and MEMORY.md's
generated block, which is briefed again (without the model). The person's part of MEMORY.md
is theirs: purge says where the text still is there, and changes nothing of it. ``--match
TEXT`` also scrubs TEXT where it appears outside the purged entries, in state.json and the run
logs.

Order, for all or nothing under SIGKILL: the run logs and the vaults first, while the log still
holds the words (a kill there leaves the log whole, and running the purge again finds them
again); then, under one hold of the lock, state.json (so that no run left killed can append a
purged entry again from ``pending``) and the log in one rename; then MEMORY.md. A kill before
that rename leaves the old log; one after it leaves state.json's ``purging`` record (the agents
whose MEMORY.md to brief again, never the words), which ``purge --finish``, or any later purge,
finishes. Each step on its own: one failing is said, and the others still run.
"""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass, field

from . import paths
from .errors import NotFoundError, UsageError, ZettelclawError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from pathlib import Path

# what a tombstone keeps of the entry, in this order (then "purged")
KEPT = ("id", "timestamp", "type", "replaces", "session", "agent")
MARK = "[purged]"  # what a scrubbed text becomes in state.json and the run logs
MIN_MATCH = 3  # a shorter --match would take half the log (and every id) with it
# the files the plugin and the nightly job append the background runs' output to
RUN_LOGS = ("hooks.log", "hooks.log.1", "brief.log")
_STDIN_DIR = re.compile(r"^\.zettelclaw-stdin-(\d+)-.{6}$")  # the plugin's (lib/run.js)
_ID = re.compile(rb'"id"\s*:\s*"((?:[^"\\]|\\.)*)"')
_TEXT_KEYS = ("content", "detail", "error", "message", "reason")


def tombstone(entry: dict, when: str) -> dict:
    """The line that takes ``entry``'s place (the agreed format)."""
    kept = {key: entry[key] for key in KEPT if entry.get(key) is not None}
    kept["purged"] = when
    return kept


@dataclass
class Selection:
    """What to purge: ids, or entries of a session / about a subject / mentioning a text (the
    filters given all apply), in the agents of ``agents`` (None: every agent)."""

    ids: tuple[str, ...] = ()
    session: str | None = None
    subject: str | None = None
    match: str | None = None
    agents: frozenset[str] | None = None
    default_agent: str = "main"

    def check(self) -> None:
        filters = (self.session, self.subject, self.match)
        if not self.ids and all(f is None for f in filters):
            raise UsageError("name what to purge: entry ids, or --session, --subject or --match")
        if self.ids and any(f is not None for f in filters):
            raise UsageError("give entry ids or --session/--subject/--match, not both")
        if self.match is not None and len(self.match.strip()) < MIN_MATCH:
            raise UsageError(f"--match needs at least {MIN_MATCH} characters: a shorter text "
                             "is part of too many words and ids")
        if self.match is not None and "\n" in self.match:
            raise UsageError("--match is one line of text")
        if self.subject is not None:
            from .subjects import check_slug

            self.subject = check_slug(self.subject)

    def in_scope(self, entry: dict) -> bool:
        return self.agents is None or \
            paths.entry_agent(entry, self.default_agent) in self.agents

    def picks(self, entry: dict) -> bool:
        """Whether the filters (not the ids) select ``entry``."""
        if self.ids or not self.in_scope(entry):
            return False
        if self.session is not None and entry.get("session") != self.session:
            return False
        if self.subject is not None and entry.get("subject") != self.subject:
            return False
        return self.match is None or any(
            _contains(entry.get(key), self.match) for key in ("content", "detail", "subject"))


@dataclass
class Plan:
    """What a purge takes: the entries (log order), the ids already purged, the texts to scrub
    from the other files."""

    entries: list[dict] = field(default_factory=list)  # log lines that become tombstones
    pending: list[dict] = field(default_factory=list)  # waiting in state.json, not in the log
    already: list[str] = field(default_factory=list)  # ids named that are tombstones already
    match: str | None = None

    @property
    def ids(self) -> set[str]:
        return {e["id"] for e in self.entries} | {e.get("id") for e in self.pending}

    def texts(self) -> list[str]:
        """The words to take out of the other files: each purged entry's content and detail
        (but one shorter than :data:`MIN_MATCH`, which would take ordinary words with it),
        longest first (a text inside another goes after it)."""
        found = {t for e in self.entries + self.pending for key in ("content", "detail")
                 if isinstance(t := e.get(key), str) and len(t.strip()) >= MIN_MATCH}
        return sorted(found, key=len, reverse=True)


@dataclass
class Report:
    plan: Plan
    purged: int = 0  # log lines made tombstones
    scrubbed: list[str] = field(default_factory=list)  # files the text was taken out of
    briefed: list[str] = field(default_factory=list)  # MEMORY.md files briefed again
    left: list[str] = field(default_factory=list)  # where the text still is, and why
    failed: list[str] = field(default_factory=list)  # of those, a step that failed (exit 1)


# -- planning -------------------------------------------------------------------------------


def _lines(log) -> Iterable[tuple[dict | None, dict | None]]:
    """(entry, tombstone) of each line of the log, one of them None (both for a torn line)."""
    import orjson

    from .log import is_entry, record_kind

    for line in log.lines():
        if not line.strip():
            continue
        try:
            obj = orjson.loads(line)
        except orjson.JSONDecodeError:
            from .log import parse_line

            obj = parse_line(line)  # a BOM before the first line
        if is_entry(obj):
            yield obj, None
        elif record_kind(obj) == "purged":  # (a forget or its undo is neither)
            yield None, obj


def plan(selection: Selection, log=None, state: dict | None = None) -> Plan:
    """What :func:`purge` would take, reading the log (and ``state``'s pending entries)."""
    from .log import Log

    selection.check()
    log = log if log is not None else Log(warn=False)
    # one pass for the ids, the replacement links and what the filters pick; the entries
    # themselves are kept only for those chosen (a second pass), not the whole log
    live: set[str] = set()
    named: dict[str, bool] = {}  # an id given -> whether its entry is in --agent's scope
    dead: set[str] = set()
    links: dict[str, set[str]] = {}
    seeds: set[str] = set()
    wanted = set(selection.ids)
    for entry, stone in _lines(log):
        line = entry if entry is not None else stone
        entry_id = line["id"]
        if entry is not None:
            live.add(entry_id)
            if entry_id in wanted:
                named[entry_id] = selection.in_scope(entry)
            elif selection.picks(entry):
                seeds.add(entry_id)
        else:
            dead.add(entry_id)
        target = line.get("replaces")
        if isinstance(target, str) and target != entry_id:
            links.setdefault(entry_id, set()).add(target)
            links.setdefault(target, set()).add(entry_id)

    already: list[str] = []
    for entry_id in dict.fromkeys(selection.ids):
        if named.get(entry_id):
            seeds.add(entry_id)
        elif entry_id not in live and entry_id in dead:
            already.append(entry_id)
        else:
            raise NotFoundError(f"no entry {entry_id!r}; nothing purged")
    chosen = _chains(seeds, links)
    for pending in _pending_entries(state):  # a killed run's entries, appended by the next
        if isinstance(pending.get("id"), str) and (
                pending["id"] in chosen or pending.get("replaces") in chosen
                or selection.picks(pending)):
            chosen.add(pending["id"])
    entries: dict[str, dict] = {}
    if chosen & live:
        for entry, _ in _lines(log):
            if entry is not None and entry["id"] in chosen:
                entries[entry["id"]] = entry  # (an id written twice: its last line, first place)
    waiting = {p.get("id"): p for p in _pending_entries(state)
               if p.get("id") in chosen and p.get("id") not in live}
    return Plan(list(entries.values()), list(waiting.values()), already, selection.match)


def _chains(seeds: set[str], links: dict[str, set[str]]) -> set[str]:
    """``seeds`` and every id linked to them by ``replaces``, either way, however far."""
    chosen, todo = set(seeds), list(seeds)
    while todo:
        for other in links.get(todo.pop(), ()):
            if other not in chosen:
                chosen.add(other)
                todo.append(other)
    return chosen


def _pending_entries(state: dict | None) -> list[dict]:
    pending = (state or {}).get("pending")
    if not isinstance(pending, dict):
        return []
    return [e for record in pending.values() if isinstance(record, dict)
            for e in record.get("entries") or [] if isinstance(e, dict)]


# -- purging --------------------------------------------------------------------------------


def purge(selection: Selection | None, *, rebrief: bool = True, now: str | None = None
          ) -> Report:
    """Purge what ``selection`` names (None: only finish what an earlier purge left), all of
    it in the home it started in (:class:`~zettelclaw.paths.pinned_home`): a log directory
    setting changed meanwhile never leaves its ``purging`` record behind in the old home."""
    with paths.pinned_home():
        return _purge(selection, rebrief=rebrief, now=now)


def _purge(selection: Selection | None, *, rebrief: bool, now: str | None) -> Report:
    """Purge what ``selection`` names (None: only finish what an earlier purge left).

    The words leave the files the log does not hold first (hooks.log, brief.log, every vault
    the log was rendered into), while the log still has them: a kill there leaves the log
    whole, and running the purge again finds the words again. Then, under one hold of the
    lock, state.json (``pending``, the free text of failure records) and the log in one
    rename; then MEMORY.md's block, briefed again. One step failing never stops the others:
    each failure is in ``left`` (and ``failed``). The ``purging`` record in state.json holds
    what a killed run still owes (the agents whose MEMORY.md to brief again), never the
    words. Raises NotFoundError (changing nothing) for an id that is not in the log."""
    from .clock import format_ts
    from .clock import now as clock_now
    from .fsutil import dir_lock
    from .handoff import rewrite_log
    from .log import Log

    if selection is not None:
        selection.check()
    when = now or format_ts(clock_now())
    log = Log(warn=False)
    first = plan(selection, log, _load_state()) if selection is not None else Plan()
    report = Report(first)
    _scrub_outside(report, first, _texts(first))
    with dir_lock(paths.log_dir()):
        state = _load_state()
        found = plan(selection, log, state) if selection is not None else Plan()
        report.plan = found
        work = _work(found, selection, state.get(UNFINISHED), when)
        texts = _texts(found)
        if _scrub_state(state, found, texts, work):
            report.scrubbed.append(paths.STATE_FILE)
        if found.entries and log.exists():
            report.purged = rewrite_log(log, _to_tombstones(found.ids, when))
        from .logcache import drop

        drop(paths.log_dir())  # the ranker's counts and words, the briefing's rows
        # (rewrite_log drops them too): a purge run again after one killed past its rewrite
        # leaves no cache behind either
        _remove_stale_stdin_dirs(paths.log_dir())
        running = _running_extractions(state)
    seen = {e.get("id") for e in first.entries + first.pending}
    later = Plan([e for e in found.entries if e["id"] not in seen],
                 [e for e in found.pending if e.get("id") not in seen])
    if later.entries or later.pending:  # appended between the two looks
        _scrub_outside(report, later, _texts(later))
    if rebrief:
        briefed, left = _rebrief(work["agents"], _memory_forms(texts))
        report.briefed += briefed
        report.left += left
        unbriefed = [where for where in left if "not briefed again" in where]
        report.failed += unbriefed
    else:
        unbriefed = work["agents"]
    if work["agents"] and not unbriefed:
        _finished(when)
    if found.match is not None:
        report.left += leftovers(found.match, selection)
    report.left += [f"session {sid}: an extraction is running; what it appends after this purge "
                    "was not looked at: run the purge again once it finished" for sid in running]
    return report


def _texts(found: Plan) -> list[str]:
    return sorted(set(found.texts() + ([found.match] if found.match is not None else [])),
                  key=len, reverse=True)


def _scrub_outside(report: Report, found: Plan, texts: list[str]) -> None:
    """The words out of the run logs and the vaults' pages: each file on its own, a failure
    said in ``report`` and the others done all the same."""
    if not texts:
        return
    pattern = pattern_of(tuple(_log_forms(texts)))
    for name in RUN_LOGS:
        _step(report, paths.log_dir() / name, pattern)
    rendered = pattern_of(tuple(_vault_forms(found.entries + found.pending)))
    for page in _vault_pages(found) if rendered is not None else []:
        _step(report, page, rendered, _scrub_page)


def _step(report: Report, path: Path, pattern, scrub=None) -> None:
    try:
        if _scrub_file(path, pattern, scrub):
            report.scrubbed.append(str(path) if path.parent != paths.log_dir() else path.name)
    except (OSError, ZettelclawError) as exc:
        from .redact import redact

        where = (f"{path}: not scrubbed ({redact(str(exc))}); it may still hold the purged "
                 "words: edit or delete it")
        report.left.append(where)
        report.failed.append(where)


def _running_extractions(state: dict) -> list[str]:
    """Sessions an extraction holds a live claim on: it may append, once its model answers,
    entries that say again what was purged."""
    from .extract.claim import claim_is_live

    claims = state.get("claims")
    return sorted(sid for sid, claim in claims.items() if claim_is_live(claim)) \
        if isinstance(claims, dict) else []


UNFINISHED = "purging"  # state.json: what a purge still owes after its log rewrite
FINISH = "zettelclaw purge --finish"  # the command that finishes it


def _work(found: Plan, selection: Selection | None, unfinished, when: str) -> dict:
    """What is left to do once the log is rewritten: the agents whose MEMORY.md to brief
    again (with those an earlier purge killed before it finished left in state.json,
    ``purging``). No words: a purged text is never written anywhere again."""
    from . import briefing

    default = paths.default_agent()
    agents = {paths.entry_agent(e, default) for e in found.entries}
    if found.match is not None and selection is not None:
        agents.update(a for a in briefing.agents_with_entries()
                      if selection.agents is None or a in selection.agents)
    if isinstance(unfinished, dict):
        agents.update(a for a in unfinished.get("agents") or [] if isinstance(a, str))
    return {"at": when, "pid": os.getpid(), "agents": sorted(agents)}


def unfinished() -> dict | None:
    """The ``purging`` record of a purge that did not finish (killed, or a step failed), for
    ``doctor`` and ``stats``: when, and the command that finishes it."""
    record = _load_state().get(UNFINISHED)
    if not isinstance(record, dict):
        return None
    from .fsutil import pid_alive

    pid = record.get("pid")
    if isinstance(pid, int) and pid != os.getpid() and pid_alive(pid):
        return None  # a purge running now
    return {"since": record.get("at"), "agents": record.get("agents") or [], "fix": FINISH}


def doctor_check():
    """doctor's line about a purge that did not finish (a problem: MEMORY.md may still hold
    purged words); None when there is none."""
    from .openclaw import Check

    try:
        record = unfinished()
    except ZettelclawError:  # a broken state.json: a check of its own says so
        return None
    if record is None:
        return None
    return Check("purge", "fail", f"a purge started {record['since']} did not finish "
                 "(MEMORY.md may still hold what it purged)", FINISH)


def _finished(when: str) -> None:
    """Drop the ``purging`` record this purge wrote (one a later purge took over stays)."""
    import orjson

    from .fsutil import atomic_write, dir_lock

    with dir_lock(paths.log_dir()):
        state = _load_state()
        record = state.get(UNFINISHED)
        if isinstance(record, dict) and record.get("at") == when \
                and record.get("pid") == os.getpid():
            del state[UNFINISHED]
            atomic_write(paths.state_path(),
                         orjson.dumps(state, option=orjson.OPT_INDENT_2) + b"\n")


def _to_tombstones(ids: set[str], when: str) -> Callable[[bytes], bytes]:
    import orjson

    from .log import parse_line

    needles = {i.encode() for i in ids}

    def transform(line: bytes) -> bytes:
        if not any(m.group(1) in needles for m in _ID.finditer(line)):
            return line  # (only lines naming one of the ids are parsed)
        obj = parse_line(line)  # (a first line after a byte-order mark too)
        if obj is None or obj["id"] not in ids:
            return line
        return orjson.dumps(tombstone(obj, when)) + (b"\n" if line.endswith(b"\n") else b"")

    return transform


def _load_state() -> dict:
    import orjson

    from .fsutil import read_bytes

    raw = read_bytes(paths.state_path())
    if not raw:
        return {}
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        from .state import State

        State.load()  # the one clear error for a broken state.json
        data = orjson.loads(raw.decode("utf-8-sig"))
    return data if isinstance(data, dict) else {}


# state.json's sections that hold names, not words: the vault's page map (file names a later
# build links to; a name holding the words is named in ``left``, never rewritten)
_STRUCTURE = ("vault",)


def _scrub_state(state: dict, found: Plan, texts: list[str], work: dict) -> bool:
    """Take the purged entries out of ``pending`` and the texts out of every free text of
    state.json, and record ``work`` (what is left to do after the log's rewrite) in it, in one
    atomic write under the caller's lock; whether it changed."""
    import orjson

    if not state and not texts and not work["agents"]:
        return False
    before = orjson.dumps(state)
    state.pop(UNFINISHED, None)
    pending = state.get("pending")
    if isinstance(pending, dict):
        gone = found.ids
        for record in pending.values():
            if isinstance(record, dict) and isinstance(record.get("entries"), list):
                record["entries"] = [e for e in record["entries"]
                                     if not (isinstance(e, dict) and e.get("id") in gone)]
    pattern = pattern_of(tuple(texts))
    scrubbed = {key: value if key in _STRUCTURE or pattern is None
                else _scrub_value(value, pattern, key) for key, value in state.items()}
    changed = orjson.dumps(scrubbed) != before
    if work["agents"]:
        scrubbed[UNFINISHED] = work
    if changed or work["agents"]:
        from .fsutil import atomic_write

        atomic_write(paths.state_path(),
                     orjson.dumps(scrubbed, option=orjson.OPT_INDENT_2) + b"\n")
    return changed


def _scrub_value(value, pattern, key: str | None = None):
    """``value`` with ``pattern``'s texts replaced in its free text: strings with a space in
    them (what people and models write; ids, slugs, times and keys have none) and anything
    under a content, detail, error, message or reason key."""
    if isinstance(value, dict):
        return {k: _scrub_value(v, pattern, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrub_value(v, pattern, key) for v in value]
    if isinstance(value, str) and (key in _TEXT_KEYS or any(c.isspace() for c in value)):
        return pattern.sub(MARK, value)
    return value


@functools.lru_cache(maxsize=8)
def pattern_of(texts: tuple[str, ...]):
    """One regular expression (ignoring case) for all of ``texts``, compiled once: a trie of
    their characters, so what a search costs per character of the file hardly grows with how
    many texts a broad purge takes (one pattern per text, over every string of state.json,
    held the lock for minutes). At one place the longest text wins. None for no text."""
    texts = tuple(t for t in texts if t)
    if not texts:
        return None
    trie: dict = {}
    for text in texts:
        node = trie
        for char in text:
            node = node.setdefault(char, {})
        node[""] = {}
    try:
        return re.compile(_trie(trie), re.IGNORECASE)
    except (RecursionError, re.error, OverflowError):  # texts nested too deep for a trie
        return re.compile("|".join(re.escape(t) for t in sorted(texts, key=len, reverse=True)),
                          re.IGNORECASE)


def _trie(node: dict) -> str:
    """The pattern of a trie ``node``: a run of single children is one literal."""
    branches = []
    for char, child in node.items():
        if char == "":
            continue
        run = char
        while len(child) == 1 and "" not in child:
            ((char, child),) = child.items()
            run += char
        branches.append(re.escape(run) + _trie(child))
    if not branches:
        return ""
    body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
    return f"(?:{body})?" if "" in node else body


def _escaped(text: str) -> list[str]:
    """``text`` as it appears in a JSON line too (escaped quotes, backslashes, newlines; with
    and without ``\\u`` escapes of non-ASCII)."""
    import json

    forms = [text, json.dumps(text, ensure_ascii=False)[1:-1], json.dumps(text)[1:-1]]
    return list(dict.fromkeys(forms))


def _log_forms(texts: list[str]) -> list[str]:
    """What to take out of the run logs: each text as written and as a JSON line holds it."""
    forms = {form for text in texts for form in _escaped(text)}
    return sorted(forms, key=len, reverse=True)


def _vault_forms(entries: list[dict]) -> list[str]:
    """The words the vault build rendered of ``entries`` (:mod:`zettelclaw.vault`): content,
    detail and the quote of a replaced version, one line, made inert, cut as the build cuts
    them. Only those are scrubbed from the pages, never a --match text as such: it may be part
    of the pages' structure (a folder in every link, a tag, a subject's name)."""
    from .vault import names

    forms = set()
    for entry in entries:
        for key in ("content", "detail"):
            if isinstance(entry.get(key), str):
                forms.update(names.text(entry[key], limit) for limit in (1000, 300, 200))
    return sorted((f for f in forms if len(f) >= MIN_MATCH), key=len, reverse=True)


def _vaults() -> list[Path]:
    """Every agent vault the log was rendered into: those state.json records (``vault
    build --vault DIR`` too) and the configured one's."""
    from pathlib import Path

    from .vault import layout

    found = dict.fromkeys(Path(k) for k in (_load_state().get("vault") or {})
                          if isinstance(k, str))
    root = layout.configured_root()
    if root is not None:
        try:
            for child in sorted(os.scandir(root), key=lambda e: e.name):
                if child.is_dir(follow_symlinks=False):
                    found.setdefault(Path(child.path))
        except OSError:
            pass
    return list(found)


def _vault_pages(found: Plan) -> list[Path]:
    """The pages ``vault build`` wrote (its two folders, without following a link: ``02
    Agent/Workspace`` is the agent's workspace, the person's other notes are theirs) in the
    vaults of the agents whose entries are purged."""
    from pathlib import Path

    from .vault import layout

    default = paths.default_agent()
    agents = {paths.entry_agent(e, default) for e in found.entries + found.pending}
    pages = []
    for vault in _vaults():
        if vault.name not in agents:
            continue
        for folder in (layout.NOTES, layout.JOURNAL):
            try:
                listed = sorted(os.scandir(vault / folder), key=lambda e: e.name)
            except OSError:
                continue
            pages += [Path(p.path) for p in listed
                      if p.name.endswith(".md") and p.is_file(follow_symlinks=False)]
    return pages


def _scrub_file(path: Path, pattern, scrub=None) -> bool:
    """What ``pattern`` finds out of ``path`` (by ``scrub``: default, everywhere): whether it
    changed. The file may be appended to without our lock (the plugin's detached children; a
    person in Obsidian), so it is replaced by compare-and-swap: what is appended meanwhile is
    kept, another change means read again."""
    from .fsutil import check_regular, compare_and_swap, read_bytes

    for _attempt in range(20):
        try:
            if not check_regular(path):
                return False
        except ZettelclawError:  # a symlink or FIFO in its place: not ours
            return False
        old = read_bytes(path) or b""
        new = (scrub or _scrub_bytes)(old, pattern)
        if new == old:
            return False
        if compare_and_swap(path, new, old):
            return True
    raise ZettelclawError("it kept changing while it was scrubbed")


def _scrub_bytes(data: bytes, pattern) -> bytes:
    text = data.decode("utf-8", "surrogateescape")
    return pattern.sub(MARK, text).encode("utf-8", "surrogateescape")


_LINK = re.compile(r"(\[\[[^\]\n]*\]\])")


def _scrub_page(data: bytes, pattern) -> bytes:
    """A vault page with the rendered words taken out of its items only: not its frontmatter
    (tags, aliases), headings or ``[[links]]``, so a purge never breaks a page or a link."""
    lines = data.decode("utf-8", "surrogateescape").splitlines(keepends=True)
    body = 0
    if lines and lines[0].rstrip() == "---":
        body = next((i + 1 for i in range(1, len(lines)) if lines[i].rstrip() == "---"), 0)
    for i in range(body, len(lines)):
        if lines[i].startswith(("- ", "  ")):
            parts = _LINK.split(lines[i])
            lines[i] = "".join(part if n % 2 else pattern.sub(MARK, part)
                               for n, part in enumerate(parts))
    return "".join(lines).encode("utf-8", "surrogateescape")


def _remove_stale_stdin_dirs(directory: Path) -> None:
    """The plugin's temp directories of a gateway killed between writing a conversation for a
    child and unlinking it (lib/run.js; their name carries the writer's pid): the conversation
    in clear. Those of a live gateway are its own, and stay."""
    import contextlib
    import shutil

    from .fsutil import pid_alive

    with contextlib.suppress(OSError):
        for name in os.listdir(directory):
            found = _STDIN_DIR.match(name)
            if found and int(found.group(1)) != os.getpid() and not pid_alive(int(found.group(1))):
                shutil.rmtree(directory / name, ignore_errors=True)


# -- MEMORY.md ------------------------------------------------------------------------------


def _memory_forms(texts: list[str]) -> list[str]:
    """``texts`` as the briefing may have rendered them too: one line, cut at its item's
    length (the cut item's words, without the ellipsis)."""
    from .briefing.sections import one_line

    forms = set(texts)
    for text in texts:
        line = one_line(text)
        forms.add(line[:-1].rstrip() if line.endswith("…") else line)
    return sorted((f for f in forms if len(f) >= MIN_MATCH), key=len, reverse=True)


def _rebrief(agents: list[str], forms: list[str]) -> tuple[list[str], list[str]]:
    """Brief again (no model) the MEMORY.md of each of ``agents`` that has a generated block;
    say where one of ``forms`` is still there. One that could not be briefed again says
    "not briefed again" (the purge failed there)."""
    from . import briefing
    from .briefing.memory_md import _memory_path, markers_state
    from .errors import ZettelclawError

    if not agents:
        return [], []
    try:
        options = briefing.Options.resolve(use_model=False)
    except ZettelclawError as exc:
        return [], [f"MEMORY.md not briefed again ({exc}); run `{FINISH}`"]
    options.default_agent = paths.default_agent()
    options.keep_rows = False  # the purge dropped them: it leaves no cache of the log behind
    briefed, left = [], []
    for agent in agents:
        options.agent, options.single = agent, len(agents) == 1
        memory = _memory_path(options)
        try:
            state = markers_state(memory)
            if state == "broken":
                left.append(f"{memory}: not briefed again: its briefing markers are broken "
                            "(keep one BEGIN line before one END line), so OpenClaw still "
                            f"loads the old block; fix them and run `{FINISH}`")
            if state != "ok":
                left += _left_in_memory(memory, forms)
                continue
            result = briefing.build(options)
            briefing.write(result)
        except briefing.MissingWorkspace:
            continue
        except Exception as exc:  # noqa: BLE001 - one agent's briefing: say so, go on
            from .redact import redact

            left.append(f"{memory}: not briefed again ({redact(str(exc))}); run `{FINISH}`")
            continue
        briefed.append(str(memory))
        left += _left_in_memory(memory, forms)
    return briefed, left


def _left_in_memory(memory: Path, forms: list[str]) -> list[str]:
    """Where MEMORY.md still holds one of ``forms``: lines of the person's part are named
    (theirs to change), a line of the block means another entry still says it."""
    from .briefing.memory_md import _read_memory
    from .markers import BEGIN_MARKER, END_MARKER, _locate

    pattern = pattern_of(tuple(forms))
    data = _read_memory(memory)
    if not data or pattern is None:
        return []
    try:
        span = _locate(data)
    except Exception:  # noqa: BLE001 - broken markers: no block to tell apart
        span = None
    found = []
    at = 0
    for number, line in enumerate(data.decode("utf-8", "replace").splitlines(True), 1):
        start, at = at, at + len(line.encode("utf-8", "replace"))
        if not pattern.search(line):
            continue
        if span and span[0] <= start < span[1]:
            found.append(f"{memory}:{number}: in the generated block (an entry outside the "
                         "purge still says it)")
        elif span is None and (BEGIN_MARKER.encode() in data or END_MARKER.encode() in data):
            found.append(f"{memory}:{number}: still there (its markers are broken)")
        else:
            found.append(f"{memory}:{number}: in your part of MEMORY.md, not changed: edit "
                         "it yourself")
    return found


def leftovers(match: str, selection: Selection) -> list[str]:
    """Where ``match`` is still in the log directory after a purge, and why (what a
    ``grep -ri`` would find)."""
    from .log import Log

    left = []
    log = Log(warn=False)
    others = sum(1 for entry, _ in _lines(log) if entry is not None and any(
        _contains(entry.get(k), match) for k in ("content", "detail", "subject")))
    if others:
        from .counts import count

        left.append(f"{log.path}: {count(others, 'entry')} outside the purge still mention it "
                    "(another agent's: --agent all; another session or subject: drop that "
                    "filter)")
    needle = match.casefold()
    if not others and any(needle in line.decode("utf-8", "replace").casefold()
                          for line in log.lines()):
        left.append(f"{log.path}: still holds it in what lines keep of themselves (an id, a "
                    "session, an agent, a time; a tombstone keeps those)")
    for page in _named_pages(match):
        left.append(f"{page}: its name holds it (a subject's display name: `zettelclaw "
                    "subjects rename`, then rename the page in Obsidian, which updates its "
                    "links); not renamed")
    for root, _dirs, files in os.walk(paths.log_dir()):
        for name in files:
            path = os.path.join(root, name)
            if path == str(log.path) or not os.path.isfile(path) or os.path.islink(path):
                continue
            try:
                with open(path, "rb") as fh:
                    data = fh.read()
            except OSError:
                continue
            if needle in data.decode("utf-8", "replace").casefold():
                why = ("a subject's slug or display name: `zettelclaw subjects rename` or "
                       "`remove`" if name == paths.SUBJECTS_FILE else "not a file purge knows")
                left.append(f"{path}: still mentions it ({why})")
    return left


def _named_pages(match: str) -> list[str]:
    """The vault pages (of every vault the log was rendered into) whose file name holds
    ``match``: a purge never renames a page (its links are the person's)."""
    from .vault import layout

    needle = match.casefold()
    found = []
    for vault in _vaults():
        for folder in (layout.NOTES, layout.JOURNAL):
            try:
                names = sorted(os.listdir(vault / folder))
            except OSError:
                continue
            found += [str(vault / folder / name) for name in names
                      if name.endswith(".md") and needle in name.casefold()]
    return found


def _contains(value, text: str) -> bool:
    return isinstance(value, str) and text.casefold() in value.casefold()

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
rotated ``hooks.log.1``, the nightly job's ``brief.log``), the Obsidian vault's pages
(``vault build`` wrote the words there, and a build never rewrites a line), and MEMORY.md's
generated block, which is briefed again (without the model). The person's part of MEMORY.md
is theirs: purge says where the text still is there, and changes nothing of it. ``--match
TEXT`` also scrubs TEXT where it appears outside the purged entries, in those files.

Order, for all or nothing under SIGKILL: under one hold of the lock, state.json first (so that
no run left killed can append a purged entry again from ``pending``), then the log in one
rename. A kill before that rename leaves the old log, and running the purge again finishes it;
the log files and MEMORY.md are scrubbed after, and again by a rerun.
"""

from __future__ import annotations

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

            check_slug(self.subject)

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


def purge(selection: Selection, *, rebrief: bool = True, now: str | None = None) -> Report:
    """Purge what ``selection`` names: state.json, then the log (one rename), under one hold
    of the lock; then the run logs and MEMORY.md's block. Raises NotFoundError (changing
    nothing) for an id that is not in the log."""
    from .clock import format_ts
    from .clock import now as clock_now
    from .fsutil import dir_lock
    from .handoff import rewrite_log
    from .log import Log

    selection.check()
    when = now or format_ts(clock_now())
    log = Log(warn=False)
    with dir_lock(paths.log_dir()):
        state = _load_state()
        found = plan(selection, log, state)
        report = Report(found)
        work = _work(found, selection, state.get(UNFINISHED), when)
        if _scrub_state(state, found, work):
            report.scrubbed.append(paths.STATE_FILE)
        if found.entries and log.exists():
            report.purged = rewrite_log(log, _to_tombstones(found.ids, when))
        _remove_stale_stdin_dirs(paths.log_dir())
        running = _running_extractions(state)
    texts = work["texts"]
    report.scrubbed += scrub_run_logs(texts)
    report.scrubbed += scrub_vaults(texts, work["agents"])
    if rebrief:
        report.briefed, report.left = _rebrief(work["agents"], texts)
    if work["texts"] or work["agents"]:
        _finished(when)
    if found.match is not None:
        report.left += leftovers(found.match, selection)
    report.left += [f"session {sid}: an extraction is running; what it appends after this purge "
                    "was not looked at: run the purge again once it finished" for sid in running]
    return report


def _running_extractions(state: dict) -> list[str]:
    """Sessions an extraction holds a live claim on: it may append, once its model answers,
    entries that say again what was purged."""
    from .extract.claim import claim_is_live

    claims = state.get("claims")
    return sorted(sid for sid, claim in claims.items() if claim_is_live(claim)) \
        if isinstance(claims, dict) else []


UNFINISHED = "purging"  # state.json: what a purge still has to scrub after its log rewrite


def _work(found: Plan, selection: Selection, unfinished, when: str) -> dict:
    """What is left to do once the log is rewritten: the texts to scrub from the run logs and
    MEMORY.md, the agents whose MEMORY.md to brief again; with what an earlier purge killed
    before it finished left in state.json (``purging``)."""
    from . import briefing

    texts = found.texts() + ([found.match] if found.match is not None else [])
    default = paths.default_agent()
    agents = {paths.entry_agent(e, default) for e in found.entries}
    if found.match is not None:
        agents.update(a for a in briefing.agents_with_entries()
                      if selection.agents is None or a in selection.agents)
    if isinstance(unfinished, dict):
        texts += [t for t in unfinished.get("texts") or [] if isinstance(t, str) and t]
        agents.update(a for a in unfinished.get("agents") or [] if isinstance(a, str))
    texts = sorted(set(texts), key=len, reverse=True)
    return {"at": when, "pid": os.getpid(), "texts": texts, "agents": sorted(agents)}


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


def _scrub_state(state: dict, found: Plan, work: dict) -> bool:
    """Take the purged entries out of ``pending`` and the texts out of every free text of
    state.json, and record ``work`` (what is left to do after the log's rewrite) in it, in one
    atomic write under the caller's lock; whether it changed."""
    import orjson

    texts = work["texts"]
    if not state and not texts:
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
    scrubbed = _scrub_value(state, texts)
    changed = orjson.dumps(scrubbed) != before
    if texts or work["agents"]:
        scrubbed[UNFINISHED] = work
    if changed or texts or work["agents"]:
        from .fsutil import atomic_write

        atomic_write(paths.state_path(),
                     orjson.dumps(scrubbed, option=orjson.OPT_INDENT_2) + b"\n")
    return changed


def _scrub_value(value, texts: list[str], key: str | None = None):
    """``value`` with ``texts`` replaced in its free text: strings with a space in them (what
    people and models write; ids, slugs, times and keys have none) and anything under a
    content, detail, error, message or reason key."""
    if isinstance(value, dict):
        return {k: _scrub_value(v, texts, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrub_value(v, texts, key) for v in value]
    if isinstance(value, str) and (key in _TEXT_KEYS or any(c.isspace() for c in value)):
        return scrub_text(value, texts)
    return value


def scrub_text(text: str, texts: list[str]) -> str:
    """``text`` with every one of ``texts`` as ``[purged]``, ignoring case."""
    for old in texts:
        text = re.sub(re.escape(old), MARK, text, flags=re.IGNORECASE)
    return text


def _escaped(text: str) -> list[str]:
    """``text`` as it appears in a JSON line too (escaped quotes, backslashes, newlines; with
    and without ``\\u`` escapes of non-ASCII)."""
    import json

    forms = [text, json.dumps(text, ensure_ascii=False)[1:-1], json.dumps(text)[1:-1]]
    return list(dict.fromkeys(forms))


def scrub_run_logs(texts: list[str]) -> list[str]:
    """Take ``texts`` out of hooks.log (and its rotated copy) and brief.log; returns the names of
    the files that changed."""
    return [name for name in RUN_LOGS if _scrub_file(paths.log_dir() / name, texts)]


def scrub_vaults(texts: list[str], agents: list[str]) -> list[str]:
    """Take ``texts`` out of the pages ``vault build`` wrote for ``agents`` (design §7: the
    configured ``vault.path``), as the words were rendered there too (one line, made inert,
    cut when long: :func:`zettelclaw.vault.names.text`). Only the two folders the build writes
    are read, without following a link (``02 Agent/Workspace`` is the agent's workspace, and
    the person's other notes are theirs); returns the pages that changed."""
    from pathlib import Path

    from .vault import layout, names

    root = layout.configured_root()
    if root is None or not texts:
        return []
    forms = set(texts)
    for text in texts:
        forms.update(names.text(text, limit) for limit in (1000, 300, 200))
    forms = sorted((f for f in forms if len(f) >= 3), key=len, reverse=True)
    changed = []
    for agent in agents:
        try:
            vault = layout.agent_vault(Path(root), agent)
        except ZettelclawError:
            continue
        for folder in (layout.NOTES, layout.JOURNAL):
            try:
                pages = sorted(os.scandir(vault / folder), key=lambda e: e.name)
            except OSError:
                continue
            for page in pages:
                if (page.name.endswith(".md") and page.is_file(follow_symlinks=False)
                        and _scrub_file(Path(page.path), forms)):
                    changed.append(page.path)
    return changed


def _scrub_file(path: Path, texts: list[str]) -> bool:
    """``texts`` out of ``path``: whether it changed. The file may be appended to without our
    lock (the plugin's detached children; a person in Obsidian), so it is replaced by
    compare-and-swap: what is appended meanwhile is kept, another change means read again."""
    from .fsutil import check_regular, compare_and_swap, read_bytes

    for _attempt in range(20):
        try:
            if not check_regular(path):
                return False
        except Exception:  # noqa: BLE001 - a symlink or FIFO in its place: not ours
            return False
        old = read_bytes(path) or b""
        new = _scrub_bytes(old, texts)
        if new == old:
            return False
        if compare_and_swap(path, new, old):
            return True
    return False


def _scrub_bytes(data: bytes, texts: list[str]) -> bytes:
    text = data.decode("utf-8", "surrogateescape")
    for old in texts:
        for form in _escaped(old):
            text = re.sub(re.escape(form), MARK, text, flags=re.IGNORECASE)
    return text.encode("utf-8", "surrogateescape")


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


def _rebrief(agents: list[str], texts: list[str]) -> tuple[list[str], list[str]]:
    """Brief again (no model) the MEMORY.md of each of ``agents`` that has a generated block;
    say where one of ``texts`` is still there."""
    from . import briefing
    from .briefing.memory_md import _memory_path, markers_state
    from .errors import ZettelclawError

    if not agents:
        return [], []
    try:
        options = briefing.Options.resolve(use_model=False)
    except ZettelclawError as exc:
        return [], [f"MEMORY.md not briefed again ({exc}); run `zettelclaw brief`"]
    options.default_agent = paths.default_agent()
    briefed, left = [], []
    for agent in agents:
        options.agent, options.single = agent, len(agents) == 1
        memory = _memory_path(options)
        try:
            if markers_state(memory) != "ok":
                left += _left_in_memory(memory, texts)
                continue
            result = briefing.build(options)
            briefing.write(result)
        except briefing.MissingWorkspace:
            continue
        except Exception as exc:  # noqa: BLE001 - one agent's briefing: say so, go on
            from .redact import redact

            left.append(f"{memory}: not briefed again ({redact(str(exc))}); "
                        "run `zettelclaw brief`")
            continue
        briefed.append(str(memory))
        left += _left_in_memory(memory, texts)
    return briefed, left


def _left_in_memory(memory: Path, texts: list[str]) -> list[str]:
    """Where MEMORY.md still holds one of ``texts``: lines of the person's part are named
    (theirs to change), a line of the block means another entry still says it."""
    from .briefing.memory_md import _read_memory
    from .markers import _locate

    data = _read_memory(memory)
    if not data:
        return []
    try:
        span = _locate(data)
    except Exception:  # noqa: BLE001 - broken markers: the whole file is the person's
        span = None
    found = []
    at = 0
    for number, line in enumerate(data.decode("utf-8", "replace").splitlines(True), 1):
        start, at = at, at + len(line.encode("utf-8", "replace"))
        if not any(_contains(line, t) for t in texts):
            continue
        if span and span[0] <= start < span[1]:
            found.append(f"{memory}:{number}: in the generated block (an entry outside the "
                         "purge still says it)")
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


def _contains(value, text: str) -> bool:
    return isinstance(value, str) and text.casefold() in value.casefold()

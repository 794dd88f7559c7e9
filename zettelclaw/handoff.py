"""The last handoff (design §6): what the next session should know first.

"Last" means the most recent conversation's, by timestamp, not the last line: a sweep may
append an older conversation after a newer one. ``zettelclaw handoff`` runs before every
prompt, so this module reads only the lines it needs (a pointer in state.json says where the
latest handoff was, see below), parses them with the standard library, and imports nothing
heavy.
"""

from __future__ import annotations

from .clock import EARLIEST, is_plain, sort_key

# how far back from the handoff to look for the same session's tasks and decisions
_RELATED_WINDOW = 500


def _scanner():
    """A JSON value scanner straight from the C accelerator.

    ``import json`` pulls in ``re`` and ``enum`` (about 15 ms, as long as Python's own start);
    the handoff runs before every prompt, so it parses its few lines with ``_json`` directly.
    """
    try:
        import _json
    except ImportError:  # not CPython: the plain module will do
        import json

        return lambda text, idx: json.JSONDecoder().raw_decode(text, idx)

    class _Context:
        strict = True
        object_hook = None
        object_pairs_hook = None
        parse_float = float
        parse_int = int
        parse_constant = float  # NaN, Infinity
        memo: dict = {}

    return _json.make_scanner(_Context)


_scan = None
_scan_fn = None


def _loads(line: bytes):
    global _scan
    if _scan is None:
        _scan = _scanner()
    text = line.decode("utf-8").strip().lstrip("\ufeff")  # an editor's byte-order mark
    try:
        obj, end = _scan(text, 0)
    except SystemError:
        # _json reports a malformed string through json.decoder, which is not loaded yet
        import json

        obj, end = json.loads(text), len(text)
    if end != len(text):
        raise ValueError("trailing data")
    if "\\ud" in text or "\\uD" in text:  # maybe a lone surrogate: U+FFFD, as log.py reads it
        from .log import scrub_surrogates

        return scrub_surrogates(obj)
    return obj


def _parse(line: bytes) -> dict | None:
    """An entry, or a record that hides one by its ``replaces`` (a forget, its undo, a purge
    tombstone: see ``log.record_kind``), else None."""
    try:
        obj = _loads(line)
    except (ValueError, StopIteration, UnicodeDecodeError, RecursionError):
        return None
    if not isinstance(obj, dict) or not isinstance(obj.get("id"), str) \
            or not isinstance(obj.get("type"), str):
        return None
    if isinstance(obj.get("content"), str) and "purged" not in obj:
        return obj
    from .log import record_kind  # (the one definition of those lines)

    return obj if record_kind(obj) is not None else None


def _shown(entry: dict) -> bool:
    """An entry with its text (not a forget, an undo or a purge tombstone)."""
    return "content" in entry and "purged" not in entry


def last_handoff(path, agents: frozenset[str] | None = None, default: str = "main",
                 person: str | None = None) -> dict | None:
    """``{"handoff": entry, "openTasks": [...], "decisions": [...]}`` or None.

    Only handoffs of ``agents`` count (None: every agent's); an entry without ``agent`` is
    ``default``'s. Only ``person``'s (None: the owner's, :mod:`zettelclaw.people`); the
    latest one being untrusted (another person's words, a web page's), none is shown, and
    no untrusted task or decision comes with one.

    The handoff is the current one (no later line replaces it) of the most recent
    conversation by its ``timestamp``, wherever it sits in the log: a sweep that appends an
    older conversation late does not displace it (equal timestamps: the later line wins). Its
    session's tasks and decisions (appended with it, just before it) are shown in their
    current versions: a replaced one is followed along its chain to the head, which is shown
    only when it is still an open task or a decision.
    """
    import os

    from .fsutil import open_read
    from .people import NOBODY, UNKNOWN

    if person in (NOBODY, UNKNOWN):  # a session not known to be anyone's: no handoff
        return None
    path = os.fspath(path)
    try:
        fh = open_read(path)
    except FileNotFoundError:
        return None
    with fh:
        found = _find_latest(fh, path, _Scope(agents, default, person))
        if found is None:
            return None
        pos, handoff = found
        tasks, decisions = _related(fh, pos, handoff)
    return {"handoff": handoff, "openTasks": tasks, "decisions": decisions}


# -- which handoff ----------------------------------------------------------------------------
#
# Finding the latest handoff means looking at every handoff line, which on a large log costs
# more than the whole command may. state.json keeps a pointer per scope (the agents asked for,
# e.g. ``lastHandoff.main``; it also records the default agent, which owns entries without
# ``agent``; another default invalidates it), each the answer for
# the log's first ``size`` bytes (whole lines), with the handoff's ``offset`` and the log's
# ``inode``. A reader trusts it only when the inode matches, the log is at least that long and
# the line at ``offset`` really is that handoff; then only the lines appended since are read.
# Anything else (no pointer, a log rewritten by `subjects rename`, a later line replacing the
# pointed handoff) falls back to one pass over the whole log, after which the reader stores a
# fresh pointer if it can take the directory lock at once. The pointer is only a cache:
# deleting it changes no answer.

_POINTER_KEY = b'"lastHandoff"'
_HANDOFF = b'"type":"handoff"'
_REPLACES = b'"replaces":"'
_BLOCK = 8 << 20
_REFRESH_TAIL = 1 << 20  # store the pointer again once this much log lies beyond it
# A line longer than this is no entry the handoff shows (extraction caps a field at 4,000
# characters, `write` at WRITE_FIELD_CHARS): it is skipped unread, so a 100 MB line costs the
# time to find its end, never a copy or a parse of it.
MAX_LINE = 1 << 20


class _Scope:
    """Whose handoffs count, and the key of their pointer in ``lastHandoff``."""

    def __init__(self, agents: frozenset[str] | None, default: str, person: str | None = None):
        from .people import OWNER

        self.agents, self.default, self.person = agents, default, person or OWNER
        self.key = "*" if agents is None else ",".join(sorted(agents))
        if self.person != OWNER:
            self.key += "@" + self.person

    def holds(self, entry: dict) -> bool:
        from .people import person_of

        if person_of(entry) != self.person:
            return False
        if self.agents is None:
            return True
        agent = entry.get("agent")
        return (agent if isinstance(agent, str) and agent else self.default) in self.agents


def _find_latest(fh, path: str, scope: _Scope) -> tuple[int, dict] | None:
    import os

    from .clock import Dating, now_key

    now = now_key()
    inode = os.fstat(fh.fileno()).st_ino
    pointer = _read_pointer(os.path.join(os.path.dirname(path), "state.json"), scope.key)
    if pointer is not None and (pointer.get("default") != scope.default
                                or pointer.get("person") != scope.person):
        pointer = None  # the default agent changed: untagged entries belong to another (or
        # the pointer is older than people: it may point to another person's handoff)
    if pointer is not None and (isinstance(pointer.get("until"), str)
                                and pointer["until"] <= now
                                or sort_key(pointer.get("timestamp")) > now):
        # a handoff it dated anew (after now then) is no longer after now; or its handoff is
        # dated after now (stored while the clock ran ahead): read the whole log again
        pointer = None
    if pointer is not None and _pointer_holds(fh, pointer, inode) \
            and os.fstat(fh.fileno()).st_size - pointer["size"] <= _BLOCK:
        size = pointer["size"]
        candidates = {}
        rank = pointer.get("rank")
        rank = rank if is_plain(rank) else sort_key(pointer["timestamp"])
        if pointer["id"] is not None:
            candidates[pointer["id"]] = (rank, pointer["offset"])
        latest = pointer.get("latest")
        dating = Dating(now, max(rank, latest if is_plain(latest) else "", EARLIEST))
        if isinstance(pointer.get("until"), str):
            dating.first = pointer["until"]
        fh.seek(size)
        data = fh.read()
        stop = data.rfind(b"\n") + 1
        if _feed(candidates, data, size, len(data), scope, dating, guard=pointer["id"],
                 tail=True):
            best = _best(candidates)
            if best is not None and len(best) > 2:
                return None  # the latest handoff was forgotten or purged
            if stop > _REFRESH_TAIL:
                _store_pointer(fh, path, inode, best, size + stop, scope, dating)
            return _entry_at(fh, best)
    candidates, end = {}, 0
    forgets: dict = {}
    dating = Dating(now)
    for base, data, stop, whole in _blocks(fh, 0):
        _feed(candidates, data, base, stop, scope, dating, forgets=forgets)
        end = whole
    best = _best(candidates)
    if best is not None and len(best) > 2:
        # the latest handoff was forgotten or purged: none is shown (an older one would pass
        # an earlier conversation off as the last); no pointer, the next run reads it all
        return None
    _store_pointer(fh, path, inode, best, end, scope, dating)
    return _entry_at(fh, best)


def _blocks(fh, pos: int):
    """The log from offset ``pos`` on as ``(base, data, stop, end)``: ``data[:stop]`` holds
    whole lines (at the end of the file, also an unfinished last line) starting at offset
    ``base``, and ``end`` is the offset after the last newline read so far. A line longer than
    MAX_LINE is left out (read past in blocks, never joined into one string)."""
    fh.seek(pos)
    base, rest, skipping, end = pos, b"", False, pos
    while True:
        chunk = fh.read(_BLOCK)
        if skipping:
            newline = chunk.find(b"\n")
            if newline < 0:
                if not chunk:
                    return
                base += len(chunk)
                continue
            base, chunk, skipping = base + newline + 1, chunk[newline + 1:], False
            end = base
            if not chunk:
                continue
        data = rest + chunk
        last = data.rfind(b"\n") + 1
        stop = last if chunk else len(data)
        if last:
            end = base + last
        yield base, data, stop, end
        if not chunk:
            return
        rest, base = data[stop:], base + stop
        if len(rest) > MAX_LINE:
            rest, base, skipping = b"", base + len(rest), True


def _feed(candidates: dict, data: bytes, base: int, stop: int, scope: _Scope, dating,
          guard=None, tail: bool = False, forgets: dict | None = None) -> bool:
    """Add the current handoffs among the lines of ``data[:stop]`` (at offset ``base``) to
    ``candidates`` (id -> (time key, offset)), dropping those a later line replaces. The time
    key is as ``dating`` (:class:`~zettelclaw.clock.Dating`, fed in log order) has it: a
    handoff dated after now, written while the clock ran ahead, is dated just after the
    handoffs before it, never the latest once a conversation since is. A
    forgotten or purged handoff stays, marked hidden (``(time key, offset, True)``): it is
    still the latest conversation's. False when a line replaces ``guard`` (the pointer's
    handoff: the next best is unknown), or in the ``tail`` after the pointer, when an undo
    names a forget the tail does not hold. ``forgets``: forget id -> (handoff id, its
    candidate), across calls."""
    from .people import untrusted

    forgets = {} if forgets is None else forgets
    starts = set()
    for needle in (_HANDOFF, _REPLACES):
        at = data.find(needle, 0, stop)
        while at >= 0:
            starts.add(data.rfind(b"\n", 0, at) + 1)
            at = data.find(needle, at + 1, stop)
    for start in sorted(starts):
        end = data.find(b"\n", start, stop)
        end = end if end >= 0 else stop
        if end - start > MAX_LINE:
            continue
        entry = _parse(data[start:end])
        if entry is None:
            continue
        target = entry.get("replaces")
        kind = entry["type"]
        if kind == "unforget":
            if target in forgets:
                handoff_id, was = forgets.pop(target)
                candidates[handoff_id] = was
            elif tail:
                return False
            continue
        if isinstance(target, str) and target != entry["id"]:
            if target == guard:
                return False
            was = candidates.pop(target, None)
            if was is not None and (kind == "forget" or not _shown(entry)):
                candidates[target] = (*was[:2], True)  # hidden, still the latest
                if kind == "forget":
                    forgets[entry["id"]] = (target, was)
        if kind == "handoff" and scope.holds(entry):
            key = (dating(sort_key(entry.get("timestamp"))), base + start)
            # an untrusted handoff is the latest conversation's, never shown
            candidates[entry["id"]] = key if _shown(entry) and not untrusted(entry) \
                else (*key, True)
    return True


def _best(candidates: dict):
    return max(candidates.values(), default=None)


def _line_at(fh, offset: int) -> bytes:
    """The line at ``offset``, or b"" when it is longer than MAX_LINE (read no further)."""
    fh.seek(offset)
    line = fh.readline(MAX_LINE + 1)
    return b"" if len(line) > MAX_LINE else line


def _entry_at(fh, best) -> tuple[int, dict] | None:
    if best is None:
        return None
    entry = _parse(_line_at(fh, best[1]))
    return (best[1], entry) if entry is not None else None


def _read_pointers(state_path: str) -> dict:
    """state.json's ``lastHandoff``: scope key -> pointer (unchecked), {} if none."""
    from .fsutil import read_bytes

    try:
        raw = read_bytes(state_path)  # a symlink or FIFO is refused, not followed or waited on
    except OSError:
        return {}
    if raw is None:
        return {}
    at = raw.find(_POINTER_KEY)
    if at < 0:
        return {}
    at = raw.find(b":", at + len(_POINTER_KEY))
    try:
        text = raw[at + 1:].decode("utf-8").lstrip()
        pointers, _ = _scan_value(text)
    except (ValueError, StopIteration, UnicodeDecodeError, RecursionError, SystemError):
        return {}
    return pointers if isinstance(pointers, dict) else {}


def _read_pointer(state_path: str, key: str) -> dict | None:
    pointer = _read_pointers(state_path).get(key)
    if not isinstance(pointer, dict):
        return None
    ints = all(type(pointer.get(k)) is int and pointer[k] >= 0
               for k in ("size", "offset", "inode"))
    if not ints or not (pointer.get("id") is None or isinstance(pointer.get("id"), str)):
        return None
    return pointer


def _scan_value(text: str):
    global _scan_fn
    if _scan_fn is None:
        _scan_fn = _scanner()
    return _scan_fn(text, 0)


def _pointer_holds(fh, pointer: dict, inode: int) -> bool:
    import os

    size = os.fstat(fh.fileno()).st_size
    if pointer["inode"] != inode or pointer["size"] > size:
        return False
    if pointer["size"]:
        fh.seek(pointer["size"] - 1)
        if fh.read(1) != b"\n":
            return False
    if pointer["id"] is None:
        return True
    offset = pointer["offset"]
    if offset >= pointer["size"]:
        return False
    if offset:
        fh.seek(offset - 1)
        if fh.read(1) != b"\n":
            return False
    entry = _parse(_line_at(fh, offset))
    return (entry is not None and entry["id"] == pointer["id"] and entry["type"] == "handoff"
            and _shown(entry) and entry.get("timestamp") == pointer.get("timestamp"))


def read_pointers(path) -> dict:
    """state.json's ``lastHandoff`` pointers beside the log at ``path`` (scope key ->
    pointer), only those that read as pointers (unchecked)."""
    import os

    state_path = os.path.join(os.path.dirname(os.fspath(path)), "state.json")
    return {key: pointer for key in _read_pointers(state_path)
            if (pointer := _read_pointer(state_path, key)) is not None}


def carry_pointers(path, pointers: dict) -> None:
    """Store ``pointers`` (scope key -> pointer) for the log at ``path``, dropping the others;
    the caller holds the directory lock (a rewrite of the log that moved the pointed lines)."""
    import os

    try:
        _write_pointer(os.path.join(os.path.dirname(os.fspath(path)), "state.json"), None,
                       pointers)
    except (OSError, ValueError):
        pass  # a state.json that does not read back: the next handoff scans the whole log


def rewrite_log(log, transform) -> int:
    """``log.rewrite(transform)`` with the latest handoff's place (state.json's lastHandoff)
    moved with the lines, and the caches of the log dropped (the ranker's counts, the
    briefing's rows); the caller holds the directory lock. Returns the lines changed."""
    import os

    try:
        inode = os.lstat(log.path).st_ino
    except OSError:
        inode = None
    pointers = {key: p for key, p in read_pointers(log.path).items() if p["inode"] == inode}
    follow = dict.fromkeys(m for p in pointers.values() for m in (p["offset"], p["size"]))
    changed = log.rewrite(transform, locked=True, follow=follow)
    from .logcache import drop

    drop(os.path.dirname(os.fspath(log.path)))  # the caches of the old lines (ranker, briefing)
    try:
        new_inode = os.lstat(log.path).st_ino
    except OSError:
        return changed
    if pointers and new_inode != inode:  # the rewrite made a new file
        carry_pointers(log.path, {
            key: {**p, "offset": follow[p["offset"]], "size": follow[p["size"]],
                  "inode": new_inode}
            for key, p in pointers.items()
            if follow[p["offset"]] is not None and follow[p["size"]] is not None})
    return changed


def _write_pointer(state_path: str, key: str | None, pointer: dict | None,
                   ) -> None:
    """Set ``lastHandoff[key]`` to ``pointer`` (with ``key`` None: ``pointer`` is the whole
    ``lastHandoff``)."""
    import orjson

    from .fsutil import read_bytes

    state = orjson.loads(read_bytes(state_path) or b"{}")
    if not isinstance(state, dict):
        return
    pointers = state.get("lastHandoff")
    pointers = dict(pointers) if isinstance(pointers, dict) and "size" not in pointers else {}
    if key is None:
        pointers = pointer or {}
    else:
        pointers[key] = pointer
    if state.get("lastHandoff") == pointers:
        return
    state["lastHandoff"] = pointers
    from pathlib import Path

    from .fsutil import atomic_write

    atomic_write(Path(state_path), orjson.dumps(state, option=orjson.OPT_INDENT_2) + b"\n")


def _store_pointer(fh, path: str, inode: int, best, size: int, scope: _Scope,
                   dating) -> None:
    """Record ``best`` for the log's first ``size`` bytes in state.json, if the directory lock
    is free right now (never wait: this runs before a prompt) and state.json reads back. When
    ``dating`` dated a handoff anew (after now), the pointer keeps its time key (``rank``),
    the latest time before the end (``latest``) and holds ``until`` the earliest such date."""
    import fcntl
    import os

    entry = _entry_at(fh, best)
    pointer = {"id": entry[1]["id"] if entry else None,
               "timestamp": entry[1].get("timestamp") if entry else None,
               "offset": best[1] if entry else 0, "size": size, "inode": inode,
               "default": scope.default, "person": scope.person}
    if dating.first is not None:
        pointer.update(rank=best[0] if entry else None, latest=dating.latest,
                       until=dating.first)
    directory = os.path.dirname(path) or "."
    state_path = os.path.join(directory, "state.json")
    try:
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        if os.stat(path).st_ino != inode:
            return
        _write_pointer(state_path, scope.key, pointer)
    except (OSError, ValueError):
        return  # busy, read-only, or a state.json that is not ours to fix: no pointer
    finally:
        os.close(fd)


# -- that session's tasks and decisions -------------------------------------------------------


def _related(fh, pos: int, handoff: dict) -> tuple[list[dict], list[dict]]:
    """Open tasks and decisions of the handoff's session among the lines appended with it
    (at most ``_RELATED_WINDOW`` lines before it, back to the previous handoff), each in its
    current version."""
    from .people import untrusted

    session = handoff.get("session")
    # id -> [(offset, entry)] of the lines replacing it, newest first; every line after the
    # handoff may correct one of them, and so may the lines between them and the handoff
    replaced_by: dict[str, list] = {}
    _collect_replacements(fh, pos, replaced_by)
    own: list[tuple[int, dict]] = []
    needles = _related_needles(session)
    for at, line in _lines_back(fh, pos, _RELATED_WINDOW):  # newest first
        if needles and not any(needle in line for needle in needles):
            continue  # neither of the session, nor a handoff, nor a correction: no matter
        entry = _parse(line)
        if entry is None:
            continue
        if entry["type"] == "handoff":
            break  # a segment's entries are appended together, ending with its handoff
        _note(replaced_by, at, entry)
        if (_shown(entry) and entry.get("session") == session
                and entry["type"] in ("task", "decision") and not untrusted(entry)):
            own.append((at, entry))
    tasks: list[dict] = []
    decisions: list[dict] = []
    shown: set[str] = set()
    heads: dict[str, dict] = {}  # along a long chain, each walk stops where another ended
    for at, entry in own:  # newest first, so the later links are known first
        heads[entry["id"]] = _head(at, entry, replaced_by, heads)
    for _, entry in reversed(own):  # oldest first
        head = heads[entry["id"]]
        if head["id"] in shown or not _shown(head):
            continue  # (forgotten or purged: shown nowhere)
        shown.add(head["id"])
        if head["type"] == "task" and head.get("status") == "open":
            tasks.append(head)
        elif head["type"] == "decision":
            decisions.append(head)
    return tasks, decisions


def _related_needles(session) -> tuple[bytes, ...]:
    """What a line before the handoff holds if it can matter to :func:`_related` (its
    session's id, ``handoff``, ``replaces``), or a backslash (an escape may spell any of
    them); () when the handoff has no session (every line is read). Without a backslash a
    JSON string is its own bytes: a line holding none of these is not parsed, as parsing it
    would change nothing (most of a busy window, each parse as long as the rest of a line's
    work)."""
    if not isinstance(session, str) or not session:
        return ()
    return (session.encode("utf-8", "surrogatepass"), b"handoff", b"replaces", b"\\")


def _note(replaced_by: dict, at: int, entry: dict) -> None:
    target = entry.get("replaces")
    if isinstance(target, str) and target != entry["id"]:
        replaced_by.setdefault(target, []).append((at, entry))


def _collect_replacements(fh, pos: int, replaced_by: dict) -> None:
    """Every valid line from offset ``pos`` on that replaces something, newest first, into
    ``replaced_by`` (read in blocks: the handoff may lie far back)."""
    for base, data, stop, _ in _blocks(fh, pos):
        at = data.find(_REPLACES, 0, stop)
        while at >= 0:
            start = data.rfind(b"\n", 0, at) + 1
            end = data.find(b"\n", at, stop)
            end = end if end >= 0 else stop
            entry = _parse(data[start:end]) if end - start <= MAX_LINE else None
            if entry is not None:
                _note(replaced_by, base + start, entry)
            at = data.find(_REPLACES, end, stop)
    for versions in replaced_by.values():
        versions.reverse()


def _head(at: int, entry: dict, replaced_by: dict, known: dict) -> dict:
    """The end of ``entry``'s chain: repeatedly, the last line after it that replaces it.
    ``known``: heads already found for entries of this window."""
    for _ in range(len(replaced_by) + 1):  # a chain cannot be longer; ends any cycle
        later = next((r for r in replaced_by.get(entry["id"], ()) if r[0] > at
                      and not _undone(r, replaced_by)), None)
        if later is None:
            break
        at, entry = later
        if entry["id"] in known:
            return known[entry["id"]]
    return entry


def _undone(version: tuple, replaced_by: dict) -> bool:
    """Whether ``version`` (offset, line) is a forget a later undo took back."""
    at, line = version
    return line["type"] == "forget" and any(
        r[0] > at and r[1]["type"] == "unforget" for r in replaced_by.get(line["id"], ()))


def _lines_back(fh, pos: int, count: int):
    """Up to ``count`` (offset, line) of the non-blank lines ending at offset ``pos``, newest
    first, read backwards in 64 KB blocks as they are asked for (the previous handoff is
    mostly a few lines back); a line longer than MAX_LINE is left out, and its blocks are not
    kept."""
    given, end = 0, pos
    parts: list[bytes] = []  # the line being assembled, its later pieces first
    size_so_far, too_long = 0, False
    while end > 0 and given < count:
        size = min(1 << 16, end)
        end -= size
        fh.seek(end)
        block = fh.read(size)
        cut = len(block)
        at = block.rfind(b"\n", 0, cut)
        while at >= 0 and given < count:
            if not too_long:
                parts.append(block[at + 1:cut])
                too_long = size_so_far + cut - at - 1 > MAX_LINE
            line = None if too_long else b"".join(reversed(parts))
            parts, size_so_far, too_long = [], 0, False
            if line is not None and line.strip():
                given += 1
                yield end + at + 1, line
            cut = at
            at = block.rfind(b"\n", 0, cut)
        if at < 0 and not too_long:
            parts.append(block[:cut])
            size_so_far += cut
            if size_so_far > MAX_LINE:
                parts, too_long = [], True
    if end == 0 and given < count and not too_long:
        line = b"".join(reversed(parts))
        if line.strip():
            yield 0, line


# The block the plugin puts before every prompt: at most this many characters in all, whatever
# the log holds. A field is cut to its share, tasks and decisions are listed while they fit, and
# a last line says what was left out and how to read it. Same log, same bytes (prompt caching).
HANDOFF_CHARS = 4000
_CONTENT_CHARS = 800
_DETAIL_CHARS = 1200
_ITEM_CHARS = 300


def format_handoff(found: dict) -> str:
    """The design §6.1 text block, at most HANDOFF_CHARS characters."""
    handoff = found["handoff"]
    session = _one_line(handoff.get("session", "?"), 100)
    lines = ["## Last Session Handoff",
             f"Session: {session} ({_one_line(handoff.get('timestamp', '?'), 40)})",
             _one_line(handoff["content"], _CONTENT_CHARS)]
    if handoff.get("detail"):
        lines.append(f"Detail: {_one_line(handoff['detail'], _DETAIL_CHARS)}")
    used = sum(len(line) + 1 for line in lines)
    tasks, decisions = found["openTasks"], found["decisions"]
    budget = HANDOFF_CHARS - used - 200  # room for the line saying what was left out
    left = {"open tasks": 0, "decisions": 0}
    for title, items, kind in (("Open tasks from that session:", tasks, "open tasks"),
                               ("Decisions from that session:", decisions, "decisions")):
        if not items:
            continue
        shown = []
        for item in items:
            line = f"- {_item(item)}"
            if budget - len(line) - 1 - (0 if shown else len(title) + 1) < 0:
                left[kind] = len(items) - len(shown)
                break
            budget -= len(line) + 1 + (0 if shown else len(title) + 1)
            shown.append(line)
        if shown:
            lines.append(title)
            lines += shown
    if left["open tasks"] or left["decisions"]:
        parts = [f"{n} more {kind}" for kind, n in left.items() if n]
        more = f"… {' and '.join(parts)}: zettelclaw search --session {session}"
        if not left["decisions"]:
            more += " --type task --status open"
        elif not left["open tasks"]:
            more += " --type decision"
        lines.append(_one_line(more, 200))
    return "\n".join(lines)


def _one_line(text, limit: int) -> str:
    """``text`` on one line (no control characters, see zettelclaw.display), at most ``limit``
    characters."""
    from .display import printable

    text = printable(" ".join(str(text).split()))
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


def _item(entry: dict) -> str:
    text = _one_line(entry["content"], _ITEM_CHARS)
    if entry.get("subject"):
        text += f" [{_one_line(entry['subject'], 60)}]"
    return text


def print_handoff(as_json: bool = False, agent: str | list[str] | None = None,
                  session_key: str | None = None, turn=None) -> None:
    """What ``zettelclaw handoff`` prints: the §6.1 block, JSON with --json, nothing if none.
    ``agent``: whose handoffs (``--agent``: the default agent unless given);
    ``session_key``: the session asking (``--session-key``), whose person's handoff it is
    (without one: the owner's); ``turn`` (``--turn``, the plugin's): the block printed is
    receipted (:mod:`zettelclaw.receipts`)."""
    import sys

    from . import paths
    from .people import person_of_key

    person = person_of_key(session_key)
    found = last_handoff(paths.log_file(), paths.agent_scope(agent), paths.default_agent(),
                         person)
    if found is None:
        return
    if as_json:
        import json

        sys.stdout.write(json.dumps(found, ensure_ascii=False, separators=(",", ":")) + "\n")
    else:
        sys.stdout.write(format_handoff(found) + "\n")
    sys.stdout.flush()
    if turn is not None:
        from .receipts import handoff_items, record

        record(turn, "handoff", handoff_items(found), agents=agent, session_key=session_key,
               person=person)

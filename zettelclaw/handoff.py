"""The last handoff (design §6): what the next session should know first.

"Last" means the most recent conversation's, by timestamp, not the last line: a sweep may
append an older conversation after a newer one. ``zettelclaw handoff`` runs before every
prompt, so this module reads only the lines it needs (a pointer in state.json says where the
latest handoff was, see below), parses them with the standard library, and imports nothing
heavy.
"""

from __future__ import annotations

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

        return json.loads(text)
    if end != len(text):
        raise ValueError("trailing data")
    return obj


def _parse(line: bytes) -> dict | None:
    try:
        obj = _loads(line)
    except (ValueError, StopIteration, UnicodeDecodeError, RecursionError):
        return None
    if isinstance(obj, dict) and isinstance(obj.get("id"), str) and isinstance(
            obj.get("content"), str) and isinstance(obj.get("type"), str):
        return obj
    return None


def last_handoff(path) -> dict | None:
    """``{"handoff": entry, "openTasks": [...], "decisions": [...]}`` or None.

    The handoff is the current one (no later line replaces it) of the most recent
    conversation by its ``timestamp``, wherever it sits in the log: a sweep that appends an
    older conversation late does not displace it (equal timestamps: the later line wins). Its
    session's tasks and decisions (appended with it, just before it) are shown in their
    current versions: a replaced one is followed along its chain to the head, which is shown
    only when it is still an open task or a decision.
    """
    import os

    from .fsutil import open_read

    path = os.fspath(path)
    try:
        fh = open_read(path)
    except FileNotFoundError:
        return None
    with fh:
        found = _find_latest(fh, path)
        if found is None:
            return None
        pos, handoff = found
        tasks, decisions = _related(fh, pos, handoff)
    return {"handoff": handoff, "openTasks": tasks, "decisions": decisions}


# -- which handoff ----------------------------------------------------------------------------
#
# Finding the latest handoff means looking at every handoff line, which on a large log costs
# more than the whole command may. state.json keeps a pointer, ``lastHandoff``: the answer for
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


def _find_latest(fh, path: str) -> tuple[int, dict] | None:
    import os

    inode = os.fstat(fh.fileno()).st_ino
    pointer = _read_pointer(os.path.join(os.path.dirname(path), "state.json"))
    if pointer is not None and _pointer_holds(fh, pointer, inode) \
            and os.fstat(fh.fileno()).st_size - pointer["size"] <= _BLOCK:
        size = pointer["size"]
        candidates = {}
        if pointer["id"] is not None:
            candidates[pointer["id"]] = (_ts_key(pointer["timestamp"]), pointer["offset"])
        fh.seek(size)
        data = fh.read()
        stop = data.rfind(b"\n") + 1
        if _feed(candidates, data, size, len(data), guard=pointer["id"]):
            best = _best(candidates)
            if stop > _REFRESH_TAIL:
                _store_pointer(fh, path, inode, best, size + stop)
            return _entry_at(fh, best)
    candidates, end = {}, 0
    fh.seek(0)
    base, rest = 0, b""
    while True:
        chunk = fh.read(_BLOCK)
        data = rest + chunk
        stop = data.rfind(b"\n") + 1 if chunk else len(data)
        _feed(candidates, data, base, stop)
        if not chunk:
            end = base + data.rfind(b"\n") + 1
            break
        rest, base = data[stop:], base + stop
    best = _best(candidates)
    _store_pointer(fh, path, inode, best, end)
    return _entry_at(fh, best)


def _feed(candidates: dict, data: bytes, base: int, stop: int, guard=None) -> bool:
    """Add the current handoffs among the lines of ``data[:stop]`` (at offset ``base``) to
    ``candidates`` (id -> (time key, offset)), dropping those a later line replaces. False
    when a line replaces ``guard`` (the pointer's handoff: the next best is unknown)."""
    starts = set()
    for needle in (_HANDOFF, _REPLACES):
        at = data.find(needle, 0, stop)
        while at >= 0:
            starts.add(data.rfind(b"\n", 0, at) + 1)
            at = data.find(needle, at + 1, stop)
    for start in sorted(starts):
        end = data.find(b"\n", start, stop)
        entry = _parse(data[start:end if end >= 0 else stop])
        if entry is None:
            continue
        target = entry.get("replaces")
        if isinstance(target, str) and target != entry["id"]:
            if target == guard:
                return False
            candidates.pop(target, None)
        if entry["type"] == "handoff":
            candidates[entry["id"]] = (_ts_key(entry.get("timestamp")), base + start)
    return True


def _best(candidates: dict):
    return max(candidates.values(), default=None)


def _ts_key(stamp) -> str:
    """A string that sorts as the moment ``stamp`` names (UTC, microseconds); "" if none."""
    if not isinstance(stamp, str):
        return ""
    # what zettelclaw writes, its fields in range (a `9999-99-99...` must not win forever);
    # anything else is checked by parsing it. clock.is_plain is exact but needs `re`, which
    # costs this per-prompt command more than it saves
    if (len(stamp) == 20 and stamp[10] == "T" and stamp[19] == "Z"
            and "01" <= stamp[5:7] <= "12" and "01" <= stamp[8:10] <= "28"
            and stamp[11:13] <= "23" and stamp[14:16] <= "59" and stamp[17:19] <= "59"):
        return stamp[:19] + ".000000"
    from datetime import datetime, timezone

    try:
        moment = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return ""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")


def _line_at(fh, offset: int) -> bytes:
    fh.seek(offset)
    return fh.readline()


def _entry_at(fh, best) -> tuple[int, dict] | None:
    if best is None:
        return None
    entry = _parse(_line_at(fh, best[1]))
    return (best[1], entry) if entry is not None else None


def _read_pointer(state_path: str) -> dict | None:
    from .fsutil import read_bytes

    try:
        raw = read_bytes(state_path)  # a symlink or FIFO is refused, not followed or waited on
    except OSError:
        return None
    if raw is None:
        return None
    at = raw.find(_POINTER_KEY)
    if at < 0:
        return None
    at = raw.find(b":", at + len(_POINTER_KEY))
    try:
        text = raw[at + 1:].decode("utf-8").lstrip()
        pointer, _ = _scan_value(text)
    except (ValueError, StopIteration, UnicodeDecodeError, RecursionError, SystemError):
        return None
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
            and entry.get("timestamp") == pointer.get("timestamp"))


def read_pointer(path) -> dict | None:
    """state.json's ``lastHandoff`` beside the log at ``path`` (unchecked), or None."""
    import os

    return _read_pointer(os.path.join(os.path.dirname(os.fspath(path)), "state.json"))


def carry_pointer(path, pointer: dict) -> None:
    """Store ``pointer`` for the log at ``path``; the caller holds the directory lock (a
    rewrite of the log that moved the pointed lines)."""
    import os

    try:
        _write_pointer(os.path.join(os.path.dirname(os.fspath(path)), "state.json"), pointer)
    except (OSError, ValueError):
        pass  # a state.json that does not read back: the next handoff scans the whole log


def _write_pointer(state_path: str, pointer: dict) -> None:
    import orjson

    from .fsutil import read_bytes

    state = orjson.loads(read_bytes(state_path) or b"{}")
    if not isinstance(state, dict) or state.get("lastHandoff") == pointer:
        return
    state["lastHandoff"] = pointer
    from pathlib import Path

    from .fsutil import atomic_write

    atomic_write(Path(state_path), orjson.dumps(state, option=orjson.OPT_INDENT_2) + b"\n")


def _store_pointer(fh, path: str, inode: int, best, size: int) -> None:
    """Record ``best`` for the log's first ``size`` bytes in state.json, if the directory lock
    is free right now (never wait: this runs before a prompt) and state.json reads back."""
    import fcntl
    import os

    entry = _entry_at(fh, best)
    pointer = {"id": entry[1]["id"] if entry else None,
               "timestamp": entry[1].get("timestamp") if entry else None,
               "offset": best[1] if entry else 0, "size": size, "inode": inode}
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
        _write_pointer(state_path, pointer)
    except (OSError, ValueError):
        return  # busy, read-only, or a state.json that is not ours to fix: no pointer
    finally:
        os.close(fd)


# -- that session's tasks and decisions -------------------------------------------------------


def _related(fh, pos: int, handoff: dict) -> tuple[list[dict], list[dict]]:
    """Open tasks and decisions of the handoff's session among the lines appended with it
    (at most ``_RELATED_WINDOW`` lines before it, back to the previous handoff), each in its
    current version."""
    session = handoff.get("session")
    # id -> [(offset, entry)] of the lines replacing it, newest first; every line after the
    # handoff may correct one of them, and so may the lines between them and the handoff
    replaced_by: dict[str, list] = {}
    _collect_replacements(fh, pos, replaced_by)
    own: list[tuple[int, dict]] = []
    for at, line in reversed(_lines_before(fh, pos, _RELATED_WINDOW)):  # newest first
        entry = _parse(line)
        if entry is None:
            continue
        if entry["type"] == "handoff":
            break  # a segment's entries are appended together, ending with its handoff
        _note(replaced_by, at, entry)
        if entry.get("session") == session and entry["type"] in ("task", "decision"):
            own.append((at, entry))
    tasks: list[dict] = []
    decisions: list[dict] = []
    shown: set[str] = set()
    heads: dict[str, dict] = {}  # along a long chain, each walk stops where another ended
    for at, entry in own:  # newest first, so the later links are known first
        heads[entry["id"]] = _head(at, entry, replaced_by, heads)
    for _, entry in reversed(own):  # oldest first
        head = heads[entry["id"]]
        if head["id"] in shown:
            continue
        shown.add(head["id"])
        if head["type"] == "task" and head.get("status") == "open":
            tasks.append(head)
        elif head["type"] == "decision":
            decisions.append(head)
    return tasks, decisions


def _note(replaced_by: dict, at: int, entry: dict) -> None:
    target = entry.get("replaces")
    if isinstance(target, str) and target != entry["id"]:
        replaced_by.setdefault(target, []).append((at, entry))


def _collect_replacements(fh, pos: int, replaced_by: dict) -> None:
    """Every valid line from offset ``pos`` on that replaces something, newest first, into
    ``replaced_by`` (read in blocks: the handoff may lie far back)."""
    fh.seek(pos)
    base, rest = pos, b""
    while True:
        chunk = fh.read(_BLOCK)
        data = rest + chunk
        stop = data.rfind(b"\n") + 1 if chunk else len(data)
        at = data.find(_REPLACES, 0, stop)
        while at >= 0:
            start = data.rfind(b"\n", 0, at) + 1
            end = data.find(b"\n", at, stop)
            end = end if end >= 0 else stop
            entry = _parse(data[start:end])
            if entry is not None:
                _note(replaced_by, base + start, entry)
            at = data.find(_REPLACES, end, stop)
        if not chunk:
            break
        rest, base = data[stop:], base + stop
    for versions in replaced_by.values():
        versions.reverse()


def _head(at: int, entry: dict, replaced_by: dict, known: dict) -> dict:
    """The end of ``entry``'s chain: repeatedly, the last line after it that replaces it.
    ``known``: heads already found for entries of this window."""
    for _ in range(len(replaced_by) + 1):  # a chain cannot be longer; ends any cycle
        later = next((r for r in replaced_by.get(entry["id"], ()) if r[0] > at), None)
        if later is None:
            break
        at, entry = later
        if entry["id"] in known:
            return known[entry["id"]]
    return entry


def _lines_before(fh, pos: int, count: int) -> list[tuple[int, bytes]]:
    """Up to ``count`` (offset, line) of the whole lines ending at offset ``pos``, oldest
    first."""
    end, rest = pos, b""
    parts: list[bytes] = []
    while end > 0 and len(parts) < count + 1:
        size = min(1 << 16, end)
        end -= size
        fh.seek(end)
        block = fh.read(size) + rest
        pieces = block.split(b"\n")
        rest = pieces[0]
        parts[:0] = pieces[1:]
    if end == 0:
        parts.insert(0, rest)
        start = 0
    else:
        start = end + len(rest) + 1
    lines = []
    for part in parts:
        if part.strip():
            lines.append((start, part))
        start += len(part) + 1
    return lines[-count:]


def format_handoff(found: dict) -> str:
    """The design §6.1 text block."""
    handoff = found["handoff"]
    lines = ["## Last Session Handoff",
             f"Session: {handoff.get('session', '?')} ({handoff.get('timestamp', '?')})",
             handoff["content"]]
    if handoff.get("detail"):
        lines.append(f"Detail: {handoff['detail']}")
    if found["openTasks"]:
        lines.append("Open tasks from that session:")
        lines += [f"- {_one_line(t)}" for t in found["openTasks"]]
    if found["decisions"]:
        lines.append("Decisions from that session:")
        lines += [f"- {_one_line(d)}" for d in found["decisions"]]
    return "\n".join(lines)


def _one_line(entry: dict) -> str:
    text = " ".join(entry["content"].split())
    if entry.get("subject"):
        text += f" [{entry['subject']}]"
    return text


def print_handoff(as_json: bool = False) -> None:
    """What ``zettelclaw handoff`` prints: the §6.1 block, JSON with --json, nothing if none."""
    import sys

    from . import paths

    found = last_handoff(paths.log_file())
    if found is None:
        return
    if as_json:
        import json

        sys.stdout.write(json.dumps(found, ensure_ascii=False, separators=(",", ":")) + "\n")
    else:
        sys.stdout.write(format_handoff(found) + "\n")
    sys.stdout.flush()

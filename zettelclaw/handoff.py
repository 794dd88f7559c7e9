"""The last handoff (design §6): what the next session should know first.

``zettelclaw handoff`` runs before every prompt, so this module reads the log from its end,
parses only the lines it needs with the standard library, and imports nothing heavy.
"""

from __future__ import annotations

TYPE_CHECKING = False  # importing typing would cost more than the whole command
if TYPE_CHECKING:
    from pathlib import Path

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


def _loads(line: bytes):
    global _scan
    if _scan is None:
        _scan = _scanner()
    text = line.decode("utf-8").strip()
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


def last_handoff(path: Path) -> dict | None:
    """``{"handoff": entry, "openTasks": [...], "decisions": [...]}`` or None.

    Entries replaced by a later line are skipped, so a corrected handoff or a task that a later
    entry marked done does not show.
    """
    from .log import reverse_lines

    replaced: set[str] = set()
    handoff = None
    tasks: list[dict] = []
    decisions: list[dict] = []
    scanned = 0
    for line in reverse_lines(path):
        entry = _parse(line)
        if entry is None:
            continue
        if entry["id"] in replaced:
            continue
        target = entry.get("replaces")
        if isinstance(target, str):
            replaced.add(target)
        if handoff is None:
            if entry["type"] == "handoff":
                handoff = entry
            continue
        scanned += 1
        if scanned > _RELATED_WINDOW or entry["type"] == "handoff":
            break  # a segment's entries are appended together, ending with its handoff
        if entry.get("session") != handoff.get("session"):
            continue
        if entry["type"] == "task" and entry.get("status") == "open":
            tasks.append(entry)
        elif entry["type"] == "decision":
            decisions.append(entry)
    if handoff is None:
        return None
    return {"handoff": handoff, "openTasks": tasks[::-1], "decisions": decisions[::-1]}


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

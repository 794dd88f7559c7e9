"""Receipts: every time memory is put before the model, one line saying what and why.

The plugin's per-turn run (``recall --handoff``, ``recall``, ``handoff``) and the agent's
``memory_search`` / ``memory_get`` answers append one receipt each when the plugin names the
turn (``--turn``): when, the agent, the session and its key, the person the key resolves to
(:func:`zettelclaw.people.person_of_key`), the turn (OpenClaw 2026.9's
``currentUserMessageId``, the same across retries of one request) and, for each entry put
before the model, its id and why (the last handoff; the words of the message it matched and
its score; a tool's answer). Ids and reasons only, never an entry's text: a forget or a purge
has nothing to rewrite here.

They live beside the log in ``receipts/``, one append-only file a day (``YYYY-MM-DD.jsonl``,
the day of the receipt, UTC): a receipt is one ``write`` of one line with ``O_APPEND``, no
lock (as the plugin appends to ``hooks.log``), and keeping them for a bounded time
(``plugins.entries.zettelclaw.config.receipts.keepDays``, 90 by default; 0 keeps none) is
deleting the files of the days before it, never rewriting one that someone may be appending
to. The first receipt of a day prunes; so does ``zettelclaw why`` and the nightly ``brief``.

When the plugin reuses what it cached (the same message on the same log, the handoff of an
unchanged log), no process runs: the plugin appends a line of its own naming the turn whose
run it repeats (``repeats``) and the part (``handoff`` or ``recall``); ``zettelclaw why``
reads it as that turn's entries of that part.

Nothing reads these files but ``zettelclaw why``: they are never extracted, searched or
injected. This module is on the per-turn path: the standard library only, imported after the
answer was printed.
"""

from __future__ import annotations

import os

DIR_NAME = "receipts"
KEEP_DAYS = 90
SUFFIX = ".jsonl"

# why an entry was put before the model
HANDOFF = "handoff"                # the last conversation's handoff
HANDOFF_TASK = "handoff open task"  # an open task the handoff block lists
HANDOFF_DECISION = "handoff decision"
RECALL = "recall"                  # matched the person's message (words, score)
SEARCH = "memory_search"           # the agent's memory_search answered it
GET = "memory_get"                 # the agent's memory_get read it

PARTS = {"handoff": (HANDOFF, HANDOFF_TASK, HANDOFF_DECISION), "recall": (RECALL,)}


def directory() -> str:
    from . import paths

    return os.path.join(paths.log_file().rsplit(os.sep, 1)[0], DIR_NAME)


def keep_days() -> int:
    """``receipts.keepDays`` of the plugin config (a whole number of days >= 0), else 90."""
    from . import paths

    try:
        value = paths.plugin_config().get("receipts")
    except Exception:  # noqa: BLE001 - an unreadable config: the default
        value = None
    days = value.get("keepDays") if isinstance(value, dict) else None
    if isinstance(days, int) and not isinstance(days, bool) and days >= 0:
        return days
    return KEEP_DAYS


class Turn:
    """Who asked, as the plugin names it: ``--turn``, ``--session-id``, ``--tool-call``."""

    def __init__(self, turn: str, session: str | None = None, call: str | None = None):
        self.turn, self.session, self.call = turn, session, call

    @classmethod
    def of(cls, opts: dict) -> Turn | None:
        turn = opts.get("turn")
        if not isinstance(turn, str) or not turn.strip():
            return None
        return cls(turn.strip(), opts.get("session_id") or None, opts.get("tool_call") or None)


def _agent(agents, session_key: str | None) -> str:
    from . import paths

    found = paths.agent_of_key(session_key) if session_key else None
    if found:
        return found
    if agents:
        scope = paths.agent_scope(agents)
        if scope is not None and len(scope) == 1:
            return next(iter(scope))
    return paths.default_agent()


def record(turn: Turn, by: str, entries: list[dict], *, agents=None,
           session_key: str | None = None, person: str | None = None) -> None:
    """Append the receipt of ``entries`` (each ``{"id", "why", ...}``) put before the model
    by ``by`` for ``turn``; nothing when there are none or receipts are off. A receipt that
    cannot be written costs the turn nothing but a line on stderr."""
    if not entries:
        return
    try:
        _record(turn, by, entries, agents, session_key, person)
    except Exception as exc:  # noqa: BLE001 - the turn goes on: its answer was printed
        import sys

        print(f"zettelclaw: no receipt written: {exc}", file=sys.stderr)


def _record(turn, by, entries, agents, session_key, person) -> None:
    from .clock import now_key
    from .jsonlight import dumps
    from .people import OWNER, person_of_key

    at = now_key()
    if person is None:
        person = person_of_key(session_key)
    line = {"at": at, "turn": turn.turn, "by": by, "agent": _agent(agents, session_key)}
    if turn.session:
        line["session"] = turn.session
    if session_key:
        line["session_key"] = session_key
    line["person"] = person or OWNER
    if turn.call:
        line["call"] = turn.call
    line["entries"] = entries
    append(dumps(line) + "\n", at[:10])


def append(text: str, day: str) -> None:
    """One ``write`` of ``text`` (one line) at the end of ``day``'s file; the first of a day
    prunes the days past keeping."""
    from .fsutil import DIR_MODE, open_fd

    folder = directory()
    path = os.path.join(folder, day + SUFFIX)
    try:
        fd = open_fd(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    except FileNotFoundError:  # no receipts/ yet (nor, perhaps, the log directory)
        os.makedirs(folder, mode=DIR_MODE, exist_ok=True)
        fd = open_fd(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    try:
        first = os.fstat(fd).st_size == 0
        if first:
            days = keep_days()
            if days == 0:  # receipts are off: none kept
                os.close(fd)
                fd = -1
                os.unlink(path)
                prune(0, day)
                return
        os.write(fd, text.encode("utf-8", "surrogateescape"))
    finally:
        if fd >= 0:
            os.close(fd)
    if first:
        prune(days, day)


def _day_number(day: str) -> int | None:
    """A day number of a ``YYYY-MM-DD`` (None when it is not one), without datetime (the
    per-turn path does not import it): days from the civil calendar, H. Hinnant's way."""
    if not isinstance(day, str) or len(day) != 10 or day[4] != "-" or day[7] != "-":
        return None
    y, m, d = day[:4], day[5:7], day[8:]
    if not (y.isdigit() and m.isdigit() and d.isdigit()) or not 1 <= int(m) <= 12 \
            or not 1 <= int(d) <= 31:
        return None
    y, m, d = int(y) - (int(m) <= 2), int(m), int(d)
    era, yoe = divmod(y, 400)
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    return era * 146097 + yoe * 365 + yoe // 4 - yoe // 100 + doy


def prune(days: int | None = None, today: str | None = None) -> list[str]:
    """Delete the files of the days more than ``days`` before ``today`` (default: the
    setting, and now); the names deleted."""
    from .clock import now_key

    if days is None:
        days = keep_days()
    today_n = _day_number((today or now_key())[:10])
    if today_n is None:
        return []
    folder = directory()
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    gone = []
    for name in sorted(names):
        if not name.endswith(SUFFIX):
            continue
        n = _day_number(name[:-len(SUFFIX)])
        if n is not None and n <= today_n - days:  # kept: today and the days-1 before it
            try:
                os.unlink(os.path.join(folder, name))
                gone.append(name)
            except OSError:
                pass
    return gone


def read() -> list[dict]:
    """Every receipt kept, oldest day first, in the order written; a torn or foreign line is
    skipped."""
    import json

    folder = directory()
    try:
        names = sorted(n for n in os.listdir(folder) if n.endswith(SUFFIX))
    except OSError:
        return []
    from .fsutil import read_bytes

    out = []
    for name in names:
        try:
            raw = read_bytes(os.path.join(folder, name)) or b""
        except OSError:
            continue
        for line in raw.decode("utf-8", "replace").splitlines():
            try:
                value = json.loads(line)
            except ValueError:
                continue
            if isinstance(value, dict) and isinstance(value.get("turn"), str):
                out.append(value)
    return out


def handoff_items(found) -> list[dict]:
    """The receipt's entries of a handoff block (:func:`zettelclaw.handoff.last_handoff`)."""
    if not found:
        return []
    items = [{"id": found["handoff"].get("id"), "why": HANDOFF}]
    items += [{"id": e.get("id"), "why": HANDOFF_TASK} for e in found.get("openTasks") or ()]
    items += [{"id": e.get("id"), "why": HANDOFF_DECISION} for e in found.get("decisions") or ()]
    return items


def matched(message: str, entry: dict) -> list[str]:
    """The words of ``message`` (lowercased, stop words and ``<private>`` spans left out)
    that ``entry`` holds by the ranker's stems: the words it was recalled for."""
    from .private import strip_private
    from .rank.english import keep, stem, terms, words

    held = set(terms(" ".join(str(entry.get(f) or "") for f in ("content", "detail", "subject"))))
    out: list[str] = []
    for word in words(strip_private(message or "")):
        if keep(word) and word not in out and stem(word) in held:
            out.append(word)
    return out


def answer_items(results: list[dict], by: str, query: str | None = None) -> list[dict]:
    """The receipt's entries of a tool's answer: each entry's id (with the words of the query
    it holds and its score, when ranked), each memory file's path and first line."""
    items = []
    for r in results:
        if not isinstance(r, dict):
            continue
        if r.get("id"):
            item = {"id": r["id"], "why": by}
            if query:
                item["words"] = matched(query, r)
            if isinstance(r.get("score"), (int, float)):
                item["score"] = r["score"]
            items.append(item)
        elif isinstance(r.get("path"), str):
            item = {"file": r["path"], "why": by}
            if r.get("startLine") is not None:
                item["from"] = r.get("startLine")
            items.append(item)
    return items

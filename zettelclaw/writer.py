"""Writing a hand-made entry: validation, subject registration, one locked append.

A correction (``replaces``) of an entry that was already replaced corrects the chain's current
head instead, and says so on stderr; it inherits the subject (and a task's status) it does not
give. An entry that restates a current one is not appended: the existing one is returned, with a
note on stderr naming it (see :mod:`zettelclaw.corrections`).
"""

from __future__ import annotations

import re
import sys

from . import paths
from .corrections import dedup_key, inherit
from .entries import TYPES, make_entry
from .errors import UsageError
from .log import Log
from .subjects import append_entries, check_new_slug

# The longest content or detail `write` accepts, the same bound extraction puts on the model's
# fields: an entry is a note, and every entry may end up in a prompt.
WRITE_FIELD_CHARS = 4000


def write_entry(type: str, content: str, *, detail: str | None = None,
                subject: str | None = None, status: str | None = None,
                replaces: str | None = None, session: str = "manual",
                agent: str | None = None) -> dict:
    """The entry appended, or the current entry it would have restated (``duplicate``)."""
    entry, _ = write_or_find(type, content, detail=detail, subject=subject, status=status,
                             replaces=replaces, session=session, agent=agent)
    return entry


def write_or_find(type: str, content: str, *, detail: str | None = None,
                  subject: str | None = None, status: str | None = None,
                  replaces: str | None = None, session: str = "manual",
                  agent: str | None = None) -> tuple[dict, bool]:
    """(entry, written): the new entry, or the existing one it duplicates and False.

    Reads only what it needs (the replaced entry and its chain, lines of the same type that
    share a word with ``content``), so a write stays cheap on a large log.
    """
    if type not in TYPES:
        raise UsageError(f"unknown type {type!r}: use one of {', '.join(TYPES)}")
    for field, value in (("content", content), ("detail", detail)):
        if value is not None and len(value) > WRITE_FIELD_CHARS:
            raise UsageError(f"{field} is {len(value):,} characters: at most "
                             f"{WRITE_FIELD_CHARS:,} (split it, or keep the long text in a file "
                             "and write where it is)")
    if subject is not None:
        check_new_slug(subject)
    log = Log(paths.log_path(), warn=False)
    resolution = _LazyResolution(log.path)
    default = paths.default_agent()
    agent = agent or default
    head = None
    if replaces is not None:
        found = _locate(log, replaces)
        if found is None or paths.entry_agent(found[1], default) != agent:  # not this agent's
            raise UsageError(f"--replaces {replaces}: no entry with that id in the log")
        head = resolution.get().head(found[1], found[0])
        from .resolve import gone_kind

        _refuse_gone(replaces, gone_kind(head))
        if head["id"] != replaces:
            _note(f"{replaces} was already replaced; this corrects its current version "
                  f"{head['id']} instead")
        replaces = head["id"]
        subject, status = inherit(head, type, subject, status)
    if type == "task" and status is None:
        status = "open"
    # a correction stays in the memory of the person whose entry it corrects; the terminal is
    # the owner's, so what it writes in the owner's memory is the owner's own words
    person = head.get("person") if head is not None else None
    origin = "owner" if not person else head.get("origin")
    entry = make_entry(type, content, session, detail=detail, subject=subject, status=status,
                       replaces=replaces, agent=agent, person=person, origin=origin)
    existing = _duplicate(log, resolution, entry, head, default)
    if existing is not None:
        _note(f"not written: the same {type} is already in the log as {existing['id']}")
        return existing, False
    from .fsutil import dir_lock

    with dir_lock(log.path.parent):
        if replaces is not None:  # a forget or purge that landed since the check above
            from .corrections import gone_targets

            _refuse_gone(replaces, gone_targets(log, {replaces}).get(replaces))
        append_entries([entry], log, locked=True)  # applies a rename made meanwhile
    return entry, True


def _refuse_gone(replaces: str, kind: str | None) -> None:
    if kind == "forgotten":
        raise UsageError(f"--replaces {replaces}: that entry was forgotten (`zettelclaw "
                         f"forget --undo {replaces}` brings it back first)")
    if kind == "purged":
        raise UsageError(f"--replaces {replaces}: that entry was purged")


class _LazyResolution:
    def __init__(self, path):
        self.path, self.value = path, None

    def get(self):
        from .resolve import StreamingResolution

        if self.value is None:
            self.value = StreamingResolution.scan(self.path)
        return self.value


def _locate(log: Log, entry_id: str) -> tuple[int, dict] | None:
    found = None
    for pos, candidate in log.located(needle=f'"{entry_id}"'.encode()):
        if candidate["id"] == entry_id:
            found = (pos, candidate)
    return found


def _duplicate(log: Log, resolution: _LazyResolution, entry: dict,
               head: dict | None, default: str) -> dict | None:
    """The current entry that ``entry`` restates (:func:`corrections.dedup_key`), or None; a
    correction restates only the version it replaces."""
    key = dedup_key(entry)
    if key is None:
        return None
    if head is not None:
        return head if dedup_key(head) == key else None
    # a line restating it has the same type and, lower-cased, every ASCII word of it
    words = sorted({w.lower().encode() for w in re.findall(r"[A-Za-z0-9]+", entry["content"])},
                   key=len)
    word = words[-1] if words else None
    found = None
    for pos, candidate in log.located(
            needle=f'"type":"{entry["type"]}"'.encode(),
            prefilter=(lambda line: word in line.lower()) if word else None):
        if dedup_key(candidate) == key \
                and paths.entry_agent(candidate, default) == entry["agent"] and \
                resolution.get().replaced_by(candidate["id"], pos) is None:
            found = candidate
    return found


def _note(message: str) -> None:
    print(f"note: {message}", file=sys.stderr)

"""Writing a hand-made entry: validation, subject registration, one locked append.

A correction (``replaces``) of an entry that was already replaced corrects the chain's current
head instead, and says so on stderr; it inherits the subject (and a task's status) it does not
give. An entry that restates a current one is not appended: the existing one is returned, with a
note on stderr naming it (see :mod:`zettelclaw.corrections`).
"""

from __future__ import annotations

import sys

from . import paths
from .corrections import Current, inherit, retarget
from .entries import TYPES, make_entry
from .errors import UsageError
from .log import Log
from .subjects import Registry, check_slug


def write_entry(type: str, content: str, *, detail: str | None = None,
                subject: str | None = None, status: str | None = None,
                replaces: str | None = None, session: str = "manual") -> dict:
    """The entry appended, or the current entry it would have restated (``duplicate``)."""
    entry, _ = write_or_find(type, content, detail=detail, subject=subject, status=status,
                             replaces=replaces, session=session)
    return entry


def write_or_find(type: str, content: str, *, detail: str | None = None,
                  subject: str | None = None, status: str | None = None,
                  replaces: str | None = None, session: str = "manual",
                  ) -> tuple[dict, bool]:
    """(entry, written): the new entry, or the existing one it duplicates and False."""
    if type not in TYPES:
        raise UsageError(f"unknown type {type!r}: use one of {', '.join(TYPES)}")
    if subject is not None:
        check_slug(subject)
    log = Log(paths.log_path())
    current = Current.of(log.entries())
    if replaces is not None:
        if replaces not in current.resolution.by_id:
            raise UsageError(f"--replaces {replaces}: no entry with that id in the log")
        head, note = retarget(current.resolution, replaces)
        if note:
            _note(note)
        replaces = head["id"]
        subject, status = inherit(head, type, subject, status)
    if type == "task" and status is None:
        status = "open"
    entry = make_entry(type, content, session, detail=detail, subject=subject, status=status,
                       replaces=replaces)
    existing = current.duplicate_of(entry)
    if existing is not None:
        _note(f"not written: the same {type} is already in the log as {existing['id']}")
        return existing, False
    if subject:
        Registry.load().ensure([subject])
    log.append([entry])
    return entry, True


def _note(message: str) -> None:
    print(f"note: {message}", file=sys.stderr)

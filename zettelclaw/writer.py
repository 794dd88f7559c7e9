"""Writing a hand-made entry: validation, subject registration, one locked append."""

from __future__ import annotations

from . import paths
from .entries import TYPES, make_entry
from .errors import UsageError
from .log import Log
from .subjects import Registry, check_slug


def write_entry(type: str, content: str, *, detail: str | None = None,
                subject: str | None = None, status: str | None = None,
                replaces: str | None = None, session: str = "manual") -> dict:
    if type not in TYPES:
        raise UsageError(f"unknown type {type!r}: use one of {', '.join(TYPES)}")
    if type == "task" and status is None:
        status = "open"
    if subject is not None:
        check_slug(subject)
    log = Log(paths.log_path())
    if replaces is not None and log.get(replaces) is None:
        raise UsageError(f"--replaces {replaces}: no entry with that id in the log")
    entry = make_entry(type, content, session, detail=detail, subject=subject, status=status,
                       replaces=replaces)
    if subject:
        Registry.load().ensure([subject])
    log.append([entry])
    return entry

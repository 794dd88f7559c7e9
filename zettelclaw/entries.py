"""Log entries: the five types, their fields, and how a new entry is born.

An entry on disk is one compact JSON object per line. Code, never the model, fills in
``id`` (12-character nanoid), ``timestamp`` (UTC ISO 8601), ``session`` and ``agent`` (the
OpenClaw agent it came from; an entry without one belongs to the default agent), ``person``
(whose memory it is, left out for the owner) and ``origin`` (where its words came from:
:mod:`zettelclaw.people`).
Entries read back are plain dicts; unknown fields of existing lines are kept.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator, model_validator

from .clock import format_ts, now
from .errors import UsageError
from .log import TASK_STATUSES as TASK_STATUSES  # the schema's vocabulary, re-exported
from .log import TYPES as TYPES

FIELD_ORDER = ("id", "timestamp", "type", "content", "detail", "status", "subject", "replaces",
               "may_replace", "session", "agent", "person", "origin")
# nanoid's URL-safe alphabet without "-": an id that starts with "-" reads as an option to
# `zettelclaw get`, `rg` and `grep` (ids from other writers may still hold one; ID_RE takes it)
ID_ALPHABET = "_0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
ID_LENGTH = 12
ID_RE = re.compile(r"^[A-Za-z0-9_-]{12}$")
SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


class InvalidEntry(UsageError):
    """An entry that breaks the schema."""


def new_id() -> str:
    from nanoid import generate

    return generate(ID_ALPHABET, ID_LENGTH)


def now_iso() -> str:
    return format_ts(now())


def looks_like_id(text: str) -> bool:
    return bool(ID_RE.match(text))


def no_entry(entry_id: str):
    """The one answer ``get``, ``forget`` and ``review`` give for an id that is not there
    (a :class:`NotFoundError`, exit 1), with the length when it cannot be an id."""
    from .errors import NotFoundError

    hint = "" if len(entry_id) == ID_LENGTH else \
        f" (ids are {ID_LENGTH} characters; this is {len(entry_id)})"
    return NotFoundError(f"no entry with id {entry_id}{hint}")


class Entry(BaseModel):
    """The schema of design §3.3. ``extra='forbid'`` for new entries."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    id: str
    timestamp: str
    type: Literal["task", "fact", "decision", "question", "handoff"]
    content: str
    session: str
    detail: str | None = None
    subject: str | None = None
    status: Literal["open", "done"] | None = None
    replaces: str | None = None
    # the entry the model said this one replaces, not linked: one of several look-alikes, or
    # of another subject (extraction keeps it apart and asks: `zettelclaw review`); a list
    # when look-alikes could be meant as well (the likeliest first)
    may_replace: str | list[str] | None = None
    agent: str | None = None
    person: str | None = None
    origin: Literal["owner", "agent", "untrusted", "system"] | None = None

    @field_validator("content", "session")
    @classmethod
    def _not_empty(cls, value: str) -> str:
        if not value:
            raise ValueError("must not be empty")
        return value

    @field_validator("detail", "subject", "replaces", "may_replace", "agent", "person", "origin")
    @classmethod
    def _empty_is_none(cls, value: str | None) -> str | None:
        return value or None

    @field_validator("may_replace")
    @classmethod
    def _ids(cls, value: str | list[str] | None) -> str | list[str] | None:
        if isinstance(value, list):
            ids = list(dict.fromkeys(v.strip() for v in value if v.strip()))
            for one in ids:
                if not ID_RE.match(one):
                    raise ValueError(f"{one!r} is not a 12-character id")
            return ids[0] if len(ids) == 1 else ids or None
        return value

    @field_validator("subject")
    @classmethod
    def _slug(cls, value: str | None) -> str | None:
        if value is not None and not SLUG_RE.match(value):
            raise ValueError(f"{value!r} is not a lowercase kebab-case slug")
        return value

    @field_validator("id")
    @classmethod
    def _id(cls, value: str) -> str:
        if not ID_RE.match(value):
            raise ValueError(f"{value!r} is not a 12-character id")
        return value

    @model_validator(mode="after")
    def _status_for_tasks(self) -> Entry:
        if self.type == "task" and self.status is None:
            raise ValueError("a task needs a status (open or done)")
        if self.type != "task" and self.status is not None:
            raise ValueError("only tasks have a status")
        return self


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err.get("loc", ()))
    msg = err.get("msg", "invalid")
    return f"{where}: {msg}" if where else msg


def ordered(entry: dict) -> dict:
    """The entry with its fields in the canonical order, ``None`` fields dropped."""
    out = {k: entry[k] for k in FIELD_ORDER if entry.get(k) is not None}
    for key, value in entry.items():  # keep unknown fields of existing lines, after ours
        if key not in out and key not in FIELD_ORDER and value is not None:
            out[key] = value
    return out


def validate(entry: dict) -> dict:
    """Check a complete entry against the schema; return it in canonical order."""
    try:
        model = Entry.model_validate(entry)
    except ValidationError as exc:
        raise InvalidEntry(f"invalid entry: {_first_error(exc)}") from None
    return ordered(model.model_dump())


def make_entry(type: str, content: str, session: str, *, detail: str | None = None,
               subject: str | None = None, status: str | None = None,
               replaces: str | None = None, timestamp: str | None = None,
               id: str | None = None, agent: str | None = None, person: str | None = None,
               origin: str | None = None, may_replace: str | list[str] | None = None) -> dict:
    """Give birth to an entry: id and timestamp come from here, nowhere else; so does the
    redaction of its text, so every way in (extraction, ``write``) stores, compares for
    duplicates and prints the same redacted entry. A ``<private>`` span in it (``write`` by
    hand) is stored as ``[private]``, as in a transcript."""
    from .private import hide_private
    from .redact import redact

    def clean(text):
        return redact(hide_private(text)[0]) if isinstance(text, str) else text

    return validate({
        "id": id or new_id(),
        "timestamp": timestamp or now_iso(),
        "type": type,
        "content": clean(content),
        "detail": clean(detail),
        "subject": subject,
        "status": status,
        "replaces": replaces,
        "may_replace": may_replace,
        "session": session,
        "agent": agent,
        "person": None if person == "owner" else person,
        "origin": origin,
    })

"""The subjects registry (design §3.1): ``subjects.json`` maps slug -> {display, type}.

Slugs are lowercase kebab-case. Extraction adds unknown slugs automatically; people add,
rename (which rewrites the log's ``subject`` fields, never content) and remove them.

Renames and removals are also recorded in ``state.json`` (``subjectRenames``: old slug -> new
slug, or null for a removed one), and every new entry goes into the log through
:func:`append_entries`, which applies that record under the same lock as its append. So an
extraction that read the registry before a rename (and waited on the model meanwhile) writes
the new slug, not the old one, and does not bring the old one back; one that started before a
removal keeps the removed slug on its entries (as old entries do) without re-registering it.
``subjects add`` of a slug (or renaming something to it) clears its record.
"""

from __future__ import annotations

import re
import unicodedata

from . import paths
from .errors import NotFoundError, UsageError, ZettelclawError
from .fsutil import atomic_write, dir_lock, read_bytes

SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
# a subject written by hand in the log in other letters ("café"): found by a filter, never
# written by zettelclaw (its slugs are ASCII: :func:`slugify`)
_HAND_SLUG_RE = re.compile(r"^[^\W_]+(?:-[^\W_]+)*$")
DEFAULT_TYPE = "project"
TYPE_RE = re.compile(r"^[a-z][a-z0-9-]*$")


def is_slug(text: str) -> bool:
    return bool(SLUG_RE.match(text or "")) and len(text) <= 80


def _secret_shaped(text: str) -> bool:
    from .redact import contains_secret

    return contains_secret(text)


def check_new_slug(text: str) -> str:
    """A slug about to be stored: lowercase kebab-case ASCII, a secret-shaped one refused."""
    if not is_slug(text):
        _refuse(text)
    if _secret_shaped(text):
        raise UsageError("that subject slug looks like a secret (an API key or token); "
                         "subjects are stored in plain text")
    return text


def check_slug(text: str) -> str:
    """A subject to filter by (``--subject``), in the normal form every reader gives subjects
    (NFC, :func:`zettelclaw.log.normal_subject`): a slug, or a subject written by hand in
    lowercase letters of any script ("café", either spelling); else a usage error."""
    from .log import normal_subject

    text = normal_subject({"subject": text})["subject"]
    if not (is_slug(text) or (len(text) <= 80 and text == text.lower()
                              and _HAND_SLUG_RE.match(text))):
        _refuse(text)
    return text


def _refuse(text: str):
    raise UsageError(f"{text!r} is not a valid subject slug: use lowercase kebab-case "
                     "like auth-migration")


def slugify(text: str) -> str:
    """``Auth_Migration`` / ``authMigration`` / ``Auth Migration`` -> ``auth-migration``."""
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1-\2", text)
    text = re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower()
    return text[:80].strip("-")


def display_name(slug: str) -> str:
    return " ".join(part.capitalize() for part in slug.split("-"))


def _load_raw() -> dict:
    import json

    path = paths.subjects_path()
    raw = read_bytes(path)
    if raw is None:
        return {}
    try:
        data = json.loads(raw.decode("utf-8-sig") or "{}")
    except (ValueError, UnicodeDecodeError) as exc:
        raise ZettelclawError(f"{path} is not valid JSON ({exc}); fix or remove it") from None
    if not isinstance(data, dict):
        raise ZettelclawError(f"{path} must hold a JSON object of slug -> subject")
    bad = next((slug for slug, record in data.items() if not isinstance(record, dict)), None)
    if bad is not None:
        raise ZettelclawError(f"{path}: the subject {bad!r} is not an object like "
                              '{"display": "...", "type": "project"}; fix or remove it')
    return data


def _save_raw(data: dict) -> None:
    import json

    from .redact import redact_data

    # display names are free text (``subjects add --display``): redacted like everything stored
    body = json.dumps(redact_data(dict(sorted(data.items()))), indent=2,
                      ensure_ascii=False) + "\n"
    atomic_write(paths.subjects_path(), body)


RENAMES = "subjectRenames"  # the state.json section


def _record_change(old: str, new: str | None) -> None:
    """Record ``old`` -> ``new`` (None: removed); the caller holds the directory lock."""
    from .state import State

    state = State.load()
    renames = state.section(RENAMES)
    for slug, target in list(renames.items()):
        if target == old:
            renames[slug] = new  # a -> old, then old -> new: a -> new
    renames[old] = new
    if new is not None:
        renames.pop(new, None)  # new is a live subject again
    state.save()


def _clear_change(slug: str) -> None:
    """``slug`` is (again) a subject of its own; the caller holds the directory lock."""
    from .state import State

    state = State.load()
    if slug in state.section(RENAMES):
        del state.section(RENAMES)[slug]
        state.save()


def _renames() -> dict:
    """The ``subjectRenames`` section of state.json, read without loading the whole State."""
    import orjson

    raw = read_bytes(paths.state_path())
    if raw is None:
        return {}
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        from .state import State

        return State.load().section(RENAMES)  # a BOM, or the one clear error for bad JSON
    section = data.get(RENAMES) if isinstance(data, dict) else None
    return section if isinstance(section, dict) else {}


def append_entries(entries: list[dict], log=None, *, locked: bool = False) -> int:
    """Register the entries' subjects and append them to the log, in one hold of the lock
    (``locked``: the caller holds it already).

    A subject renamed since the caller read the registry is written as its new slug; a removed
    one stays on the entry but is not registered again. Returns how many lines were written.
    """
    import contextlib

    from .log import Log

    log = log if log is not None else Log()
    with contextlib.nullcontext() if locked else dir_lock(paths.log_dir()):
        # a renamed or removed slug is never a registered one: state.json (its renames) is
        # read only for an entry whose subject the registry does not hold, so a write about
        # known subjects (the agent's, every turn) does not read it
        known = _load_raw()
        wanted = {e.get("subject") for e in entries if e.get("subject")}
        renames = _renames() if wanted - known.keys() else {}
        for entry in entries:
            target = renames.get(entry.get("subject") or "")
            if target:
                entry["subject"] = target
        subjects = [e["subject"] for e in entries
                    if e.get("subject") and e["subject"] not in renames]
        if subjects:
            Registry({}).ensure(subjects, locked=True)
        return log.append(entries, locked=True)


def _renamed_record(record: dict | None, old: str, new: str) -> dict:
    """``old``'s record under the slug ``new``: a display name someone set is kept, the
    default one (Title Case of the slug) follows the new slug."""
    record = record or {}
    display = record.get("display")
    if not display or display == display_name(old):
        display = display_name(new)
    return {**record, "display": display, "type": record.get("type", DEFAULT_TYPE)}


def _needle(slug: str) -> bytes:
    return b'"' + slug.encode() + b'"'


def _entry_about(line: bytes, slug: str) -> dict | None:
    """The log line's entry if its subject is ``slug`` (a torn line never is)."""
    import orjson

    if _needle(slug) not in line:
        return None
    try:
        entry = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    return entry if isinstance(entry, dict) and entry.get("subject") == slug else None


def _with_subject(line: bytes, old: str, new: str) -> bytes:
    """The log line with subject ``new`` if its subject is ``old``; else the same object."""
    import orjson

    entry = _entry_about(line, old)
    if entry is None:
        return line
    entry["subject"] = new
    return orjson.dumps(entry) + (b"\n" if line.endswith(b"\n") else b"")


def _count_subject(slug: str) -> int:
    """How many log entries have ``slug`` as their subject."""
    from .log import Log

    return sum(1 for _, line in Log(paths.log_path()).grep(_needle(slug))
               if _entry_about(line, slug) is not None)


class Registry:
    """The registry as loaded; every mutation re-reads and writes under the directory lock."""

    def __init__(self, data: dict):
        self.data = data

    @classmethod
    def load(cls) -> Registry:
        return cls(_load_raw())

    def __contains__(self, slug: str) -> bool:
        return slug in self.data

    def items(self):
        return sorted(self.data.items())

    def add(self, slug: str, type: str | None = None, display: str | None = None) -> dict:
        check_new_slug(slug)
        if type is not None and not TYPE_RE.match(type):
            raise UsageError(f"{type!r} is not a valid subject type (e.g. project, person)")
        with dir_lock(paths.log_dir()):
            data = _load_raw()
            record = dict(data.get(slug) or {})
            record["display"] = display or record.get("display") or display_name(slug)
            record["type"] = type or record.get("type") or DEFAULT_TYPE
            data[slug] = record
            _save_raw(data)
            _clear_change(slug)
        self.data = data
        return record

    def ensure(self, slugs, type: str = DEFAULT_TYPE, *, locked: bool = False) -> list[str]:
        """Add every slug not yet known (Title Case display); returns the ones added."""
        import contextlib

        wanted = [s for s in dict.fromkeys(slugs) if s and is_slug(s) and not _secret_shaped(s)]
        with contextlib.nullcontext() if locked else dir_lock(paths.log_dir()):
            data = _load_raw()
            added = [s for s in wanted if s not in data]
            for slug in added:
                data[slug] = {"display": display_name(slug), "type": type}
            if added:
                _save_raw(data)
        self.data = data
        return added

    def plan_rename(self, old: str, new: str) -> dict:
        """What :meth:`rename` would change, changing nothing: ``{"old", "new", "merge",
        "before", "after", "entries"}`` (the registry records of ``old`` and of ``new``
        afterwards, and how many log entries' subject field would change)."""
        check_slug(old)
        check_new_slug(new)
        if old == new:
            raise UsageError("old and new slug are the same")
        data = _load_raw()
        entries = _count_subject(old)
        if old not in data and not entries:
            raise NotFoundError(f"no subject {old!r} in the registry or the log")
        return {"old": old, "new": new, "merge": new in data, "before": data.get(old),
                "after": data.get(new) or _renamed_record(data.get(old), old, new),
                "entries": entries}

    def plan_remove(self, slug: str) -> dict:
        """What :meth:`remove` would change: ``{"slug", "record", "entries"}`` (the record
        taken out of the registry; ``entries`` log entries keep the slug)."""
        check_slug(slug)
        data = _load_raw()
        if slug not in data:
            raise NotFoundError(f"no subject {slug!r} in the registry")
        return {"slug": slug, "record": data[slug], "entries": _count_subject(slug)}

    def rename(self, old: str, new: str) -> int:
        """Rename (or merge into an existing) subject; returns how many log lines changed.

        The display name a person set travels with the subject; one that was only the default
        Title Case of the old slug becomes the new slug's. Merging into an existing subject
        keeps that subject's record.
        """
        from .handoff import rewrite_log
        from .log import Log

        check_slug(old)
        check_new_slug(new)
        if old == new:
            raise UsageError("old and new slug are the same")
        needle = _needle(old)

        def transform(line: bytes) -> bytes:
            return _with_subject(line, old, new)

        def is_old(line: bytes) -> bool:
            return transform(line) is not line

        log = Log(paths.log_path())
        with dir_lock(paths.log_dir()):
            data = _load_raw()
            if old not in data and not any(is_old(line) for _, line in log.grep(needle)):
                raise NotFoundError(f"no subject {old!r} in the registry or the log")
            # registry first, log second, old slug last: a crash anywhere leaves a registry
            # that names every slug the log uses, and running the rename again finishes it
            if new not in data:
                data[new] = _renamed_record(data.get(old), old, new)
                _save_raw(data)
            _record_change(old, new)  # before the rewrite: writes from now on use `new`
            changed = rewrite_log(log, transform)
            if data.pop(old, None) is not None:
                _save_raw(data)
        self.data = data
        return changed

    def remove(self, slug: str) -> dict:
        check_slug(slug)
        with dir_lock(paths.log_dir()):
            data = _load_raw()
            if slug not in data:
                raise NotFoundError(f"no subject {slug!r} in the registry")
            record = data.pop(slug)
            _save_raw(data)
            _record_change(slug, None)
        self.data = data
        return record

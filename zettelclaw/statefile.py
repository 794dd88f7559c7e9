"""state.json as plain JSON, for the paths that read or change one section of it.

``vault build`` and ``brief`` touch one section each (``vault``, ``contradictions``). Going
through :class:`~zettelclaw.state.State` would import pydantic (about a start-up's worth of
time), validate every section and pass every text of the file through the redactor again on
save: work that grows with the history, not with what changed. Here the file is read with
orjson and written back (atomically, under the directory lock) with the other sections as they
were; only the section changed passes the redactor. A file that is not a JSON object goes to
:meth:`State.load <zettelclaw.state.State.load>` for its one clear error.
"""

from __future__ import annotations

import contextlib

from . import paths
from .errors import ZettelclawError

BOM = b"\xef\xbb\xbf"


def load() -> dict:
    """state.json as a dict ({} when there is none). Raises ZettelclawError (from
    ``State.load``) when it is not a JSON object."""
    import orjson

    from .fsutil import read_bytes

    raw = read_bytes(paths.state_path())
    if raw is None:
        return {}
    try:
        data = orjson.loads(raw.removeprefix(BOM).strip() or b"{}")
    except orjson.JSONDecodeError:
        data = None
    if not isinstance(data, dict) or not _model_shape(data):
        from .state import State

        State.load()  # raises the error that says what is wrong and what to do
        if not isinstance(data, dict):
            return {}
    return data


def _model_shape(data: dict) -> bool:
    """Whether the fields the state model types (``version``, ``extractedSessions``,
    ``failedSessions``) plainly have their types; when not, the model decides (and says what
    is wrong), as every other command's read would."""
    version = data.get("version", 1)
    if type(version) is not int:
        return False
    for name in ("extractedSessions", "failedSessions"):
        table = data.get(name, {})
        if not isinstance(table, dict) or not all(type(v) is dict for v in table.values()):
            return False
    return True


def known_key(session_id: str, key: str | None) -> str | None:
    """A session's key: ``key`` (what OpenClaw's session store says), else the one state.json
    recorded when the session was extracted or failed (a 2026.2 transcript that ``/new``
    rotated is no longer in the store), else None: not known."""
    if key is not None:
        return key
    try:
        data = load()
    except (OSError, ValueError, ZettelclawError):
        return None
    for name in ("extractedSessions", "failedSessions"):
        record = section(data, name).get(session_id)
        recorded = record.get("key") if isinstance(record, dict) else None
        if isinstance(recorded, str) and recorded.strip():
            return recorded
    return None


def section(data: dict, name: str) -> dict:
    """``data[name]`` when it is an object, else {}."""
    found = data.get(name)
    return found if isinstance(found, dict) else {}


@contextlib.contextmanager
def transaction(name: str, *, redact: bool = True):
    """Lock the directory, read state.json, yield its section ``name`` (a dict, created when
    missing) and write the file back atomically if no error: the other sections as they were,
    the section passed through the redactor (not with ``redact=False``: for a section of names
    that are already on disk elsewhere, such as the vault's file names)."""
    import orjson

    from .fsutil import atomic_write, dir_lock

    with dir_lock(paths.log_dir()):
        data = load()
        for key, empty in (("version", 1), ("extractedSessions", {}), ("failedSessions", {})):
            data.setdefault(key, empty)  # what State would write for a new file
        if not isinstance(data.get(name), dict):
            data[name] = {}
        yield data[name]
        if redact:
            from .redact import redact_data

            data[name] = redact_data(data[name])
        atomic_write(paths.state_path(), orjson.dumps(data, option=orjson.OPT_INDENT_2) + b"\n")

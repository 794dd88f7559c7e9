"""Numbers about the memory: entries by type and subject, sessions, model tokens."""

from __future__ import annotations

from collections import Counter

from . import paths
from .entries import TYPES


def collect(agents: frozenset[str] | None = None, default_agent: str = "main") -> dict:
    """The numbers; entries only of ``agents`` (None: every agent), sessions and tokens of
    all (state.json does not keep them apart)."""
    from .model import Usage
    from .resolve import Resolution
    from .state import State, count, waiting

    resolution = Resolution.of_log(agents=agents, default_agent=default_agent)
    # what was forgotten or purged is counted apart, not as entries
    entries = [e for e in resolution.entries if resolution.gone(e["id"]) is None]
    forgotten = sum(1 for r in resolution.records.values()
                    if r["type"] == "forget" and r["id"] not in resolution.undone
                    and r["replaces"] in resolution.by_id)
    purged = sum(1 for r in resolution.records.values() if "purged" in r)
    by_type = Counter(e["type"] for e in entries)
    # a hand-edited line may hold any JSON as its subject: only a slug names one
    by_subject = Counter(e["subject"] for e in entries
                         if isinstance(e.get("subject"), str) and e["subject"])
    from .people import origin_of, person_of

    # whose memory the current entries are, and where their words came from (docs/people.md)
    by_person = Counter(person_of(e) for e in resolution.current
                        if resolution.gone(e["id"]) is None)
    by_origin = Counter(origin_of(e) or "unmarked" for e in resolution.current
                        if resolution.gone(e["id"]) is None)
    open_tasks = sum(1 for e in resolution.current
                     if e["type"] == "task" and e.get("status") == "open")
    state = State.load()
    usage = state.section("usage")
    failed = state.failedSessions
    waits = waiting(state)
    data = {
        "log": str(paths.log_path()),
        "agents": "all" if agents is None else sorted(agents),
        "entries": {
            "total": len(entries),
            "current": len(resolution.current),
            "replaced": sum(1 for i in resolution.replaced_by
                            if i in resolution.by_id and resolution.gone(i) is None),
            "forgotten": forgotten,
            "purged": purged,
            "openTasks": open_tasks,
            "byType": {t: by_type.get(t, 0) for t in TYPES},
            "bySubject": dict(by_subject.most_common()),
            "byPerson": dict(by_person.most_common()),
            "byOrigin": {o: by_origin.get(o, 0)
                         for o in ("owner", "agent", "untrusted", "system", "unmarked")},
        },
        "sessions": {
            # conversations extracted since the install; the sessions whose records state.json
            # still keeps (older ones are pruned once a sweep covers them) apart
            "extracted": state.conversations_extracted(),
            "recorded": len(state.extractedSessions),
            "failed": len(failed),
            "permanentlyFailed": sum(1 for f in failed.values() if f.get("permanent")),
            "inProgress": len(state.section("claims")),
            "waitingForKey": waits["sessions"],
        },
        "history": {"installedAt": (state.__pydantic_extra__ or {}).get("installedAt"),
                    # what init found waiting for import (None: not known, an older init)
                    "foundAtInit": _found_at_init(state),
                    "importedSessions": len(state.section("imported"))},
        "tokens": {**Usage.from_dict(usage).as_dict(),
                   "extractions": count(usage.get("extractions")),
                   "briefings": count(usage.get("briefings"))},
    }
    if waits["sessions"]:
        data["waitingForKey"] = key_status(waits)
    from .purge import unfinished

    purging = unfinished()
    if purging is not None:
        data["unfinishedPurge"] = purging
    from .clock import format_ts
    from .sweep import ahead

    found = ahead()
    if found:  # a sweep ran while the clock was ahead: said, with what it means
        data["sweptAhead"] = {a: format_ts(t) for a, t in sorted(found.items())}
    return data


def _found_at_init(state) -> int | None:
    from .history import HISTORY_AT_INIT

    found = (state.__pydantic_extra__ or {}).get(HISTORY_AT_INIT)
    return found if type(found) is int and found >= 0 else None


def key_status(waits: dict) -> dict:
    """Sessions waiting for a model key, whether one is findable now, and what to do."""
    from .credentials import find, fix_text

    found = find()
    return {"sessions": waits["sessions"], "agents": waits["agents"], "since": waits["since"],
            "keyFound": str(found) if found else None,
            "fix": "run `zettelclaw sweep` to extract them now" if found else fix_text()}


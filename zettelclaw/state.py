"""The run's bookkeeping: ``state.json`` (design §4.1.1).

``extractedSessions`` and ``failedSessions`` keyed by OpenClaw sessionId, plus room for more
(token totals, judged contradiction pairs). Written atomically (temp file + rename); mutate it
inside :func:`transaction`, which holds the directory lock from read to write.

``sweptUpTo`` keeps what proves old sessions done in a form that stays small: one time per
agent, "every main session of this agent last updated at or before it was extracted to its end"
(or waits in ``failedSessions``, or is history left for ``import``), set by a whole sweep
(:func:`zettelclaw.sweep.sweep`). A record of ``extractedSessions`` is pruned after 30 days only
once its agent's ``sweptUpTo`` covers it (before that, once covered, it keeps only its time,
cursor, agent and session key): pruning never makes an old session look new, and a sweep
skips a session so covered without opening its transcript. Every other section has its own rule:
``failedSessions`` 30 days, ``claims`` with their process, ``pending`` with its append,
``waitingForKey`` with the sessions taken, judged ``contradictions`` with their entries.
"""

from __future__ import annotations

import contextlib
import json
from datetime import datetime, timedelta

from pydantic import BaseModel, ConfigDict, Field

from . import paths
from .clock import now as clock_now
from .clock import parse_ts
from .errors import ZettelclawError
from .fsutil import atomic_write, dir_lock, read_bytes

PRUNE_AFTER_DAYS = 30
# of a record sweptUpTo covers (its counts are in usage; its key says whose it was, when
# OpenClaw's store no longer does: statefile.known_key)
KEPT = ("at", "cursor", "agent", "key")
SWEPT = "sweptUpTo"


class State(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)

    version: int = 1
    extractedSessions: dict[str, dict] = Field(default_factory=dict)
    failedSessions: dict[str, dict] = Field(default_factory=dict)

    @classmethod
    def load(cls) -> State:
        path = paths.state_path()
        raw = read_bytes(path)
        if raw is None:
            return cls()
        try:
            data = json.loads(raw.decode("utf-8-sig") or "{}")
            return cls.model_validate(data)
        except ValueError as exc:  # also pydantic's ValidationError and UnicodeDecodeError
            first = (str(exc).splitlines() or [type(exc).__name__])[0]
            if hasattr(exc, "errors"):  # pydantic: say which field, not the whole report
                first = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'top level'}: {e['msg']}"
                                  for e in exc.errors()[:3])
            raise ZettelclawError(
                f"{path} is not valid state JSON ({first}); "
                "move it aside and run `zettelclaw sweep` to rebuild it") from None

    def save(self) -> None:
        import orjson  # ~20x faster than json's pure-Python indenting encoder

        from .redact import redact_data

        # every text in state.json (failure messages, pending entries, claims) passes the
        # redactor; extractedSessions, ids and counts written by code and the bulk of the
        # file, is skipped so a save stays cheap with thousands of sessions
        data = {key: value if key == "extractedSessions" else redact_data(value)
                for key, value in self.model_dump(mode="json").items()}
        body = orjson.dumps(data, option=orjson.OPT_INDENT_2) + b"\n"
        atomic_write(paths.state_path(), body)

    def section(self, name: str) -> dict:
        """A free-form top-level section (created empty when missing)."""
        extra = self.__pydantic_extra__
        if name not in extra or not isinstance(extra[name], dict):
            extra[name] = {}
        return extra[name]

    def conversations_extracted(self) -> int:
        """How many conversations extraction has taken (``usage.conversations``, one more at
        each one's commit), pruned records included; a state written before that count was
        kept: the conversations its records show."""
        usage = self.section("usage")
        if "conversations" in usage:
            return count(usage["conversations"])
        return sum(count(record.get("segments")) or 1
                   for record in self.extractedSessions.values() if isinstance(record, dict))

    def install_moment(self) -> datetime | None:
        """When ``zettelclaw init`` first installed zettelclaw (``installedAt``); None for a
        log used before init recorded it: then every conversation is taken as before."""
        return parse_ts((self.__pydantic_extra__ or {}).get("installedAt"))

    def swept_up_to(self) -> dict[str, str]:
        """agent id -> the time up to which a sweep proved its sessions done (``sweptUpTo``);
        never one later than now (:meth:`swept_ahead`)."""
        moment = clock_now()
        return {agent: stamp for agent, stamp in self._swept().items()
                if parse_ts(stamp) <= moment}

    def swept_ahead(self) -> dict[str, str]:
        """agent -> its ``sweptUpTo`` when that is later than now: written while the clock ran
        ahead, it proves nothing (left out of :meth:`swept_up_to`, set back by a sweep)."""
        moment = clock_now()
        return {agent: stamp for agent, stamp in self._swept().items()
                if parse_ts(stamp) > moment}

    def _swept(self) -> dict[str, str]:
        section = (self.__pydantic_extra__ or {}).get(SWEPT)
        if not isinstance(section, dict):
            return {}
        return {agent: stamp for agent, stamp in section.items()
                if isinstance(agent, str) and parse_ts(stamp) is not None}

    def prune(self, now: datetime | None = None, days: int = PRUNE_AFTER_DAYS) -> int:
        """Drop failures older than ``days``, and extraction records older than ``days`` that
        their agent's ``sweptUpTo`` covers (a held one stays); a covered record younger than
        that keeps only ``at``, its cursor (a 2026.9 session can go on) and its agent. Returns
        how many went."""
        cutoff = (now or clock_now()) - timedelta(days=days)
        removed = 0
        for key in [k for k, v in self.failedSessions.items() if _older(v.get("at"), cutoff)]:
            del self.failedSessions[key]
            removed += 1
        swept = self.swept_up_to()
        if not swept:
            return removed
        default = None
        for key, record in list(self.extractedSessions.items()):
            if not isinstance(record, dict) or record.get("held"):
                continue
            agent = record.get("agent")
            if not isinstance(agent, str) or not agent:
                default = default or paths.default_agent()
                agent = default
            horizon, at = parse_ts(swept.get(agent)), parse_ts(record.get("at"))
            if horizon is None or at is None or at > horizon:
                continue
            if at < cutoff:
                del self.extractedSessions[key]
                removed += 1
            elif len(record) > len(KEPT):  # covered: what shows it done and where it stands
                self.extractedSessions[key] = {k: record[k] for k in KEPT if k in record}
        return removed


def _older(stamp, cutoff: datetime) -> bool:
    moment = parse_ts(stamp)
    return moment is not None and moment < cutoff


@contextlib.contextmanager
def transaction():
    """Lock the log directory, load state, yield it, save it atomically if no error."""
    with dir_lock(paths.log_dir()):
        state = State.load()
        yield state
        state.save()


WAITING = "waitingForKey"


def mark_waiting(state: State, sessions: dict[str, str | None], moment: str, *,
                 ended: bool = False) -> None:
    """Sessions (sessionId -> agent) that could not be extracted for want of a model key: they
    wait, neither failed nor extracted, until a run with a key takes them. No secret here.
    ``ended``: a hook said their conversation ended at ``moment`` (kept as ``ended``): the
    sweep that takes them does not wait for it to settle as if it were still going on."""
    section = state.section(WAITING)
    table = section.get("sessions")
    if not isinstance(table, dict):
        table = section["sessions"] = {}
    for session_id, agent in sessions.items():
        record = table.get(session_id)
        if not isinstance(record, dict):
            record = table[session_id] = {"agent": agent, "since": moment}
        record["last"] = moment  # the latest run that found it due and no key
        if ended:
            record["ended"] = moment
    if not isinstance(section.get("since"), str):
        section["since"] = moment
    section["lastTry"] = moment


def clear_waiting(state: State, session_id: str) -> None:
    """A session extracted (or found complete) no longer waits; the section goes with the last."""
    section = state.__pydantic_extra__.get(WAITING)
    if not isinstance(section, dict):
        return
    table = section.get("sessions")
    if isinstance(table, dict):
        table.pop(session_id, None)
    if not table:
        del state.__pydantic_extra__[WAITING]


def waited_since(state: State) -> dict[str, str]:
    """sessionId -> the latest moment a run found it due and met no model key (a hook saying
    its conversation ended, a sweep), of the sessions waiting for a key: what was quiet
    since before then waited for the key, it was not going on."""
    section = state.__pydantic_extra__.get(WAITING)
    table = section.get("sessions") if isinstance(section, dict) else None
    if not isinstance(table, dict):
        return {}
    out = {}
    for sid, record in table.items():
        stamps = [record.get(k) for k in ("since", "last", "ended")] \
            if isinstance(record, dict) else []
        stamps = [s for s in stamps if isinstance(s, str) and parse_ts(s) is not None]
        if stamps:
            out[sid] = max(stamps, key=parse_ts)
    return out


def waiting(state: State) -> dict:
    """``{"sessions": n, "agents": [...], "since": ts|None, "ids": [...]}`` of the waiting ones."""
    section = state.__pydantic_extra__.get(WAITING)
    table = section.get("sessions") if isinstance(section, dict) else None
    table = table if isinstance(table, dict) else {}
    agents = sorted({r.get("agent") for r in table.values()
                     if isinstance(r, dict) and isinstance(r.get("agent"), str)})
    since = section.get("since") if isinstance(section, dict) and table else None
    return {"sessions": len(table), "agents": agents,
            "since": since if isinstance(since, str) else None, "ids": sorted(table)}


def count(value) -> int:
    """A counter read from state.json; 0 when a hand edit left something else there."""
    return value if type(value) is int and value >= 0 else 0

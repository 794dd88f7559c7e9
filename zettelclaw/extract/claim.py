"""The cross-process claim on a session (``state.json`` ``claims[sessionId]``).

Taken under the directory lock before any model call, so two triggers of the same session
(``before_reset`` and ``session_end`` at the same instant) extract it once: the second sees a
live claim and waits for it to go (polling, backoff up to 10 s, at most 15 minutes,
``$ZETTELCLAW_CLAIM_WAIT``), then extracts what lies beyond the cursor the first left. A claim
dies with its process (or after 2 hours). Every write of a session's progress checks the claim
in the same hold of the lock (:mod:`.bookkeeping`): a run that lost it writes nothing.
"""

from __future__ import annotations

import os
import socket
import time
from dataclasses import dataclass

from ..clock import format_ts, now, parse_ts
from ..errors import ZettelclawError
from .result import Result

CLAIM_TTL_SECONDS = 2 * 3600
CLAIM_WAIT_SECONDS = 15 * 60  # a trigger waits this long for another's claim to go
CLAIM_POLL_SECONDS = 0.25  # first wait for a claim, doubled up to the max
CLAIM_POLL_MAX_SECONDS = 10.0


def claim_is_live(claim: dict | None, moment=None) -> bool:
    if not isinstance(claim, dict):
        return False
    started = parse_ts(claim.get("at"))
    if started is None or ((moment or now()) - started).total_seconds() > CLAIM_TTL_SECONDS:
        return False
    if claim.get("host") == socket.gethostname() and isinstance(claim.get("pid"), int):
        from ..fsutil import pid_alive

        return pid_alive(claim["pid"])
    return True


def _claim_wait() -> float:
    raw = os.environ.get("ZETTELCLAW_CLAIM_WAIT")
    try:
        return max(0.0, float(raw)) if raw else CLAIM_WAIT_SECONDS
    except ValueError:
        return CLAIM_WAIT_SECONDS


def _check_claim(state, session_id: str, token: str) -> None:
    claim = state.section("claims").get(session_id)
    if not isinstance(claim, dict) or claim.get("token") != token:
        raise ZettelclawError(f"lost the claim on session {session_id} to another process")


def _drop_claim(state, session_id: str, token: str) -> None:
    claims = state.section("claims")
    claim = claims.get(session_id)
    if isinstance(claim, dict) and claim.get("token") == token:
        del claims[session_id]


@dataclass
class Start:
    """What state.json said of the session when the claim was taken (or, for a dry run, when
    it was read): where its cursor stands, the moment of install, a run's unfinished append."""

    cursor: dict | None
    installed: object  # datetime | None
    pending: dict | None


def peek(session_id: str, *, history: bool) -> Start:
    """A dry run takes no claim: it reads where the session stands."""
    from ..state import State
    from .cursor import imported_cursor

    state = State.load()
    installed = state.install_moment()
    cursor = (imported_cursor(state, session_id) if history else
              (state.extractedSessions.get(session_id) or {}).get("cursor"))
    return Start(cursor, installed, None)


def take(session_id: str, token: str, *, reason: str | None, history: bool,
         retry_failed: bool, wait_seconds: float | None) -> Start | Result:
    """Claim the session for ``token``, waiting for another live claim to go; a Result when
    standing down (failed for good, or still claimed when the wait ran out)."""
    from ..state import transaction
    from .cursor import imported_cursor

    # Another trigger of the same session (before_reset and session_end fire together)
    # holds the claim: wait for it to finish, then extract what lies beyond the cursor
    # it leaves (usually nothing), so neither leaves the conversation for the next sweep.
    budget = _claim_wait() if wait_seconds is None else wait_seconds
    deadline = time.monotonic() + max(0.0, budget)
    delay = CLAIM_POLL_SECONDS
    while True:
        with transaction() as state:
            failed = state.failedSessions.get(session_id)
            if failed and bool(failed.get("history")) != history:
                failed = None  # the import's failure is not the hooks' and vice versa
            claims = state.section("claims")
            if failed and failed.get("permanent") and not retry_failed:
                return Result(session_id, "skipped",
                              f"skipped {session_id}: extraction failed for good "
                              f"({failed.get('error')}); `zettelclaw sweep "
                              "--retry-failed` tries again")
            holder = claims.get(session_id)
            if not claim_is_live(holder):
                claims[session_id] = {"token": token, "pid": os.getpid(),
                                      "host": socket.gethostname(),
                                      "at": format_ts(now()), "reason": reason}
                pending = state.section("pending").get(session_id)
                record = state.extractedSessions.get(session_id) or {}
                installed = state.install_moment()
                cursor = (imported_cursor(state, session_id) if history
                          else record.get("cursor"))
                return Start(cursor, installed, pending)
        left = deadline - time.monotonic()
        if left <= 0:
            return Result(session_id, "busy", f"skipped {session_id}: being extracted "
                                              f"by another process (pid "
                                              f"{holder.get('pid')})")
        time.sleep(min(delay, left))
        delay = min(delay * 2, CLAIM_POLL_MAX_SECONDS)

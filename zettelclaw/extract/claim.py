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

from ..clock import now, parse_ts
from ..errors import ZettelclawError

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


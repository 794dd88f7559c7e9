"""A sweep's horizon, handed to the listing: the sessions an agent's ``sweptUpTo`` already
proves done are counted, not listed.

:func:`zettelclaw.sweep.plan` skips, without reading it, every session last updated at or
before its agent's ``sweptUpTo`` unless the session waits in ``failedSessions`` or its record
is ``held``; such a session cannot move ``sweptUpTo`` either (it is done, and no later than
it). At a year's history that is nearly every session, and building each one's
:class:`~.shapes.SessionRef` (on 2026.2 a ``Path``, a regex match and a sort per file, a stat
per live transcript; on 2026.9 a datetime, after grouping every event of the history) cost more
than the rest of a quiet night. Told the horizon, the listing counts the sessions whose last
update is at or before it, proved the way the listing itself would date them: on 2026.2 from
the rotated files' names alone (:func:`.jsonl._covered`), on 2026.9 from the database's
milliseconds (:func:`.sqlite._uncovered`); it lists the others as it always has.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass
class Horizon:
    """What a sweep knows before listing: each agent's ``sweptUpTo`` (``swept``) and the
    sessions it does not settle (``unsettled``: failures and held records, planned by their own
    rules). ``covered`` counts the sessions the listing left out because the horizon covers
    them."""

    swept: dict[str, datetime]
    unsettled: set[str]
    covered: int = 0

    def of(self, agent_id: str) -> datetime | None:
        """The agent's ``sweptUpTo``, None when no sweep has proved anything of it."""
        return self.swept.get(agent_id)

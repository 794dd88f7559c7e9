"""Time as the log writes it: UTC ISO 8601 with a ``Z``, second precision.

:func:`now` is the one source of "now" for every command (extraction's settle time and
bookkeeping, state pruning, ``--since 7d``, the briefing's windows, the vault's days).
``ZETTELCLAW_NOW`` (an ISO time; naive means UTC) fixes it: a seam for tests and for the year
benchmark (``bench/year.py``), which runs the real CLI night after night on a simulated clock.
Only an OAuth token's expiry (:mod:`zettelclaw.credentials`) keeps the wall clock: that
token lives in the real world.
"""

from __future__ import annotations

# datetime is imported where used: the per-prompt handoff needs only is_plain
TYPE_CHECKING = False
if TYPE_CHECKING:
    from datetime import datetime


NOW_ENV = "ZETTELCLAW_NOW"


def now() -> datetime:
    """The current moment (UTC), or ``ZETTELCLAW_NOW``'s when it is set; a value that is not
    an ISO time is an error, never a silent fall back to the wall clock."""
    import os
    from datetime import datetime, timezone

    fixed = os.environ.get(NOW_ENV)
    if fixed:
        moment = parse_ts(fixed.strip())
        if moment is None:
            from .errors import UsageError

            raise UsageError(f"{NOW_ENV}={fixed!r} is not an ISO time (2026-02-20T09:00:00Z)")
        return moment
    return datetime.now(timezone.utc)


def format_ts(moment: datetime) -> str:
    from datetime import timezone

    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    m = moment.astimezone(timezone.utc)
    return f"{format_day(m)}T{m.hour:02d}:{m.minute:02d}:{m.second:02d}Z"


def format_day(moment: datetime) -> str:
    """``YYYY-MM-DD`` of ``moment`` as it is; not strftime, whose ``%Y`` gives "999" for the
    year 999."""
    return f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d}"


def days_before(moment: datetime, days: float) -> datetime:
    """``days`` before ``moment``, or the first moment there is (``--now 0001-01-01``)."""
    from datetime import datetime, timedelta, timezone

    try:
        return moment - timedelta(days=days)
    except OverflowError:
        return datetime.min.replace(tzinfo=moment.tzinfo or timezone.utc)


def parse_ts(value) -> datetime | None:
    """A timezone-aware datetime from an ISO string (naive means UTC), or None."""
    if not isinstance(value, str):
        return None
    from datetime import datetime, timezone

    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return within_years(moment) if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def within_years(moment: datetime) -> datetime:
    """``moment`` as it is, or, when its offset takes it out of the years 1-9999 in UTC
    (``9999-12-31T23:59:59-12:00``, ``0001-01-01T00:00:00+14:00``), the last or first moment
    there is: every reader converts to UTC, and the line is answered, not a crash."""
    from datetime import datetime, timezone

    try:
        moment.astimezone(timezone.utc)
    except OverflowError:
        edge = datetime.max if moment.year > 1 else datetime.min
        return edge.replace(tzinfo=timezone.utc)
    return moment


_DIGITS = (0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18)


def is_plain(value) -> bool:
    """Whether ``value`` is the log's own form ``YYYY-MM-DDTHH:MM:SSZ`` naming a real moment,
    checked without parsing, ``re`` or ``datetime`` (the per-prompt handoff and recall sort by
    it): a hand-written ``9999-99-99T99:99:99Z`` is not, and must not sort as the newest entry
    forever."""
    return (type(value) is str and len(value) == 20 and value[4] == "-" and value[7] == "-"
            and value[10] == "T" and value[13] == ":" and value[16] == ":" and value[19] == "Z"
            and all("0" <= value[i] <= "9" for i in _DIGITS)
            and "01" <= value[5:7] <= "12" and "01" <= value[8:10] <= _last_day(value)
            and value[11:13] <= "23" and value[14:16] <= "59" and value[17:19] <= "59")


_MONTH_DAYS = ("31", "28", "31", "30", "31", "30", "31", "31", "30", "31", "30", "31")


def _last_day(value: str) -> str:
    """The last day of the month of ``value`` (``YYYY-MM...``, digits checked), as two digits;
    "00" (no day) for the year 0, which datetime does not have."""
    year, month = int(value[:4]), int(value[5:7])
    if not year:
        return "00"
    if month == 2 and year % 4 == 0 and (year % 100 != 0 or year % 400 == 0):
        return "29"
    return _MONTH_DAYS[month - 1] if 1 <= month <= 12 else "00"


def sort_key(value) -> str:
    """A timestamp as a string that sorts in time order (``YYYY-MM-DDTHH:MM:SSZ``); "" (before
    everything) when unreadable. The log's own form is returned as is, without parsing."""
    if is_plain(value):
        return value
    moment = parse_ts(value)
    return format_ts(moment) if moment is not None else ""


# the earliest plain key: what an entry dated after now with nothing before it is dated as
EARLIEST = "0001-01-01T00:00:00Z"


def now_key() -> str:
    """:func:`now` as a plain key (``YYYY-MM-DDTHH:MM:SSZ``), without importing datetime
    unless ``ZETTELCLAW_NOW`` is set: the per-prompt handoff compares with it."""
    import os

    if os.environ.get(NOW_ENV):
        return format_ts(now())
    import time

    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


class Dating:
    """Entries' times for ordering and windows, fed in log order (sortable keys).

    An entry cannot be dated after the moment it was written, and it was written before now:
    one dated after now was written while the clock ran ahead (then set right). Its date is a
    clock error, so it is taken as dated with the latest time not after now among the lines
    before it in the log (it was appended after them, so written after them): it sorts just
    after them, never ahead of what was said since the clock was set right, and is neither
    the newest handoff nor recent nor untouched-in-the-future for weeks. ``ahead`` counts
    them; ``first`` is the earliest such date (from then on, it is no longer after now)."""

    def __init__(self, now: str | None = None, latest: str = EARLIEST):
        self.now = now if now is not None else now_key()
        self.latest = latest
        self.ahead = 0
        self.first: str | None = None

    def __call__(self, key: str | None) -> str | None:
        if not key:
            return key
        if key > self.now:
            self.ahead += 1
            self.first = key if self.first is None else min(self.first, key)
            return self.latest
        if key > self.latest:
            self.latest = key
        return key

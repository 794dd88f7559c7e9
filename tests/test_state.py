"""state.json: atomic, room for more, pruned after 30 days once a sweep proved it safe."""

from __future__ import annotations

import json
import os
import stat
from datetime import datetime, timezone

from zettelclaw.state import State, transaction


def test_state_round_trips_and_keeps_unknown_sections(log_dir):
    with transaction() as state:
        state.extractedSessions["abc"] = {"at": "2026-02-20T15:30:00Z", "entries": 7}
        state.section("tokens")["input"] = 120
    data = json.loads((log_dir / "state.json").read_text())
    assert data["extractedSessions"]["abc"]["entries"] == 7
    assert data["tokens"] == {"input": 120}
    assert stat.S_IMODE(os.stat(log_dir / "state.json").st_mode) == 0o600
    assert State.load().section("tokens") == {"input": 120}


def test_prune_drops_records_older_than_30_days_that_a_sweep_covers(log_dir):
    state = State(extractedSessions={
        "old": {"at": "2026-01-01T00:00:00Z", "agent": "main"},
        "new": {"at": "2026-02-25T00:00:00Z", "agent": "main"},
        "old-uncovered": {"at": "2026-01-20T00:00:00Z", "agent": "main"},
        "old-other-agent": {"at": "2026-01-01T00:00:00Z", "agent": "work"}},
        failedSessions={"older": {"at": "2025-12-01T00:00:00Z", "retries": 1}},
        sweptUpTo={"main": "2026-01-10T00:00:00Z"})
    removed = state.prune(now=datetime(2026, 3, 1, tzinfo=timezone.utc))
    assert removed == 2
    # what no sweep proved done keeps its record: pruning never makes a session look new
    assert list(state.extractedSessions) == ["new", "old-uncovered", "old-other-agent"]
    assert state.failedSessions == {}


def test_a_failed_write_leaves_the_old_state(log_dir):
    with transaction() as state:
        state.extractedSessions["a"] = {"at": "2026-02-20T00:00:00Z"}
    try:
        with transaction() as state:
            state.extractedSessions["b"] = {"at": "2026-02-20T00:00:00Z"}
            raise RuntimeError("crash mid-way")
    except RuntimeError:
        pass
    assert list(State.load().extractedSessions) == ["a"]
    assert [p.name for p in log_dir.iterdir() if p.name.endswith(".tmp")] == []


def test_corrupt_state_is_a_clear_error(log_dir, cli):
    log_dir.mkdir(parents=True)
    (log_dir / "state.json").write_text("{not json")
    import pytest

    from zettelclaw.errors import ZettelclawError

    with pytest.raises(ZettelclawError, match="state.json is not valid"):
        State.load()

"""A pytest plugin (loaded by tests/conftest.py): under ``-q`` each end-to-end test is named as
it starts. They run first in `make test` and take minutes each in a real OpenClaw; a row of
dots says nothing of what is going on, a line per test says which one runs."""

from __future__ import annotations

import pytest

_E2E: set[str] = set()  # the node ids of the end-to-end tests collected
_CONFIG: list = []


def pytest_configure(config) -> None:
    _CONFIG[:] = [config]


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items) -> None:
    _E2E.clear()
    _E2E.update(item.nodeid for item in items if item.get_closest_marker("e2e"))


def pytest_runtest_logstart(nodeid: str, location) -> None:
    if nodeid not in _E2E or not _CONFIG:
        return
    reporter = _CONFIG[0].pluginmanager.get_plugin("terminalreporter")
    if reporter is None or reporter.verbosity > 0:  # -v names every test already
        return
    if reporter._tw.width_of_current_line:  # after the dots of -q, on a line of its own
        reporter._tw.line()
    reporter.write_line(f"end-to-end: {nodeid} (a real OpenClaw: minutes) ...")

"""One kind of input, one answer (issue 23 §7): a bad subject slug is a usage error (exit 2)
whether it is forgotten or purged; an unknown session is not found (exit 1) as an unknown id
is; an argument echoed in an ``Error:`` line is cut, not printed whole."""

from __future__ import annotations

import pytest

from tests.conftest import DESIGN_LINES, write_log


@pytest.mark.parametrize("command", ["forget", "purge"])
def test_a_bad_subject_slug_is_a_usage_error_for_forget_and_purge(command, log_dir, cli):
    write_log(log_dir, DESIGN_LINES)
    result = cli(command, "--subject", "Bad Slug!", "--yes")
    assert result.exit_code == 2
    assert result.stderr.startswith("Error: 'Bad Slug!' is not a valid subject slug")


def test_forget_of_an_unknown_session_is_not_found_as_an_unknown_id_is(log_dir, cli):
    write_log(log_dir, DESIGN_LINES)
    unknown_id = cli("forget", "NoSuchEntry1", "--yes")
    unknown_session = cli("forget", "--session", "no-such-session", "--yes")
    assert (unknown_id.exit_code, unknown_session.exit_code) == (1, 1)
    assert unknown_session.stderr == "Error: no entries of session no-such-session\n"
    assert cli("forget", "--session", "abc12345", "--dry-run").exit_code == 0  # a known one


@pytest.mark.parametrize("args", [("get", "{big}"), ("forget", "{big}", "--yes"),
                                  ("search", "--subject", "{big}"), ("log", "--agent", "{big}")])
def test_a_100000_character_argument_makes_a_short_error_line(args, log_dir, cli, zc):
    write_log(log_dir, DESIGN_LINES)
    big = "x" * 100_000
    argv = [a.replace("{big}", big) for a in args]
    for result in (cli(*argv), zc(*argv)):  # in process, and the hot path's own printer
        stderr = result.stderr if isinstance(result.stderr, str) else result.stderr.decode()
        [line] = [x for x in stderr.splitlines() if x.startswith("Error:")]
        assert len(line) < 300, line[:300]
        assert "(100000 characters)" in line or "(100002 characters)" in line  # ('quoted')

"""A log directory on a filesystem that refuses ``flock`` (a network share: NFS without lockd
says "No locks available", some FUSE and SMB mounts "Operation not supported"), issue 41 §2:
every write is still refused, with the directory that could not be locked and what to do, and
``doctor`` finds it before a write does."""

from __future__ import annotations

import errno
import fcntl
import os

import orjson
import pytest

from tests.conftest import DESIGN_LINES, write_log


@pytest.fixture(params=[errno.ENOLCK, errno.EOPNOTSUPP], ids=["ENOLCK", "EOPNOTSUPP"])
def no_locks(request, monkeypatch):
    """flock refused the way such a filesystem refuses it."""
    monkeypatch.setattr(fcntl, "flock", _refusing(request.param))
    return os.strerror(request.param)


def test_a_write_without_file_locks_names_the_directory_and_how_to_move_it(
        cli, log_dir, no_locks):
    write_log(log_dir, DESIGN_LINES)
    before = (log_dir / "log.jsonl").read_bytes()

    result = cli("write", "fact", "Staging runs Postgres 16")

    assert result.exit_code == 1
    [line] = result.stderr.splitlines()
    assert line.startswith(f"Error: cannot lock the log directory {log_dir}: its filesystem "
                           f"refuses file locks ({no_locks}; a network share?)"), line
    assert "Move the log directory to a local disk" in line
    assert "plugins.entries.zettelclaw.config.logDir" in line and "ZETTELCLAW_HOME" in line
    assert (log_dir / "log.jsonl").read_bytes() == before  # refused, nothing written


def test_forget_without_file_locks_says_the_same(cli, log_dir, no_locks):
    write_log(log_dir, DESIGN_LINES)
    result = cli("forget", "Ht4vL_9qRx2D", "--yes")
    assert result.exit_code == 1
    assert "cannot lock the log directory" in result.stderr


@pytest.mark.parametrize("code", [errno.ENOLCK, errno.EOPNOTSUPP], ids=["ENOLCK", "EOPNOTSUPP"])
def test_doctor_says_the_log_directory_cannot_be_locked(cli, log_dir, zc_env, monkeypatch,
                                                        code):
    _installed(cli, log_dir)
    monkeypatch.setattr(fcntl, "flock", _refusing(code))

    result = cli("doctor", "--json")

    [check] = [c for c in orjson.loads(result.stdout)["checks"] if c["name"] == "log directory"]
    assert check["status"] == "fail"
    assert f"{log_dir} cannot be locked ({os.strerror(code)}; a network share?)" \
        in check["detail"]
    assert "plugins.entries.zettelclaw.config.logDir" in check["fix"]


def test_doctor_finds_a_local_log_directory_lockable(cli, log_dir, zc_env):
    _installed(cli, log_dir)
    result = cli("doctor", "--json")
    [check] = [c for c in orjson.loads(result.stdout)["checks"] if c["name"] == "log directory"]
    assert check["status"] == "ok", check


def _installed(cli, log_dir):
    """The log directory as init leaves it: the log, subjects.json and state.json, private."""
    cli("write", "fact", "Staging runs Postgres 16")
    for name in ("subjects.json", "state.json"):
        if not (log_dir / name).exists():
            (log_dir / name).write_text("{}")
            (log_dir / name).chmod(0o600)


def _refusing(code: int):
    def refuse(fd, operation):
        raise OSError(code, os.strerror(code))

    return refuse

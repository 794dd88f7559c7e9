"""Every file is what it seems: log.jsonl, subjects.json, state.json and MEMORY.md are read and
written only when they are regular files, never through a symlink, never waiting on a FIFO;
the log directory is one absolute path whoever resolves it."""

from __future__ import annotations

import json
import os
import stat

import pytest

from tests.conftest import DESIGN_LINES, write_log

STATE_FILES = ("log.jsonl", "subjects.json", "state.json")
# commands that read (r) or write (w) each file
COMMANDS = {
    "log.jsonl": [("log",), ("search", "webhook", "--json"), ("handoff",), ("stats",),
                  ("write", "fact", "a new fact"), ("purge", "a3k9x_BmQ2yT", "--yes"),
                  ("export",)],
    "subjects.json": [("subjects", "list"), ("subjects", "add", "billing")],
    "state.json": [("stats",), ("handoff",), ("purge", "--match", "webhook", "--yes")],
}


def _one_error(result, path) -> None:
    assert result.returncode == 1, (result.stdout, result.stderr)
    lines = result.stderr.decode().splitlines()
    assert len([line for line in lines if line.startswith("Error:")]) == 1, lines
    assert "Traceback" not in result.stderr.decode()
    assert str(path) in result.stderr.decode()


@pytest.mark.parametrize("name,args", [(n, a) for n in STATE_FILES for a in COMMANDS[n]])
def test_a_symlinked_state_file_is_refused_and_its_target_untouched(name, args, log_dir,
                                                                    tmp_path, zc):
    write_log(log_dir, DESIGN_LINES)
    (log_dir / "subjects.json").write_text('{"auth-migration": {"display": "A", "type": "p"}}')
    (log_dir / "state.json").write_text("{}")
    target = tmp_path / "bashrc"
    original = (log_dir / name).read_bytes()
    target.write_bytes(original)
    target.chmod(0o644)
    (log_dir / name).unlink()
    (log_dir / name).symlink_to(target)

    result = zc(*args)

    _one_error(result, log_dir / name)
    assert target.read_bytes() == original
    assert stat.S_IMODE(target.stat().st_mode) == 0o644
    assert (log_dir / name).is_symlink()


@pytest.mark.parametrize("name,args", [(n, a) for n in STATE_FILES for a in COMMANDS[n]])
def test_a_fifo_in_place_of_a_state_file_is_refused_not_waited_on(name, args, log_dir, zc):
    write_log(log_dir, DESIGN_LINES)
    (log_dir / "state.json").write_text("{}")
    (log_dir / name).unlink(missing_ok=True)
    os.mkfifo(log_dir / name)

    result = zc(*args)  # a hang would end in the subprocess timeout, failing the test

    _one_error(result, log_dir / name)
    assert "FIFO" in result.stderr.decode()


def test_subjects_rename_with_a_fifo_log_ends_and_releases_the_lock(log_dir, zc):
    write_log(log_dir, [])
    (log_dir / "subjects.json").write_text('{"old": {"display": "Old", "type": "project"}}')
    (log_dir / "log.jsonl").unlink()
    os.mkfifo(log_dir / "log.jsonl")

    _one_error(zc("subjects", "rename", "old", "new", "--yes"), log_dir / "log.jsonl")
    # the lock is free again: another write goes through
    assert zc("subjects", "add", "other").returncode == 0


def test_a_directory_in_place_of_the_log_is_one_error(log_dir, cli):
    (log_dir / "log.jsonl").mkdir(parents=True)

    result = cli("log")

    assert result.exit_code == 1
    assert "log.jsonl is a directory" in result.stderr


def test_a_missing_file_still_means_empty(cli, log_dir):
    assert cli("log").exit_code == 0
    assert cli("subjects", "list").exit_code == 0
    assert cli("stats").exit_code == 0


@pytest.mark.parametrize("name", [".env", "openclaw.json"])
def test_a_fifo_among_openclaws_files_is_not_waited_on(name, zc_env, log_dir, zc):
    """OpenClaw's .env and config are read by doctor, sweep and every extract."""
    write_log(log_dir, DESIGN_LINES)
    (zc_env["state"] / name).unlink(missing_ok=True)
    os.mkfifo(zc_env["state"] / name)
    no_key = {"ANTHROPIC_API_KEY": "", "ANTHROPIC_AUTH_TOKEN": ""}
    for args in (("doctor", "--json"), ("sweep",), ("extract", "--session-id", "abc12345")):
        result = zc(*args, env=no_key)  # a hang would end in the subprocess timeout
        assert "Traceback" not in result.stderr.decode(), (args, result.stderr)
        assert result.returncode in (0, 1, 2), (args, result.stderr)


def test_a_symlinked_env_file_is_read_as_openclaw_reads_it_and_a_latin1_byte_spoils_one_line(
        zc_env, tmp_path, zc):
    dotfiles = tmp_path / "dotfiles.env"
    dotfiles.write_bytes(b"# caf\xe9 notes (Latin-1)\nANTHROPIC_API_KEY=sk-ant-api03-test-key\n")
    (zc_env["state"] / ".env").symlink_to(dotfiles)
    doctor = json.loads(zc("doctor", "--json", env={"ANTHROPIC_API_KEY": ""}).stdout)
    key = next(c for c in doctor["checks"] if c["name"] == "model key")
    assert key["status"] == "ok" and ".env" in key["detail"], key


# -- one absolute log directory ----------------------------------------------------------------


def test_a_relative_zettelclaw_home_is_one_absolute_directory(tmp_path, monkeypatch, zc):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ZETTELCLAW_HOME", "rel/memory")

    paths = json.loads(zc("paths", "--json").stdout)
    assert zc("write", "fact", "written from here").returncode == 0

    assert paths["logDir"] == str(tmp_path / "rel" / "memory")
    assert (tmp_path / "rel" / "memory" / "log.jsonl").read_text().count("\n") == 1


def test_a_relative_logdir_is_taken_from_the_config_files_directory(zc_env, tmp_path,
                                                                   monkeypatch, zc):
    monkeypatch.delenv("ZETTELCLAW_HOME")
    config = zc_env["state"] / "openclaw.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(json.dumps(
        {"plugins": {"entries": {"zettelclaw": {"config": {"logDir": "memlog"}}}}}))
    monkeypatch.chdir(tmp_path)

    paths = json.loads(zc("paths", "--json").stdout)

    assert paths["logDir"] == str(zc_env["state"] / "memlog")


def test_paths_are_always_absolute(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = cli("--home", "h", "--workspace", "w", "paths", "--json")
    paths = json.loads(result.stdout)
    assert all(os.path.isabs(p) for key, p in paths.items() if key != "defaultAgent"), paths

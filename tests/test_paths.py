"""Paths resolve in one place, at call time, in the documented order."""

from __future__ import annotations

import orjson

from zettelclaw import paths


def test_defaults_follow_openclaw_state_dir(zc_env, monkeypatch):
    monkeypatch.delenv("ZETTELCLAW_HOME")
    monkeypatch.delenv("OPENCLAW_WORKSPACE_DIR")
    assert paths.log_dir() == zc_env["state"] / "zettelclaw"
    assert paths.workspace_dir() == zc_env["state"] / "workspace"


def test_home_defaults_when_nothing_is_set(zc_env, monkeypatch):
    for var in ("ZETTELCLAW_HOME", "OPENCLAW_WORKSPACE_DIR", "OPENCLAW_STATE_DIR",
                "OPENCLAW_CONFIG_PATH"):
        monkeypatch.delenv(var)
    assert paths.log_dir() == zc_env["home"] / ".openclaw" / "zettelclaw"
    assert paths.openclaw_config_path() == zc_env["home"] / ".openclaw" / "openclaw.json"


def test_json5_config_supplies_log_dir_and_workspace(zc_env, monkeypatch, tmp_path):
    monkeypatch.delenv("ZETTELCLAW_HOME")
    monkeypatch.delenv("OPENCLAW_WORKSPACE_DIR")
    (zc_env["state"] / "openclaw.json").write_text(f"""{{
      // JSON5: comments, trailing commas, unquoted keys
      agents: {{ defaults: {{ workspace: "{tmp_path}/ws", }}, }},
      plugins: {{ entries: {{ zettelclaw: {{ config: {{ logDir: "{tmp_path}/logs" }} }} }} }},
    }}""")
    assert paths.log_dir() == tmp_path / "logs"
    assert paths.workspace_dir() == tmp_path / "ws"


def test_env_beats_config_and_cli_options_beat_env(zc_env, cli, tmp_path):
    result = cli("--home", str(tmp_path / "h"), "--workspace", str(tmp_path / "w"),
                 "paths", "--json")
    data = orjson.loads(result.stdout)
    assert data["logDir"] == str(tmp_path / "h")
    assert data["log"] == str(tmp_path / "h" / "log.jsonl")
    assert data["memory"] == str(tmp_path / "w" / "MEMORY.md")


def test_broken_config_is_a_one_line_error(zc_env, cli, monkeypatch):
    monkeypatch.delenv("ZETTELCLAW_HOME")
    (zc_env["state"] / "openclaw.json").write_text("{ nope: ")
    result = cli("paths")
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: cannot read OpenClaw config")

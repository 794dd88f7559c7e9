"""`zettelclaw init`, `init --undo` and `doctor` against a stand-in openclaw CLI.

The stand-in keeps what the real 2026.2.22 and 2026.9.6 CLIs do with the calls init makes
(the e2e test runs the real one); these tests check what init asks for, in which version's
dialect, and what a user sees.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import json5
import pytest

import zettelclaw.openclaw as oc
from zettelclaw.openclaw import installer as oc_installer

FAKE = Path(__file__).with_name("fake_openclaw.py")
SKILL_TEXT = "---\nname: zettelclaw\ndescription: memory\n---\n# Zettelclaw memory\n"


@pytest.fixture
def shipped(tmp_path, monkeypatch):
    """The plugin folder and SKILL.md this install ships (stand-ins, owned by this test)."""
    plugin = tmp_path / "pkg" / "openclaw-plugin"
    plugin.mkdir(parents=True)
    (plugin / "openclaw.plugin.json").write_text('{"id":"zettelclaw","configSchema":{}}')
    skill = tmp_path / "pkg" / "skill" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text(SKILL_TEXT)
    monkeypatch.setattr(oc_installer, "_plugin_dir", lambda: plugin)
    monkeypatch.setattr(oc_installer, "_skill_src", lambda: skill)
    return {"plugin": plugin, "skill": skill}


@pytest.fixture
def openclaw(tmp_path, monkeypatch, shipped):
    """A fake `openclaw` on OPENCLAW_BIN; returns a helper to read the calls it received."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    exe = bindir / "openclaw"
    exe.write_text(f"#!/bin/sh\nexec {sys.executable} {FAKE} \"$@\"\n")
    exe.chmod(0o755)
    calls = tmp_path / "openclaw-calls.jsonl"
    monkeypatch.setenv("OPENCLAW_BIN", str(exe))
    monkeypatch.setenv("FAKE_OPENCLAW_LOG", str(calls))
    monkeypatch.setenv("TZ", "Europe/Berlin")

    class Calls:
        def all(self) -> list[list[str]]:
            if not calls.exists():
                return []
            return [json.loads(line) for line in calls.read_text().splitlines()]

        def writes(self) -> list[list[str]]:
            return [c for c in self.all() if c[:2] in (
                ["config", "set"], ["config", "unset"], ["plugins", "install"],
                ["plugins", "uninstall"], ["cron", "add"], ["cron", "rm"],
                ["approvals", "allowlist"])]

        def clear(self) -> None:
            calls.unlink(missing_ok=True)

    return Calls()


def config(zc_env) -> dict:
    return json5.loads((zc_env["state"] / "openclaw.json").read_text())


def dig(data, dotted):
    for key in dotted.split("."):
        data = data[key]
    return data


def test_dry_run_lists_every_change_and_changes_nothing(cli, openclaw, zc_env):
    cfg = zc_env["state"] / "openclaw.json"
    cfg.write_text('{"agents": {"defaults": {"workspace": "~/.openclaw/workspace"}}}\n')
    before = cfg.read_bytes()

    result = cli("init", "--dry-run")

    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert "Dry run" in out
    for expected in ("log directory", "log.jsonl", "subjects.json", "state.json",
                     "openclaw plugins install --link", "--accept-capabilities",
                     "set plugins.slots.memory = \"zettelclaw\"",
                     "plugins.entries.zettelclaw.hooks.allowConversationAccess = true",
                     "agents.defaults.compaction.memoryFlush.enabled = false",
                     "hooks.internal.entries.session-memory.enabled = false",
                     "plugins.entries.zettelclaw.config.cron.timezone = \"Europe/Berlin\"",
                     "SKILL.md", "briefing markers", "zettelclaw-briefing"):
        assert expected in out, expected
    assert cfg.read_bytes() == before
    assert not zc_env["log_dir"].exists()
    assert not (zc_env["workspace"] / "MEMORY.md").exists()
    assert openclaw.writes() == []


def test_init_on_2026_9(cli, openclaw, zc_env, shipped):
    memory = zc_env["workspace"] / "MEMORY.md"
    memory.write_bytes(b"## Goals\r\n- ship it")  # no final newline, CRLF: kept as is

    result = cli("init")

    assert result.exit_code == 0, result.stderr
    cfg = config(zc_env)
    assert dig(cfg, "plugins.slots.memory") == "zettelclaw"
    assert dig(cfg, "plugins.entries.zettelclaw.enabled") is True
    assert dig(cfg, "plugins.entries.zettelclaw.hooks.allowConversationAccess") is True
    assert dig(cfg, "agents.defaults.compaction.memoryFlush.enabled") is False
    assert dig(cfg, "hooks.internal.entries.session-memory.enabled") is False
    plugin_config = dig(cfg, "plugins.entries.zettelclaw.config")
    assert plugin_config["logDir"] == "~/.openclaw/zettelclaw"
    assert plugin_config["cron"] == {"schedule": "0 3 * * *", "timezone": "Europe/Berlin"}
    assert os.path.isabs(plugin_config["command"])
    assert dig(cfg, "plugins.load.paths") == [str(shipped["plugin"])]

    installs = [c for c in openclaw.writes() if c[:2] == ["plugins", "install"]]
    assert installs == [["plugins", "install", "--link", str(shipped["plugin"]), "--force",
                         "--accept-capabilities"]]
    sets = [c for c in openclaw.writes() if c[:2] == ["config", "set"]]
    assert len(sets) == 1 and sets[0][2] == "--batch-json"  # one validated write

    log_dir = zc_env["log_dir"]
    assert stat.S_IMODE(log_dir.stat().st_mode) == 0o700
    for name in ("log.jsonl", "subjects.json", "state.json"):
        assert stat.S_IMODE((log_dir / name).stat().st_mode) == 0o600
    assert json.loads((log_dir / "state.json").read_text())["extractedSessions"] == {}
    skill = zc_env["state"] / "skills" / "zettelclaw" / "SKILL.md"
    assert skill.read_text() == SKILL_TEXT
    assert memory.read_bytes() == (b"## Goals\r\n- ship it\n\n<!-- BEGIN GENERATED BRIEFING -->\n"
                                   b"<!-- END GENERATED BRIEFING -->\n")
    # no gateway: the briefing job is printed, not failed
    assert "openclaw cron add --name zettelclaw-briefing" in result.stdout
    assert "--command" in result.stdout and "brief" in result.stdout
    assert "0 3 * * * " in result.stdout  # the crontab line
    assert "CRON_TZ=Europe/Berlin" in result.stdout


def test_init_twice_changes_nothing_the_second_time(cli, openclaw, zc_env):
    assert cli("init").exit_code == 0
    memory = (zc_env["workspace"] / "MEMORY.md").read_bytes()
    cfg = (zc_env["state"] / "openclaw.json").read_bytes()
    openclaw.clear()

    result = cli("init")

    assert result.exit_code == 0
    assert "Nothing to do" in result.stdout
    assert openclaw.writes() == []
    assert (zc_env["workspace"] / "MEMORY.md").read_bytes() == memory
    assert (zc_env["state"] / "openclaw.json").read_bytes() == cfg


def test_init_keeps_the_users_plugin_config(cli, openclaw, zc_env, monkeypatch):
    (zc_env["state"] / "openclaw.json").write_text(json.dumps(
        {"plugins": {"entries": {"zettelclaw": {"config": {
            "cron": {"timezone": "America/Detroit"}}}}}}))

    assert cli("init").exit_code == 0

    plugin_config = dig(config(zc_env), "plugins.entries.zettelclaw.config")
    assert plugin_config["cron"] == {"timezone": "America/Detroit", "schedule": "0 3 * * *"}


def test_init_on_2026_2_speaks_its_dialect(cli, openclaw, zc_env, monkeypatch, shipped):
    monkeypatch.setenv("FAKE_OPENCLAW_VERSION", "2026.2.22")
    monkeypatch.setenv("FAKE_OPENCLAW_GATEWAY", "1")

    result = cli("init")

    assert result.exit_code == 0, result.stderr
    cfg = config(zc_env)
    assert "hooks" not in dig(cfg, "plugins.entries.zettelclaw")  # 2026.2 rejects the key
    assert dig(cfg, "plugins.slots.memory") == "zettelclaw"
    writes = openclaw.writes()
    assert ["plugins", "install", "--link", str(shipped["plugin"])] in writes
    assert not any("--batch-json" in c for c in writes)
    # 2026.2 has no command jobs: an isolated agent turn that runs the command
    jobs = json.loads((zc_env["state"] / "fake-cron.json").read_text())
    assert [j["name"] for j in jobs] == ["zettelclaw-briefing"]
    assert jobs[0]["payload"]["kind"] == "agentTurn"
    assert "zettelclaw brief" in jobs[0]["payload"]["message"]
    add = next(c for c in writes if c[:2] == ["cron", "add"])
    assert add[add.index("--session") + 1] == "isolated"


def test_cron_job_registered_once_when_a_gateway_runs(cli, openclaw, zc_env, monkeypatch):
    monkeypatch.setenv("FAKE_OPENCLAW_GATEWAY", "1")
    assert cli("init").exit_code == 0
    assert cli("init").exit_code == 0

    jobs = json.loads((zc_env["state"] / "fake-cron.json").read_text())
    assert len(jobs) == 1
    assert jobs[0]["schedule"] == {"kind": "cron", "expr": "0 3 * * *", "tz": "Europe/Berlin"}
    assert jobs[0]["payload"]["kind"] == "command"
    assert jobs[0]["payload"]["argv"][-1].endswith("zettelclaw brief")


def test_undo_puts_back_what_was_there(cli, openclaw, zc_env, monkeypatch):
    monkeypatch.setenv("FAKE_OPENCLAW_GATEWAY", "1")
    cfg_path = zc_env["state"] / "openclaw.json"
    cfg_path.write_text(json.dumps(
        {"agents": {"defaults": {"compaction": {"memoryFlush": {"enabled": True,
                                                                  "softThresholdTokens": 4000}}}}}))
    memory = zc_env["workspace"] / "MEMORY.md"
    original = b"## Goals\n- keep this byte for byte\n"
    memory.write_bytes(original)
    assert cli("init").exit_code == 0
    (zc_env["log_dir"] / "log.jsonl").write_text('{"id":"x"}\n')
    # the nightly job has written a briefing meanwhile
    text = memory.read_text().replace("-->\n<!-- END", "-->\n## Active\n- x\n<!-- END")
    memory.write_text(text)

    result = cli("init", "--undo")

    assert result.exit_code == 0, result.stderr
    cfg = config(zc_env)
    assert dig(cfg, "plugins.slots.memory") == "memory-core"
    assert "zettelclaw" not in cfg["plugins"].get("entries", {})
    assert dig(cfg, "agents.defaults.compaction.memoryFlush") == {"enabled": True,
                                                                  "softThresholdTokens": 4000}
    hooks = cfg.get("hooks", {}).get("internal", {}).get("entries", {})
    assert "enabled" not in hooks.get("session-memory", {})  # unset: OpenClaw's default again
    assert memory.read_bytes() == original
    assert not (zc_env["state"] / "skills" / "zettelclaw").exists()
    assert json.loads((zc_env["state"] / "fake-cron.json").read_text()) == []
    assert (zc_env["log_dir"] / "log.jsonl").read_text() == '{"id":"x"}\n'  # memory kept
    assert "kept" in result.stdout
    # the plugin's files are never deleted (uninstall runs with --keep-files)
    assert ["plugins", "uninstall", "zettelclaw", "--force", "--keep-files"] in openclaw.writes()


def test_undo_on_2026_2_enables_memory_core_again(cli, openclaw, zc_env, monkeypatch):
    monkeypatch.setenv("FAKE_OPENCLAW_VERSION", "2026.2.22")
    assert cli("init").exit_code == 0
    assert dig(config(zc_env), "plugins.entries.memory-core.enabled") is False

    assert cli("init", "--undo").exit_code == 0

    cfg = config(zc_env)
    assert dig(cfg, "plugins.slots.memory") == "memory-core"
    assert "enabled" not in cfg["plugins"].get("entries", {}).get("memory-core", {})


def test_without_openclaw_cli_the_file_is_edited_after_a_backup(cli, zc_env, shipped, tmp_path,
                                                                monkeypatch):
    monkeypatch.delenv("OPENCLAW_BIN", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    cfg_path = zc_env["state"] / "openclaw.json"
    original = ('// my settings\n{\n  meta: {lastTouchedVersion: "2026.2.22"},\n'
                '  agents: {defaults: {workspace: "~/.openclaw/workspace",},},\n}\n')
    cfg_path.write_text(original)

    result = cli("init")

    assert result.exit_code == 0, result.stderr
    assert "No `openclaw` CLI found" in result.stderr
    assert "comments" in result.stderr
    backups = list(zc_env["state"].glob("openclaw.json.zettelclaw-*.bak"))
    assert len(backups) == 1 and backups[0].read_text() == original
    cfg = json.loads(cfg_path.read_text())  # plain JSON now
    assert cfg["plugins"]["slots"]["memory"] == "zettelclaw"
    assert cfg["plugins"]["load"]["paths"] == [str(shipped["plugin"])]
    assert "hooks" not in cfg["plugins"]["entries"]["zettelclaw"]  # 2026.2, from meta
    assert cfg["agents"]["defaults"]["workspace"] == "~/.openclaw/workspace"
    assert "crontab" in result.stdout


def test_broken_markers_are_reported_not_rewritten(cli, openclaw, zc_env):
    memory = zc_env["workspace"] / "MEMORY.md"
    memory.write_text("<!-- END GENERATED BRIEFING -->\nnotes\n<!-- BEGIN GENERATED BRIEFING -->\n")
    before = memory.read_bytes()

    result = cli("init")

    assert result.exit_code == 1
    assert "unmatched briefing markers" in result.stderr
    assert memory.read_bytes() == before


@pytest.mark.parametrize("dry_run", [False, True])
def test_init_checks_everything_before_it_changes_anything(cli, openclaw, zc_env, dry_run):
    """A problem found anywhere in the plan stops init before its first change, and
    `--dry-run` reports the same problem (and exits the same way)."""
    memory = zc_env["workspace"] / "MEMORY.md"
    memory.write_text("<!-- END GENERATED BRIEFING -->\nnotes\n<!-- BEGIN GENERATED BRIEFING -->\n")
    cfg = zc_env["state"] / "openclaw.json"
    cfg.write_text('{"agents": {"defaults": {"workspace": "~/.openclaw/workspace"}}}\n')
    before = cfg.read_bytes()

    result = cli("init", *(["--dry-run"] if dry_run else []))

    assert result.exit_code == 1
    error = result.stderr.strip().splitlines()
    assert len(error) == 1 and error[0].startswith("Error: init ")
    assert "before changing anything" in error[0] and "unmatched briefing markers" in error[0]
    assert "  error  briefing markers in" in result.stdout
    assert openclaw.writes() == []  # no plugin install, no config write, no cron job
    assert cfg.read_bytes() == before
    assert not zc_env["log_dir"].exists()
    assert not (zc_env["state"] / "skills").exists()


def test_init_on_a_fresh_openclaw_without_a_workspace_finishes_the_install(
        cli, openclaw, zc_env, monkeypatch):
    """OpenClaw makes the workspace at the agent's first turn: init leaves it to OpenClaw and
    the markers to the first brief after that turn, and says so; the nightly job and
    memory-core's removal happen all the same; doctor is all good before and after."""
    monkeypatch.setenv("FAKE_OPENCLAW_GATEWAY", "1")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-api03-first-day-key")
    (zc_env["state"] / "fake-cron.json").write_text(json.dumps([DREAMING_JOB]))
    workspace = zc_env["workspace"]
    workspace.rmdir()

    dry = cli("init", "--dry-run")
    assert dry.exit_code == 0, dry.stderr
    assert "  later  briefing markers in" in dry.stdout

    result = cli("init")

    assert result.exit_code == 0, result.stderr
    assert "  later  briefing markers in" in result.stdout
    assert f"the workspace {workspace} does not exist yet" in result.stdout
    assert "the first `zettelclaw brief`" in result.stdout
    assert not workspace.exists()  # OpenClaw's to make, as it makes it
    jobs = json.loads((zc_env["state"] / "fake-cron.json").read_text())
    assert [j["name"] for j in jobs] == ["zettelclaw-briefing"]
    assert dig(config(zc_env), "plugins.slots.memory") == "zettelclaw"
    again = cli("init")
    assert again.exit_code == 0, again.stderr
    assert "Nothing to do" in again.stdout
    doctor = cli("doctor", "--json")
    assert doctor.exit_code == 0, doctor.stdout
    assert _check(json.loads(doctor.stdout), "briefing markers")["status"] == "ok"
    # the nightly job before the first turn: a note, not a failed job
    night = cli("brief", "--no-llm")
    assert night.exit_code == 0, night.stderr
    assert "not briefed: the workspace" in night.stderr and not workspace.exists()

    workspace.mkdir()  # the agent's first turn
    (workspace / "AGENTS.md").write_text("# AGENTS.md\n")
    doctor = cli("doctor", "--json")
    assert doctor.exit_code == 0, doctor.stdout
    assert cli("brief", "--no-llm").exit_code == 0
    assert (workspace / "MEMORY.md").read_text().count("GENERATED BRIEFING") == 2
    after = json.loads(cli("doctor", "--json").stdout)
    assert _check(after, "briefing markers") == {
        "name": "briefing markers", "status": "ok", "detail": str(workspace / "MEMORY.md")}


@pytest.mark.parametrize("version", ["2026.9.6", "2026.2.22"])
def test_init_says_what_answers_openclaws_own_memory_commands(cli, openclaw, zc_env,
                                                               monkeypatch, version):
    """memory-core's `openclaw memory ...`: answered over zettelclaw on 2026.9 (and given back
    by --undo); 2026.2 keeps it as its own command, so init names what replaces each."""
    monkeypatch.setenv("FAKE_OPENCLAW_VERSION", version)

    said = " ".join(cli("init").stdout.split())

    if version == "2026.9.6":
        assert "`openclaw memory status|search|get|forget` answer from zettelclaw" in said
        undone = " ".join(cli("init", "--undo").stdout.split())
        assert "`openclaw memory ...` is memory-core's again." in undone
    else:
        for replaced in ("`openclaw zettelclaw stats` for `memory status`",
                         "`openclaw zettelclaw search QUERY` for `memory search`"):
            assert replaced in said


def test_each_doctor_fix_is_a_command_that_fixes_its_check(cli, openclaw, zc_env, tmp_path):
    """Before init every check fails; each `openclaw ...` fix doctor names works as printed
    (none is refused the way the check failed), and `zettelclaw init` fixes the rest."""
    import shlex
    import subprocess

    # a home with one of init's pieces (the skill) is wired in part: every missing piece is
    # named with its fix (a home with none is one "not wired" line: test_first_hour.py)
    skill = zc_env["state"] / "skills" / "zettelclaw" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("an older skill\n")
    report = json.loads(cli("doctor", "--json").stdout)
    fixes = {c["name"]: c["fix"] for c in report["checks"] if c["status"] == "fail"}
    assert fixes["plugins.slots.memory"] == "run `zettelclaw init`"
    for name, fix in fixes.items():
        if fix.startswith("openclaw "):
            command = shlex.split(fix.split(" (or ")[0])
            ran = subprocess.run([os.environ["OPENCLAW_BIN"], *command[1:]],
                                 capture_output=True, text=True)
            assert ran.returncode == 0, (name, fix, ran.stderr)
    assert cli("init").exit_code == 0


def test_bad_openclaw_path_is_a_usage_error(cli, zc_env):
    result = cli("init", "--openclaw", "/nonexistent/openclaw")
    assert result.exit_code == 2
    assert "/nonexistent/openclaw" in result.stderr


def test_doctor_before_and_after_init(cli, openclaw, zc_env, monkeypatch):
    before = cli("doctor", "--json")
    assert before.exit_code == 1
    report = json.loads(before.stdout)
    failing = {c["name"] for c in report["checks"] if c["status"] == "fail"}
    # not wired at all: one line for it (the model key waits for the wiring: a warning)
    assert {"log directory", "wired into OpenClaw"} <= failing
    assert "plugins.slots.memory" not in failing  # (no MEMORY.md yet: the nightly brief)
    assert all(c.get("fix") for c in report["checks"] if c["status"] == "fail")

    assert cli("init").exit_code == 0
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-api03-doctor-test-key")
    after = cli("doctor", "--json")

    report = json.loads(after.stdout)
    assert after.exit_code == 0, report
    assert report["ok"] is True
    status = {c["name"]: c["status"] for c in report["checks"]}
    assert status["briefing job"] == "warn"  # no gateway to ask
    assert status["MEMORY.md size"] == "ok"


def test_doctor_flags_a_briefing_too_big_for_bootstrap(cli, openclaw, zc_env):
    assert cli("init").exit_code == 0
    memory = zc_env["workspace"] / "MEMORY.md"
    block = "\n".join(f"- item {i}" for i in range(120))
    memory.write_text("## Goals\n" + "x" * 21_000 + "\n<!-- BEGIN GENERATED BRIEFING -->\n"
                      + block + "\n<!-- END GENERATED BRIEFING -->\n")

    result = cli("doctor", "--text")

    assert result.exit_code == 1
    assert "bootstrapMaxChars" in result.stdout
    assert "20000" in result.stdout
    assert "120 of 80 lines" in result.stdout


def test_doctor_reads_the_configured_bootstrap_limit(cli, openclaw, zc_env):
    assert cli("init").exit_code == 0
    cfg_path = zc_env["state"] / "openclaw.json"
    cfg = json.loads(cfg_path.read_text())
    cfg["agents"]["defaults"]["bootstrapMaxChars"] = 100
    cfg_path.write_text(json.dumps(cfg))
    (zc_env["workspace"] / "MEMORY.md").write_text("y" * 150 + "\n<!-- BEGIN GENERATED BRIEFING"
                                                   " -->\n<!-- END GENERATED BRIEFING -->\n")

    report = json.loads(cli("doctor", "--json").stdout)

    size = next(c for c in report["checks"] if c["name"] == "MEMORY.md size")
    assert size["status"] == "fail" and "at most 100" in size["detail"]


def _check(report: dict, name: str) -> dict:
    return next(c for c in report["checks"] if c["name"] == name)


@pytest.mark.parametrize("version", ["2026.9.6", "2026.2.22"])
def test_doctor_loads_the_plugin_and_finds_its_hooks_and_tools(cli, openclaw, zc_env,
                                                                monkeypatch, version):
    monkeypatch.setenv("FAKE_OPENCLAW_VERSION", version)
    assert cli("init").exit_code == 0

    report = json.loads(cli("doctor", "--json").stdout)

    assert _check(report, "plugin loads") == {
        "name": "plugin loads", "status": "ok", "detail": "4 hooks and 4 tools registered"}
    inspected = [c for c in openclaw.all() if c[:2] in (["plugins", "inspect"],
                                                        ["plugins", "info"])]
    assert inspected == ([["plugins", "inspect", "zettelclaw", "--runtime", "--json"]]
                         if version.startswith("2026.9") else
                         [["plugins", "info", "zettelclaw", "--json"]])


def test_doctor_says_how_to_unblock_the_handoff_hook(cli, openclaw, zc_env):
    assert cli("init").exit_code == 0
    cfg_path = zc_env["state"] / "openclaw.json"
    cfg = json.loads(cfg_path.read_text())
    cfg["plugins"]["entries"]["zettelclaw"]["hooks"]["allowConversationAccess"] = False
    cfg_path.write_text(json.dumps(cfg))

    result = cli("doctor", "--json")

    assert result.exit_code == 1
    check = _check(json.loads(result.stdout), "plugin loads")
    assert check["status"] == "fail"
    assert "missing before_prompt_build" in check["detail"]
    assert "allowConversationAccess" in check["detail"]
    assert check["fix"] == ("openclaw config set "
                            "plugins.entries.zettelclaw.hooks.allowConversationAccess true")


def test_doctor_reports_a_plugin_openclaw_cannot_load(cli, openclaw, zc_env, monkeypatch):
    assert cli("init").exit_code == 0
    monkeypatch.setenv("FAKE_OPENCLAW_PLUGIN_ERROR", "SyntaxError: Unexpected token in index.js")

    result = cli("doctor", "--text")

    assert result.exit_code == 1
    assert "fail  plugin loads: status error; SyntaxError: Unexpected token" in result.stdout
    assert "openclaw plugins inspect zettelclaw --runtime" in result.stdout


# ---- zettelclaw is the only memory (2026.9 keeps memory-core loaded for dreaming otherwise)

DREAMING_JOB = {"id": "dream-1", "name": "Memory Dreaming Promotion", "enabled": True,
                "declarationKey": "memory-core:memory-dreaming-promotion",
                "schedule": {"kind": "cron", "expr": "0 3 * * *"},
                "payload": {"kind": "systemEvent", "text": "__memory_core_dreaming__"}}


def test_init_on_2026_9_writes_the_hook_flag_before_the_plugin_loads(cli, openclaw, zc_env):
    assert cli("init").exit_code == 0

    writes = openclaw.writes()
    install = next(i for i, c in enumerate(writes) if c[:2] == ["plugins", "install"])
    sets = [(i, c) for i, c in enumerate(writes) if c[:2] == ["config", "set"]]
    assert len(sets) == 1  # one write, before the install that enables (and hot-loads) it
    index, batch = sets[0]
    assert index < install
    paths = {op["path"]: op["value"] for op in json.loads(batch[3])}
    assert paths["plugins.entries.zettelclaw.hooks.allowConversationAccess"] is True
    assert paths["plugins.entries.memory-core.enabled"] is False
    assert dig(config(zc_env), "plugins.entries.memory-core.enabled") is False


def test_init_removes_memory_cores_dreaming_job_and_undo_gives_memory_core_back(
        cli, openclaw, zc_env, monkeypatch):
    monkeypatch.setenv("FAKE_OPENCLAW_GATEWAY", "1")
    (zc_env["state"] / "fake-cron.json").write_text(json.dumps([DREAMING_JOB]))

    result = cli("init")

    assert result.exit_code == 0, result.stderr
    assert "remove memory-core's job 'Memory Dreaming Promotion'" in result.stdout
    jobs = json.loads((zc_env["state"] / "fake-cron.json").read_text())
    assert [j["name"] for j in jobs] == ["zettelclaw-briefing"]
    assert ["cron", "rm", "dream-1"] in openclaw.writes()
    report = json.loads(cli("doctor", "--json").stdout)
    assert _check(report, "plugins.entries.memory-core.enabled")["status"] == "ok"

    assert cli("init", "--undo").exit_code == 0

    cfg = config(zc_env)
    assert dig(cfg, "plugins.slots.memory") == "memory-core"
    assert "enabled" not in cfg["plugins"].get("entries", {}).get("memory-core", {})  # as it was


def test_undo_keeps_memory_core_enabled_when_the_user_had_said_so(cli, openclaw, zc_env):
    (zc_env["state"] / "openclaw.json").write_text(json.dumps(
        {"plugins": {"entries": {"memory-core": {"enabled": True}}}}))
    assert cli("init").exit_code == 0
    assert dig(config(zc_env), "plugins.entries.memory-core.enabled") is False

    assert cli("init", "--undo").exit_code == 0

    assert dig(config(zc_env), "plugins.entries.memory-core.enabled") is True


def test_doctor_fails_when_memory_core_or_its_dreaming_is_back(cli, openclaw, zc_env,
                                                               monkeypatch):
    monkeypatch.setenv("FAKE_OPENCLAW_GATEWAY", "1")
    assert cli("init").exit_code == 0
    cfg_path = zc_env["state"] / "openclaw.json"
    cfg = json.loads(cfg_path.read_text())
    del cfg["plugins"]["entries"]["memory-core"]
    cfg_path.write_text(json.dumps(cfg))
    jobs = json.loads((zc_env["state"] / "fake-cron.json").read_text())
    (zc_env["state"] / "fake-cron.json").write_text(json.dumps(jobs + [DREAMING_JOB]))

    result = cli("doctor", "--json")

    assert result.exit_code == 1
    report = json.loads(result.stdout)
    core = _check(report, "plugins.entries.memory-core.enabled")
    assert core["status"] == "fail" and "memory_search" in core["detail"]
    assert core["fix"].startswith("openclaw config set plugins.entries.memory-core.enabled false")
    dreaming = _check(report, "memory-core dreaming")
    assert dreaming["status"] == "fail" and "MEMORY.md" in dreaming["detail"]
    assert dreaming["fix"].startswith("openclaw cron rm dream-1")


# ---- 2026.2: the nightly agent turn's exec call runs without anyone to approve it

def _approvals(zc_env) -> dict:
    path = Path(os.environ["HOME"]) / ".openclaw" / "exec-approvals.json"
    return json.loads(path.read_text()) if path.exists() else {}


def test_init_on_2026_2_allowlists_exactly_zettelclaw_and_undo_removes_only_that(
        cli, openclaw, zc_env, monkeypatch):
    monkeypatch.setenv("FAKE_OPENCLAW_VERSION", "2026.2.22")
    monkeypatch.setenv("FAKE_OPENCLAW_GATEWAY", "1")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-api03-doctor-test-key")  # doctor's key check
    approvals = Path(os.environ["HOME"]) / ".openclaw" / "exec-approvals.json"
    approvals.parent.mkdir(parents=True, exist_ok=True)
    approvals.write_text(json.dumps({"version": 1, "agents": {"main": {"allowlist": [
        {"pattern": "/usr/bin/rg"}]}}}))

    result = cli("init")

    assert result.exit_code == 0, result.stderr
    exe = oc.zettelclaw_executable()
    assert os.path.isabs(exe)
    assert ["approvals", "allowlist", "add", "--agent", "main", exe] in openclaw.writes()
    patterns = [e["pattern"] for e in _approvals(zc_env)["agents"]["main"]["allowlist"]]
    assert patterns == ["/usr/bin/rg", exe]
    report = json.loads(cli("doctor", "--json").stdout)
    assert _check(report, "nightly exec approval")["status"] == "ok"
    assert report["ok"] is True, report

    openclaw.clear()
    assert cli("init").exit_code == 0  # a second init adds nothing
    assert not [c for c in openclaw.writes() if c[0] == "approvals"]

    assert cli("init", "--undo").exit_code == 0

    patterns = [e["pattern"] for e in _approvals(zc_env)["agents"]["main"]["allowlist"]]
    assert patterns == ["/usr/bin/rg"]  # the user's own entry stays


def test_doctor_on_2026_2_fails_when_the_nightly_exec_needs_approval(cli, openclaw, zc_env,
                                                                    monkeypatch):
    monkeypatch.setenv("FAKE_OPENCLAW_VERSION", "2026.2.22")
    assert cli("init").exit_code == 0
    approvals = Path(os.environ["HOME"]) / ".openclaw" / "exec-approvals.json"
    approvals.unlink()

    result = cli("doctor", "--json")

    assert result.exit_code == 1
    check = _check(json.loads(result.stdout), "nightly exec approval")
    assert check["status"] == "fail"
    assert check["fix"].startswith("openclaw approvals allowlist add --agent main ")


def test_2026_9_needs_no_exec_approval(cli, openclaw, zc_env):
    assert cli("init").exit_code == 0
    assert not [c for c in openclaw.all() if c[0] == "approvals"]
    names = {c["name"] for c in json.loads(cli("doctor", "--json").stdout)["checks"]}
    assert "nightly exec approval" not in names


def test_init_says_when_no_model_key_is_found_and_where_to_put_one(cli, openclaw, zc_env,
                                                                   monkeypatch):
    result = cli("init")
    assert result.exit_code == 0, result.stderr
    line = next(x for x in result.stdout.splitlines() if x.startswith("Model key:"))
    assert "none found; conversations wait for one" in line
    assert ".openclaw/.env" in line and "openclaw models auth paste-token" in line

    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-api03-init-test-key")
    again = cli("init")
    assert "Model key:" not in again.stdout
    assert "sk-ant-api03-init-test-key" not in again.stdout + again.stderr


def test_init_vault_sets_up_each_agents_vault_and_undo_leaves_it(cli, openclaw, zc_env,
                                                                 tmp_path):
    brain = tmp_path / "Brain"
    (brain / "Personal").mkdir(parents=True)
    (brain / "Personal" / "mine.md").write_text("my own note\n")

    result = cli("init", "--vault", str(brain))

    assert result.exit_code == 0, result.stderr
    assert dig(config(zc_env), "plugins.entries.zettelclaw.config.vault.path") == str(brain)
    assert sorted(p.name for p in (brain / "main").iterdir()) == [
        "00 Inbox", "01 Notes", "02 Agent", "03 Journal", "04 Templates", "05 Attachments"]
    assert sorted(p.name for p in brain.iterdir()) == ["Personal", "main"]
    workspace = brain / "main" / "02 Agent" / "Workspace"
    assert workspace.is_symlink() and workspace.resolve() == zc_env["workspace"].resolve()
    assert (brain / "Personal" / "mine.md").read_text() == "my own note\n"
    (brain / "main" / "03 Journal" / "2026-02-20.md").write_text("a journal\n")

    undone = cli("init", "--undo")

    assert undone.exit_code == 0, undone.stderr
    assert f"The vault in {brain} is kept" in undone.stdout
    assert (brain / "main" / "03 Journal" / "2026-02-20.md").read_text() == "a journal\n"
    assert (brain / "Personal" / "mine.md").read_text() == "my own note\n"


def test_init_says_what_happens_with_other_peoples_direct_messages(cli, openclaw, zc_env):
    said = " ".join(cli("init").stdout.split())
    assert "session.dmScope is main: every direct message shares the owner's main session" \
        in said
    assert "`openclaw config set session.dmScope per-channel-peer`" in said
    assert "`zettelclaw review untrusted` lists them (docs/people.md)" in said

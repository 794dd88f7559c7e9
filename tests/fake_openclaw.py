#!/usr/bin/env python3
"""A stand-in ``openclaw`` executable for fast init/doctor tests.

It keeps the parts of the real CLI's behaviour zettelclaw relies on, as measured on 2026.2.22
and 2026.9.6: ``--version`` output, ``config set`` (2026.9: ``--batch-json``) with strict
validation of the keys 2026.2 rejects, ``config unset``, ``plugins install --link`` (selects the
memory slot like the real one; 2026.2 disables memory-core), ``plugins uninstall``, and
``cron list/add/rm`` that fail unless a gateway is "running", ``approvals allowlist add/remove``
(the local ``~/.openclaw/exec-approvals.json``), and ``plugins inspect --runtime
--json`` (2026.9; a hook behind the conversation-access gate is missing unless the config allows
it) / ``plugins info --json`` (2026.2). Every call is appended to ``$FAKE_OPENCLAW_LOG`` (JSON
Lines of argv).

Environment: ``FAKE_OPENCLAW_VERSION`` (default 2026.9.6), ``FAKE_OPENCLAW_GATEWAY=1`` (a gateway
is up), ``FAKE_OPENCLAW_LOG``, ``FAKE_OPENCLAW_PLUGIN_ERROR`` (the plugin fails to load with this
message), ``FAKE_OPENCLAW_STATE_FILES=1`` (every call creates ``state/openclaw.sqlite`` and
``tmp/`` in the state directory when missing, as the real 2026.9 CLI does on any command); the
config is ``$OPENCLAW_CONFIG_PATH`` or ``~/.openclaw/...``.
"""

from __future__ import annotations

import json
import os
import sys
import uuid
from pathlib import Path

VERSION = os.environ.get("FAKE_OPENCLAW_VERSION", "2026.9.6")
MODERN = tuple(int(x) for x in VERSION.split(".")) >= (2026, 9)


def state_dir() -> Path:
    env = os.environ.get("OPENCLAW_STATE_DIR")
    return Path(env) if env else Path(os.environ["HOME"]) / ".openclaw"


def config_path() -> Path:
    env = os.environ.get("OPENCLAW_CONFIG_PATH")
    return Path(env) if env else state_dir() / "openclaw.json"


def load() -> dict:
    try:
        import json5

        return json5.loads(config_path().read_text())
    except FileNotFoundError:
        return {}


def save(config: dict) -> None:
    problems = validate(config)
    if problems:
        print(f"Error: Config validation failed: {problems[0]}", file=sys.stderr)
        sys.exit(1)
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(config, indent=2) + "\n")


def validate(config: dict) -> list[str]:
    plugins = config.get("plugins", {})
    known = set(plugins.get("installs", {})) | {"memory-core", "memory-lancedb"}
    slot = plugins.get("slots", {}).get("memory")
    problems = []
    if slot and slot not in known:
        problems.append(f"plugins.slots.memory: plugin not found: {slot}")
    for pid, entry in plugins.get("entries", {}).items():
        if not MODERN and "hooks" in entry:
            problems.append(f'plugins.entries.{pid}: Unrecognized key: "hooks"')
    return problems


def put(config: dict, dotted: str, value) -> None:
    keys = dotted.split(".")
    for key in keys[:-1]:
        config = config.setdefault(key, {})
    config[keys[-1]] = value


def unset(config: dict, dotted: str) -> None:
    keys = dotted.split(".")
    for key in keys[:-1]:
        config = config.get(key, {})
    config.pop(keys[-1], None)


def jobs_path() -> Path:
    return state_dir() / "fake-cron.json"


def jobs() -> list[dict]:
    try:
        return json.loads(jobs_path().read_text())
    except FileNotFoundError:
        return []


def need_gateway() -> None:
    if os.environ.get("FAKE_OPENCLAW_GATEWAY") != "1":
        print("Error: gateway closed (1006): connect ECONNREFUSED 127.0.0.1:18789",
              file=sys.stderr)
        sys.exit(1)


def plugin_report(config: dict, plugin_id: str) -> None:
    plugins = config.get("plugins", {})
    if plugin_id not in plugins.get("installs", {}):
        print(json.dumps({"ok": False, "error": {"type": "cli_error",
                                                 "message": f"Plugin not found: {plugin_id}"}}))
        sys.exit(1)
    error = os.environ.get("FAKE_OPENCLAW_PLUGIN_ERROR")
    entry = plugins.get("entries", {}).get(plugin_id, {})
    hooks = ["before_reset", "gateway_start", "session_end", "before_prompt_build"]
    diagnostics = []
    if error:
        hooks = []
        diagnostics.append({"level": "error", "pluginId": plugin_id, "message": error})
    elif MODERN and entry.get("hooks", {}).get("allowConversationAccess") is not True:
        hooks.remove("before_prompt_build")
        diagnostics.append({"level": "warn", "pluginId": plugin_id, "message": (
            'typed hook "before_prompt_build" blocked because non-bundled plugins must set '
            f"plugins.entries.{plugin_id}.hooks.allowConversationAccess=true")})
    status = "error" if error else "loaded"
    tools = [] if error else ["memory_search", "memory_get", "memory_forget", "memory_close"]
    print("[plugins] plugins.allow is empty; discovered non-bundled plugins may auto-load")
    if MODERN:
        print(json.dumps({"plugin": {"id": plugin_id, "status": status, "toolNames": tools},
                          "typedHooks": [{"name": h} for h in hooks],
                          "tools": [{"names": tools, "optional": False}] if tools else [],
                          "diagnostics": diagnostics}))
    else:
        print(json.dumps({"id": plugin_id, "status": status, "toolNames": tools,
                          "hookCount": len(hooks), **({"error": error} if error else {})}))


def main(argv: list[str]) -> None:
    log = os.environ.get("FAKE_OPENCLAW_LOG")
    if log:
        with open(log, "a") as fh:
            fh.write(json.dumps(argv) + "\n")
    if os.environ.get("FAKE_OPENCLAW_STATE_FILES") == "1":
        (state_dir() / "state").mkdir(parents=True, exist_ok=True)
        (state_dir() / "state" / "openclaw.sqlite").touch()
        (state_dir() / "tmp").mkdir(exist_ok=True)
    if argv == ["--version"]:
        print(f"OpenClaw {VERSION} (fake)" if MODERN else VERSION)
        return
    cmd = argv[:2]
    config = load()
    if cmd == ["config", "set"]:
        if "--batch-json" in argv:
            if not MODERN:
                sys.exit("error: unknown option '--batch-json'")
            for op in json.loads(argv[argv.index("--batch-json") + 1]):
                put(config, op["path"], op["value"])
        else:
            put(config, argv[2], json.loads(argv[3]))
        save(config)
        print("Updated.")
    elif cmd == ["config", "patch"]:
        if not MODERN:
            sys.exit("error: unknown command 'patch'")

        def merge(into: dict, patch: dict) -> None:
            for key, value in patch.items():
                if value is None:
                    into.pop(key, None)
                elif isinstance(value, dict) and isinstance(into.get(key), dict):
                    merge(into[key], value)
                else:
                    into[key] = value

        merge(config, json.loads(sys.stdin.read()))
        save(config)
    elif cmd == ["config", "unset"]:
        unset(config, argv[2])
        save(config)
    elif cmd == ["plugins", "install"]:
        if not MODERN and ("--force" in argv or "--accept-capabilities" in argv):
            sys.exit("error: unknown option '--force'")
        path = argv[argv.index("--link") + 1]
        plugins = config.setdefault("plugins", {})
        plugins.setdefault("load", {}).setdefault("paths", []).append(path)
        plugins.setdefault("entries", {}).setdefault("zettelclaw", {})["enabled"] = True
        plugins.setdefault("installs", {})["zettelclaw"] = {"source": "path", "sourcePath": path}
        plugins.setdefault("slots", {})["memory"] = "zettelclaw"
        if not MODERN:
            plugins["entries"]["memory-core"] = {"enabled": False}
        save(config)
    elif cmd == ["plugins", "uninstall"]:
        assert "--keep-files" in argv, "uninstalling a linked plugin without --keep-files"
        plugins = config.setdefault("plugins", {})
        plugins.get("entries", {}).pop("zettelclaw", None)
        plugins.get("installs", {}).pop("zettelclaw", None)
        plugins.get("load", {})["paths"] = [p for p in plugins.get("load", {}).get("paths", [])
                                            if "plugin" not in Path(p).name]
        plugins.setdefault("slots", {})["memory"] = "memory-core"
        save(config)
    elif cmd == ["plugins", "inspect"] or cmd == ["plugins", "info"]:
        plugin_report(config, argv[2])
    elif cmd == ["cron", "list"]:
        need_gateway()
        print(json.dumps({"jobs": jobs()}))
    elif cmd == ["cron", "add"]:
        need_gateway()
        job = {"id": str(uuid.uuid4()), "name": argv[argv.index("--name") + 1],
               "schedule": {"kind": "cron", "expr": argv[argv.index("--cron") + 1],
                            "tz": argv[argv.index("--tz") + 1]},
               "payload": ({"kind": "command", "argv": ["sh", "-lc",
                                                        argv[argv.index("--command") + 1]]}
                           if "--command" in argv else
                           {"kind": "agentTurn", "message": argv[argv.index("--message") + 1]})}
        if "--command" in argv and not MODERN:
            sys.exit("error: unknown option '--command'")
        jobs_path().write_text(json.dumps(jobs() + [job]))
        print(json.dumps(job))
    elif argv[:2] == ["approvals", "allowlist"] and argv[2] in ("add", "remove"):
        agent = argv[argv.index("--agent") + 1] if "--agent" in argv else "*"
        pattern = argv[-1]
        path = Path(os.environ["HOME"]) / ".openclaw" / "exec-approvals.json"
        data = json.loads(path.read_text()) if path.exists() else {"version": 1}
        agents = data.setdefault("agents", {})
        entries = agents.setdefault(agent, {}).setdefault("allowlist", [])
        entries[:] = [e for e in entries if e["pattern"].lower() != pattern.lower()]
        if argv[2] == "add":
            entries.append({"pattern": pattern})
        elif not entries:
            del agents[agent]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, indent=2))
    elif cmd == ["cron", "rm"]:
        need_gateway()
        jobs_path().write_text(json.dumps([j for j in jobs() if j["id"] != argv[2]]))
    else:
        sys.exit(f"fake openclaw: unsupported {argv}")


if __name__ == "__main__":
    main(sys.argv[1:])

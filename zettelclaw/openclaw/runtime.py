"""The plugin as OpenClaw loads it: its four hooks and two tools, asked of OpenClaw itself."""

from __future__ import annotations

import json
from typing import Any

from .cli import OpenClawCLI, OpenClawError, _join, _tail
from .report import Check
from .settings import PLUGIN_ID

PLUGIN_HOOKS = ("session_end", "before_reset", "gateway_start", "before_prompt_build")
PLUGIN_TOOLS = ("memory_search", "memory_get", "memory_forget", "memory_close")


def _json_in(text: str) -> Any:
    """The JSON document in a command's output: the first line that starts one (OpenClaw may
    print notices such as ``[plugins] ...`` before it)."""
    decoder = json.JSONDecoder()
    offset = 0
    for line in text.splitlines(keepends=True):
        if line.lstrip().startswith(("{", "[")):
            try:
                return decoder.raw_decode(text, offset + len(line) - len(line.lstrip()))[0]
            except ValueError:
                pass
        offset += len(line)
    return None


def plugin_runtime_check(cli: OpenClawCLI) -> Check:
    """Load the plugin the way OpenClaw does and look for its four hooks and two tools.

    2026.9: ``plugins inspect --runtime --json`` lists typed hooks, tools and diagnostics (a hook
    blocked by the conversation-access gate shows as a diagnostic). 2026.2: ``plugins info
    --json`` gives the status, tool names and a hook count."""
    name = "plugin loads"
    args = (["plugins", "inspect", PLUGIN_ID, "--runtime", "--json"] if cli.modern
            else ["plugins", "info", PLUGIN_ID, "--json"])
    see = f"openclaw {_join(args[:-1])}"
    try:
        proc = cli.run(*args, check=False)
    except OpenClawError as exc:
        return Check(name, "warn", str(exc), f"run `{see}` to see why")
    data = _json_in(proc.stdout)
    if proc.returncode != 0 or not isinstance(data, dict) or data.get("ok") is False:
        error = data.get("error") if isinstance(data, dict) else None
        detail = (error.get("message") if isinstance(error, dict) else None) or _tail(proc)
        return Check(name, "fail", f"OpenClaw cannot load it: {detail}",
                     f"run `{see}` and fix what it reports, or reinstall zettelclaw and run "
                     "`zettelclaw init`")
    if cli.modern:
        plugin = data.get("plugin") if isinstance(data.get("plugin"), dict) else {}
        status = plugin.get("status")
        hooks = {h.get("name") for h in data.get("typedHooks") or [] if isinstance(h, dict)}
        tools = {n for t in data.get("tools") or [] if isinstance(t, dict)
                 for n in t.get("names") or []}
        notes = [str(d.get("message")) for d in data.get("diagnostics") or []
                 if isinstance(d, dict) and d.get("level") in ("error", "warn")]
    else:
        status = data.get("status")
        count = data.get("hookCount")
        hooks = set(PLUGIN_HOOKS) if isinstance(count, int) and count >= len(PLUGIN_HOOKS) \
            else set()
        tools = set(data.get("toolNames") or [])
        notes = [str(data["error"])] if data.get("error") else []
    missing = [h for h in PLUGIN_HOOKS if h not in hooks] + [t for t in PLUGIN_TOOLS
                                                            if t not in tools]
    if status != "loaded" or missing:
        what = f"status {status}" if status != "loaded" else f"missing {', '.join(missing)}"
        detail = "; ".join([what, *notes[:2]])
        gated = status == "loaded" and any("allowConversationAccess" in n for n in notes)
        fix = (f"openclaw config set plugins.entries.{PLUGIN_ID}.hooks.allowConversationAccess "
               "true" if gated else f"run `{see}` and fix what it reports")
        return Check(name, "fail", detail, fix)
    return Check(name, "ok", f"{len(PLUGIN_HOOKS)} hooks and {len(PLUGIN_TOOLS)} tools "
                             "registered")

"""The config init sets (design §8.4): the memory slot, the plugin entry and its config, and
OpenClaw's own memory features turned off."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import paths
from .config import _MISSING, _flatten, _tilde, dig
from .host import zettelclaw_executable

if TYPE_CHECKING:
    from .cli import OpenClawCLI

PLUGIN_ID = "zettelclaw"
BRIEFING_JOB = "zettelclaw-briefing"
UNDO_FILE = "openclaw-init.json"
CRON_RECORD = "cronJobAdded"  # in UNDO_FILE: whether an init registered BRIEFING_JOB
MEMORY_CORE_ENABLED = "plugins.entries.memory-core.enabled"
SLOT_KEY = "plugins.slots.memory"
# memory-core's own cron jobs (2026.9: "Memory Dreaming Promotion") carry this declaration key
MEMORY_CORE_JOB_PREFIX = "memory-core:"
DEFAULT_SCHEDULE = "0 3 * * *"


def plugin_defaults(timezone: str) -> dict[str, Any]:
    """The plugin's config (design §8.4), written only where the user has set nothing."""
    return {
        "logDir": _tilde(paths.log_dir()),
        "command": zettelclaw_executable(),
        "cron": {"schedule": DEFAULT_SCHEDULE, "timezone": timezone},
    }


def desired_settings(cli: OpenClawCLI | None, config: dict, *,
                     version: tuple[int, ...] | None, timezone: str,
                     vault: str | None = None) -> dict[str, Any]:
    """Every config path init sets, with its value (plugin config: only the missing keys)."""
    entry = f"plugins.entries.{PLUGIN_ID}"
    wanted: dict[str, Any] = {
        "plugins.slots.memory": PLUGIN_ID,
        f"{entry}.enabled": True,
    }
    if version is None or version >= (2026, 9):
        wanted[f"{entry}.hooks.allowConversationAccess"] = True
    for dotted, value in _flatten(f"{entry}.config", plugin_defaults(timezone)):
        if dig(config, dotted) is _MISSING:
            wanted[dotted] = value
    if vault is not None:  # init --vault DIR: asked for, so set even over an older one
        wanted[f"{entry}.config.vault.path"] = vault
    # zettelclaw is the only memory: on 2026.9 memory-core stays loaded beside the slot for its
    # dreaming job (same-named tools, a job that rewrites MEMORY.md); disabled, it is not loaded
    # at all. 2026.2's `plugins install` of a memory plugin writes the same key.
    wanted[MEMORY_CORE_ENABLED] = False
    wanted["agents.defaults.compaction.memoryFlush.enabled"] = False
    wanted["hooks.internal.entries.session-memory.enabled"] = False
    return wanted


# why doctor wants a setting, when its key alone does not say
SETTING_WHY = {
    "plugins.entries.memory-core.enabled": (
        "memory-core loaded beside zettelclaw registers memory_search/memory_get too and "
        "schedules its dreaming job, which rewrites MEMORY.md"),
}

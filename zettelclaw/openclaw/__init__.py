"""Make zettelclaw OpenClaw's memory (``init``), check it (``doctor``) and take it out (``--undo``).

Every change to OpenClaw's config goes through the ``openclaw`` CLI (``plugins install``,
``config set``), so OpenClaw's own validator checks each write against its strict schema; only
when no CLI can be found is the JSON5 file edited here, after a backup (written back as plain
JSON, which is valid JSON5: comments are lost, the backup keeps them).

The CLI is found as ``--openclaw PATH``, ``$OPENCLAW_BIN`` or ``openclaw`` on PATH. Versions
differ (see ``../shared/openclaw.md``): 2026.9 gates conversation hooks behind
``plugins.entries.<id>.hooks.allowConversationAccess`` (a key 2026.2 rejects), can batch config
writes, install with ``--force --accept-capabilities`` and run cron jobs as shell commands;
2026.2 has none of these, so its nightly briefing is an isolated agent turn that runs the
command with its exec tool.

What init changed is recorded in ``<logDir>/openclaw-init.json`` (the values it replaced), so
``--undo`` puts back what was there instead of guessing.

The parts: :mod:`.cli` runs the ``openclaw`` executable; :mod:`.config` reads its config (and
dotted paths into it); :mod:`.settings` is what init sets; :mod:`.host` is this machine and this
install (timezone, executable, the plugin and skill it ships); :mod:`.approvals` the exec
approvals (2026.2); :mod:`.report` the steps of a plan and doctor's checks; :mod:`.installer`
the :class:`Installer`, whose steps are in :mod:`.install` (init) and :mod:`.undo`;
:mod:`.checks` doctor, with :mod:`.runtime` loading the plugin the way OpenClaw does.
"""

from __future__ import annotations

from .approvals import exec_allowed, exec_allowlist_has, exec_approvals_path
from .checks import (
    BOOTSTRAP_MAX_CHARS,
    BOOTSTRAP_TOTAL_MAX_CHARS,
    BRIEFING_MAX_LINES,
    NOT_WIRED,
    doctor,
    model_key_checks,
)
from .cli import CLI_TIMEOUT, OpenClawCLI, OpenClawError
from .config import dig
from .host import local_timezone, zettelclaw_executable
from .installer import Installer
from .report import Check, Report, Step, apply
from .runtime import PLUGIN_HOOKS, PLUGIN_TOOLS, plugin_runtime_check
from .settings import (
    BRIEFING_JOB,
    DEFAULT_SCHEDULE,
    MEMORY_CORE_ENABLED,
    MEMORY_CORE_JOB_PREFIX,
    PLUGIN_ID,
    SETTING_WHY,
    SLOT_KEY,
    UNDO_FILE,
    desired_settings,
    plugin_defaults,
)

__all__ = [
    "BOOTSTRAP_MAX_CHARS", "BOOTSTRAP_TOTAL_MAX_CHARS", "BRIEFING_JOB", "BRIEFING_MAX_LINES",
    "CLI_TIMEOUT", "DEFAULT_SCHEDULE", "MEMORY_CORE_ENABLED", "MEMORY_CORE_JOB_PREFIX",
    "NOT_WIRED", "PLUGIN_HOOKS", "PLUGIN_ID", "PLUGIN_TOOLS", "SETTING_WHY", "SLOT_KEY",
    "UNDO_FILE", "Check", "Installer", "OpenClawCLI", "OpenClawError", "Report", "Step",
    "apply", "desired_settings", "dig", "doctor", "exec_allowed", "exec_allowlist_has",
    "exec_approvals_path", "local_timezone", "model_key_checks", "plugin_defaults",
    "plugin_runtime_check", "zettelclaw_executable",
]

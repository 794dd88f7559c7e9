"""The installer: what it knows of OpenClaw's config, gateway and this install, shared by init,
``--undo`` and doctor; and the no-CLI path, which edits the JSON5 file after a backup.

The steps themselves are in :mod:`.install` (init) and :mod:`.undo`."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

from .. import paths
from ..fsutil import atomic_write
from .cli import OpenClawCLI, _parse_version
from .config import _MISSING, _put, _read_config, dig
from .host import _plugin_dir, _skill_src, local_timezone, zettelclaw_executable
from .install import InstallSteps
from .settings import BRIEFING_JOB, DEFAULT_SCHEDULE, MEMORY_CORE_JOB_PREFIX, PLUGIN_ID
from .undo import UndoSteps


class Installer(InstallSteps, UndoSteps):
    """Builds the list of steps for init or undo, then applies them in order."""

    def __init__(self, cli: OpenClawCLI | None, *, timezone: str | None = None,
                 schedule: str | None = None, vault: Path | None = None):
        self.cli = cli
        self.timezone = timezone
        self.vault = vault  # init --vault DIR: the Obsidian vault's root (design §7.4)
        self.schedule = schedule or DEFAULT_SCHEDULE
        self.config = _read_config()
        self.version = cli.version if cli else _parse_version(
            str(dig(self.config, "meta.lastTouchedVersion")))
        self.plugin_dir = _plugin_dir()
        self.skill_src = _skill_src()

    # ---- pieces shared by init and doctor

    @property
    def modern(self) -> bool:
        return self.version is None or self.version >= (2026, 9)

    def tz(self) -> str:
        if self.timezone:
            return self.timezone
        configured = dig(self.config, f"plugins.entries.{PLUGIN_ID}.config.cron.timezone")
        return configured if isinstance(configured, str) and configured else local_timezone()

    def skill_dest(self) -> Path:
        return paths.openclaw_state_dir() / "skills" / "zettelclaw" / "SKILL.md"

    def plugin_linked(self) -> bool:
        load_paths = dig(self.config, "plugins.load.paths")
        if not isinstance(load_paths, list):
            return False
        target = os.path.realpath(self.plugin_dir)
        return any(isinstance(p, str) and os.path.realpath(os.path.expanduser(p)) == target
                   for p in load_paths)

    def briefing_command(self) -> str:
        return f"{shlex.quote(zettelclaw_executable())} brief"

    def cron_add_args(self) -> list[str]:
        common = ["cron", "add", "--name", BRIEFING_JOB, "--cron", self.schedule,
                  "--tz", self.tz(), "--no-deliver"]
        if self.modern:
            return common + ["--command", self.briefing_command(), "--timeout-seconds", "600"]
        message = (f"Run this shell command with the exec tool, then reply with only its "
                   f"exit status: {self.briefing_command()}")
        return common + ["--exact", "--session", "isolated", "--message", message,
                         "--timeout-seconds", "600"]

    def crontab_line(self) -> str:
        return (f"CRON_TZ={self.tz()}\n{self.schedule} {self.briefing_command()} "
                f">>{shlex.quote(str(paths.log_dir() / 'brief.log'))} 2>&1")

    def find_briefing_job(self) -> dict | None | bool:
        """The job (dict), None when absent, False when the gateway cannot be asked."""
        jobs = self.cron_jobs()
        if jobs is False:
            return False
        for job in jobs:
            if job.get("name") == BRIEFING_JOB:
                return job
        return None

    def cron_jobs(self) -> list[dict] | bool:
        """The gateway's cron jobs, or False when it cannot be asked (none running)."""
        if getattr(self, "_jobs", None) is not None:
            return self._jobs
        if not self.cli:
            return False
        proc = self.cli.run("cron", "list", "--all", "--json", check=False, timeout=60)
        if proc.returncode != 0:
            proc = self.cli.run("cron", "list", "--json", check=False, timeout=60)
        if proc.returncode != 0:
            return False
        try:
            data = json.loads(proc.stdout[proc.stdout.find("{"):] or "{}")
        except ValueError:
            return False
        jobs = data.get("jobs", data) if isinstance(data, dict) else data
        self._jobs = [j for j in jobs if isinstance(j, dict)] if isinstance(jobs, list) else []
        return self._jobs

    def memory_core_jobs(self) -> list[dict]:
        """memory-core's own scheduled jobs (2026.9's dreaming), as the gateway lists them."""
        return [j for j in (self.cron_jobs() or []) if isinstance(j, dict) and str(
            j.get("declarationKey", "")).startswith(MEMORY_CORE_JOB_PREFIX)]

    # ---- 2026.2: the nightly agent turn runs `zettelclaw brief` with its exec tool

    def approval_agent(self) -> str:
        """The agent whose isolated turn runs the briefing job (OpenClaw's default agent)."""
        return paths.default_agent()

    # ---- the no-CLI path: edit the JSON5 file after a backup

    def _backup_config(self) -> Path | None:
        """One backup per run, of the file as it was before this run touched it."""
        path = paths.openclaw_config_path()
        if getattr(self, "_backup", None) or not path.exists():
            return None
        from ..clock import now

        backup = path.with_name(f"{path.name}.zettelclaw-{now().strftime('%Y%m%dT%H%M%SZ')}.bak")
        shutil.copy2(path, backup)
        self._backup = backup
        return backup

    def _edit_file(self, changes: dict[str, Any]) -> None:
        path = paths.openclaw_config_path()
        config = _read_config()
        backup = self._backup_config()
        for key, value in changes.items():
            _put(config, key, value)
        atomic_write(path, json.dumps(config, indent=2, ensure_ascii=False) + "\n")
        if backup:
            print(f"Edited {path} without the openclaw CLI (written as plain JSON: comments "
                  f"are gone); the previous file is {backup}", file=sys.stderr)

    def _link_plugin_in_file(self) -> None:
        config = _read_config()
        load_paths = dig(config, "plugins.load.paths")
        load_paths = list(load_paths) if isinstance(load_paths, list) else []
        load_paths.append(str(self.plugin_dir))
        self._edit_file({"plugins.load.paths": load_paths,
                         f"plugins.entries.{PLUGIN_ID}.enabled": True})

    def _unlink_plugin_in_file(self) -> None:
        config = _read_config()
        target = os.path.realpath(self.plugin_dir)
        load_paths = [p for p in (dig(config, "plugins.load.paths") or [])
                      if os.path.realpath(os.path.expanduser(str(p))) != target]
        self._edit_file({"plugins.load.paths": load_paths,
                         f"plugins.entries.{PLUGIN_ID}": _MISSING})

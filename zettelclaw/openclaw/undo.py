"""``init --undo``'s steps: remove the briefing job, uninstall the plugin, put back the settings
init replaced (from its record), remove the exec allowlist entries it added, the skill and the
MEMORY.md markers, then forget the record. The log is kept: it is the memory."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from .. import paths
from ..briefing import markers_state, remove_markers  # MEMORY.md's markers live with the briefing
from .approvals import exec_allowlist_has
from .cli import _join
from .config import _MISSING, _load_record, _put, _read_config, _tilde, dig
from .report import Report, Step, _nothing
from .settings import BRIEFING_JOB, CRON_RECORD, PLUGIN_ID, UNDO_FILE


class UndoSteps:
    """``--undo``'s steps, a part of :class:`~.installer.Installer` (whose state they use)."""

    def plan_undo(self) -> Report:
        report = Report()
        record = _load_record(paths.log_dir() / UNDO_FILE)
        self._plan_remove_cron(report, record)
        self._plan_uninstall_plugin(report)
        self._plan_restore_settings(report, record.get("previous", {}))
        self._plan_remove_exec_approvals(report, record.get("execAllowlist", []))
        self._plan_remove_skill(report)
        self._plan_remove_markers(report)
        self._plan_forget_record(report)
        report.notes.append(f"The log in {paths.log_dir()} is kept: it is your memory.")
        if self.modern:
            report.notes.append("`openclaw memory ...` is memory-core's again.")
        from ..vault import configured_root

        vault = configured_root()
        if vault is not None:
            report.notes.append(f"The vault in {vault} is kept as it is: its files are yours "
                                "now (nothing will append to them).")
        return report

    def _plan_remove_cron(self, report: Report, record: dict) -> None:
        job = self.find_briefing_job()
        if isinstance(job, dict):
            job_id = str(job.get("id") or job.get("jobId") or BRIEFING_JOB)
            report.add(Step(f"remove the cron job {BRIEFING_JOB}: openclaw cron rm {job_id}",
                            apply=lambda: self.cli.run("cron", "rm", job_id)))
        elif job is False and record.get(CRON_RECORD) is False:  # init could not add one
            report.notes.append(f"No cron job to remove: init registered none (no gateway was "
                                f"running); a crontab line or a {BRIEFING_JOB} job you added "
                                "yourself is yours to remove.")
        elif job is False:
            report.add(Step(f"remove the cron job {BRIEFING_JOB}",
                            manual="no gateway is running: once it runs, "
                                   f"`openclaw cron list` and `openclaw cron rm <id>` for "
                                   f"{BRIEFING_JOB}; or remove the crontab line if you added "
                                   "one"))

    def _plan_uninstall_plugin(self, report: Report) -> None:
        if self.plugin_linked() or dig(self.config, f"plugins.entries.{PLUGIN_ID}") \
                is not _MISSING:
            if self.cli:
                args = ["plugins", "uninstall", PLUGIN_ID, "--force", "--keep-files"]
                report.add(Step(f"uninstall the plugin (its files stay): openclaw {_join(args)}",
                                apply=lambda: self.cli.run(*args)))
            else:
                report.add(Step("unlink the plugin from the config file",
                                apply=self._unlink_plugin_in_file))

    def _settings_to_restore(self, previous: dict[str, dict]) -> dict[str, Any]:
        """Each key init changed, with what it goes back to (``_MISSING``: unset)."""
        restore: dict[str, Any] = {
            "plugins.slots.memory": "memory-core",
            "plugins.entries.memory-core.enabled": _MISSING,
            "agents.defaults.compaction.memoryFlush.enabled": _MISSING,
            "hooks.internal.entries.session-memory.enabled": _MISSING,
        }
        for key, was in previous.items():
            if key.startswith(f"plugins.entries.{PLUGIN_ID}.") or key == "plugins.slots.memory":
                continue  # gone with the plugin entry / back to memory-core
            restore[key] = _MISSING if was.get("absent") else was.get("value")
        if dig(self.config, "plugins.entries.memory-core.enabled") is not False:
            restore.pop("plugins.entries.memory-core.enabled")
        restore[f"plugins.entries.{PLUGIN_ID}"] = _MISSING  # 2026.9 leaves {enabled: false}
        return restore

    def _plan_restore_settings(self, report: Report, previous: dict[str, dict]) -> None:
        restore = self._settings_to_restore(previous)
        first = True
        for key, value in restore.items():
            shown = "unset (OpenClaw's default)" if value is _MISSING else json.dumps(value)
            done = dig(self.config, key) == value or (
                value is _MISSING and dig(self.config, key) is _MISSING)
            step = report.add(Step(f"{key}: {shown}", done=done))
            if not done:  # the first pending step carries the one write
                step.apply = (lambda: self._restore(restore)) if first else _nothing
                first = False

    def _plan_remove_exec_approvals(self, report: Report, added_entries: list[dict]) -> None:
        for added in added_entries:
            agent, pattern = str(added.get("agent")), str(added.get("pattern"))
            args = ["approvals", "allowlist", "remove", "--agent", agent, pattern]
            present = exec_allowlist_has(agent, pattern)
            if self.cli is None:
                report.add(Step(f"remove the exec allowlist entry {pattern} ({agent})",
                                done=not present, manual=f"run `openclaw {_join(args)}`"))
            else:
                report.add(Step(f"remove the exec allowlist entry init added: openclaw "
                                f"{_join(args)}", done=not present,
                                apply=lambda a=args: self.cli.run(*a)))

    def _plan_remove_skill(self, report: Report) -> None:
        dest = self.skill_dest()
        report.add(Step(f"remove the skill {_tilde(dest)}", done=not dest.exists(),
                        apply=lambda: _remove_skill(dest)))

    def _plan_remove_markers(self, report: Report) -> None:
        memory = paths.memory_md_path()
        report.add(Step(f"remove the briefing markers and generated block from {memory}",
                        done=markers_state(memory) == "missing",
                        apply=lambda: remove_markers(memory)))

    def _plan_forget_record(self, report: Report) -> None:
        record_path = paths.log_dir() / UNDO_FILE
        report.add(Step(f"forget {record_path}", done=not record_path.exists(),
                        apply=lambda: record_path.unlink(missing_ok=True)))

    def _restore(self, restore: dict[str, Any]) -> None:
        config = _read_config()  # after the uninstall, which writes the file too
        todo = {k: v for k, v in restore.items()
                if not (dig(config, k) == v or (v is _MISSING and dig(config, k) is _MISSING))}
        if not todo:
            return
        todo = _without_emptied(config, todo)
        if self.cli is None:
            self._edit_file(todo)
        elif self.modern:  # one validated write; null deletes a path
            patch: dict = {}
            for key, value in todo.items():
                _put(patch, key, None if value is _MISSING else value)
            self.cli.run("config", "patch", "--stdin", input=json.dumps(patch))
        else:
            for key, value in todo.items():
                if value is _MISSING:
                    self.cli.run("config", "unset", key)
                else:
                    self.cli.run("config", "set", key, json.dumps(value), "--strict-json")


# what `plugins uninstall` leaves of the plugin install init made: gone when nothing is left
_UNINSTALL_LEFTOVERS = ("plugins.installs", "plugins.load.paths")


def _without_emptied(config: dict, todo: dict[str, Any]) -> dict[str, Any]:
    """``todo`` with the objects its unsets (and the plugin's uninstall) leave empty unset too,
    each at its highest emptied level (``memoryFlush: {}`` goes, and ``compaction`` with it
    when nothing else is in it): an undo leaves no ``{}`` behind where init put a setting."""
    after = copy.deepcopy(config)
    for key, value in todo.items():
        _put(after, key, value)
    unset = [key for key, value in todo.items() if value is _MISSING]
    unset += [key for key in _UNINSTALL_LEFTOVERS if dig(after, key) in ({}, [])]
    emptied: list[str] = []
    for key in unset:
        parts = key.split(".")
        if dig(after, key) in ({}, []):
            _put(after, key, _MISSING)
            emptied.append(key)
        for depth in range(len(parts) - 1, 0, -1):
            parent = ".".join(parts[:depth])
            if dig(after, parent) != {}:
                break
            _put(after, parent, _MISSING)
            emptied.append(parent)
    out = dict(todo)
    for gone in emptied:  # one unset of the emptied object, none of what was inside it
        out = {k: v for k, v in out.items() if not k.startswith(gone + ".")}
        out[gone] = _MISSING
    return out


def _remove_skill(dest: Path) -> None:
    dest.unlink(missing_ok=True)
    try:
        dest.parent.rmdir()
    except OSError:
        pass

"""init's steps, in the order it takes them: the log directory, the plugin and the settings, the
skill, the MEMORY.md markers, the nightly briefing job, memory-core's leftover jobs and (2026.2)
the exec approval; and the record of what init replaced, for ``--undo``."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from .. import paths
from ..briefing import (  # MEMORY.md's markers live with the briefing
    add_markers,
    markers_problem,
    markers_state,
)
from ..errors import ZettelclawError
from ..fsutil import FILE_MODE, atomic_write, ensure_private_dir
from .approvals import exec_allowed
from .cli import _join
from .config import _MISSING, _load_record, _read_config, _tilde, dig
from .host import zettelclaw_executable
from .report import Report, Step, _nothing
from .settings import (
    BRIEFING_JOB,
    CRON_RECORD,
    PLUGIN_ID,
    SLOT_KEY,
    UNDO_FILE,
    desired_settings,
)


class InstallSteps:
    """init's steps, a part of :class:`~.installer.Installer` (whose state they use)."""

    def plan_init(self) -> Report:
        report = Report()
        self._plan_log_dir(report)
        self._plan_plugin_and_settings(report)
        self._plan_skill(report)
        self._plan_markers(report)
        self._plan_vault(report)
        self._plan_cron(report)
        self._plan_memory_core_jobs(report)
        self._plan_exec_approval(report)
        report.notes.append(self.memory_commands_note())
        report.notes.append(self.people_note())
        return report

    def people_note(self) -> str:
        """What happens with other people's direct messages (docs/people.md)."""
        session = self.config.get("session") if isinstance(self.config, dict) else None
        scope = session.get("dmScope") if isinstance(session, dict) else None
        if scope in (None, "main"):
            how = ("session.dmScope is main: every direct message shares the owner's main "
                   "session; what another person says there (OpenClaw's senderIsOwner false) "
                   "is kept as untrusted and never put before a prompt. With "
                   "`openclaw config set session.dmScope per-channel-peer` each person's DMs "
                   "become their own memory")
        else:
            how = (f"session.dmScope is {scope}: each person's direct messages make their own "
                   "memory, which only their sessions see (session.identityLinks names them; "
                   "commands.ownerAllowFrom says which are the owner)")
        reach = briefing_reach(self.config, self.modern)
        return (f"People: {how}. Words of a web page or another person are kept untrusted: "
                "`zettelclaw review untrusted` lists them (docs/people.md)."
                + (f" {reach[1]}" if reach else ""))

    def memory_commands_note(self) -> str:
        """What answers memory-core's `openclaw memory ...` now. 2026.9 lets the plugin take
        that root while memory-core is off; 2026.2 keeps it as a command of its own (the
        plugin's registration is refused), so say what replaces each one."""
        if self.modern:
            return ("`openclaw memory status|search|get|forget` answer from zettelclaw once the "
                    "gateway has the plugin (`zettelclaw init --undo` gives them back to "
                    "memory-core).")
        return ("`openclaw memory ...` stays OpenClaw 2026.2's own command (it refuses a plugin "
                "that takes it), and reads memory-core's index: use `openclaw zettelclaw stats` "
                "for `memory status`, `openclaw zettelclaw search QUERY` for `memory search`, "
                "and `openclaw zettelclaw get ID`, `openclaw zettelclaw forget ID`.")

    def _plan_plugin_and_settings(self, report: Report) -> None:
        if self.cli is not None and self.modern and not self.plugin_linked():
            # 2026.9 hot-loads the plugin as soon as `plugins install` enables it: its
            # conversation-access flag (and everything else but the slot, which needs the plugin
            # known) goes in one write BEFORE that, so before_prompt_build is never blocked
            self._plan_settings(report, skip=(SLOT_KEY,))
            self._plan_plugin(report)
            self._plan_settings(report, only=(SLOT_KEY,))  # `plugins install` sets it itself
        else:
            self._plan_plugin(report)
            self._plan_settings(report)

    def _plan_log_dir(self, report: Report) -> None:
        directory = paths.log_dir()
        report.add(Step(f"log directory {directory} (0700)",
                        done=directory.is_dir() and _mode(directory) == 0o700,
                        apply=lambda: (ensure_private_dir(directory),
                                       os.chmod(directory, 0o700)),
                        problem=_directory_problem(directory, "the log directory")))
        for path, initial in ((paths.log_path(), ""), (paths.subjects_path(), "{}\n"),
                              (paths.state_path(), _initial_state())):
            report.add(Step(f"{path.name} in the log directory (0600)",
                            done=path.is_file() and _mode(path) == FILE_MODE,
                            apply=lambda p=path, body=initial: _ensure_file(p, body)))

    def _plan_plugin(self, report: Report) -> None:
        args = ["plugins", "install", "--link", str(self.plugin_dir)]
        if self.modern:
            args += ["--force", "--accept-capabilities"]
        linked = self.plugin_linked()
        enabled = dig(self.config, f"plugins.entries.{PLUGIN_ID}.enabled") is True
        if not (self.plugin_dir / "openclaw.plugin.json").is_file():
            report.add(Step(f"install the plugin {self.plugin_dir}", problem=(
                f"this install lacks the OpenClaw plugin ({self.plugin_dir}/openclaw.plugin.json"
                " is missing): reinstall zettelclaw")))
            return
        if self.cli:
            report.add(Step(f"install the plugin: openclaw {_join(args)}",
                            done=linked and enabled,
                            apply=lambda: self.cli.run(*args)))
        else:
            report.add(Step(f"link the plugin {self.plugin_dir} (plugins.load.paths)",
                            done=linked, apply=self._link_plugin_in_file))

    def _plan_settings(self, report: Report, *, skip: tuple[str, ...] = (),
                       only: tuple[str, ...] | None = None) -> None:
        vault = _tilde(self.vault) if self.vault is not None else None
        wanted = {k: v for k, v in desired_settings(self.cli, self.config, version=self.version,
                                                    timezone=self.tz(), vault=vault).items()
                  if k not in skip and (only is None or k in only)}
        if not wanted:
            return
        pending = {k: v for k, v in wanted.items() if dig(self.config, k) != v}
        for key, value in wanted.items():
            report.add(Step(f"set {key} = {json.dumps(value)}", done=key not in pending))
        first = True
        for step in report.steps[-len(wanted):]:
            if not step.done:  # the first pending step carries the one (batched) write
                step.apply = (lambda: self._write_settings(pending)) if first else _nothing
                first = False

    def _write_settings(self, pending: dict[str, Any]) -> None:
        config = _read_config()  # after the plugin install, which writes the file too
        todo = {k: v for k, v in pending.items() if dig(config, k) != v}
        self._remember(config, todo)
        if not todo:
            return
        if self.cli is None:
            self._edit_file(todo)
        elif self.modern:
            batch = [{"path": k, "value": v} for k, v in todo.items()]
            self.cli.run("config", "set", "--batch-json", json.dumps(batch))
        else:
            for key, value in todo.items():
                self.cli.run("config", "set", key, json.dumps(value), "--strict-json")

    def _plan_skill(self, report: Report) -> None:
        dest = self.skill_dest()
        source = self.skill_src
        current = source.is_file() and dest.is_file() and dest.read_bytes() == source.read_bytes()
        missing = None if source.is_file() else (
            f"this install lacks the skill ({source} is missing): reinstall zettelclaw")
        report.add(Step(f"skill {_tilde(dest)} (a copy of {source})", done=current,
                        apply=lambda: _install_skill(source, dest), problem=missing))

    def _plan_markers(self, report: Report) -> None:
        """The markers go into MEMORY.md now when the workspace exists. OpenClaw creates the
        workspace itself at the agent's first turn (and seeds it only when nothing is in it:
        a MEMORY.md put there first would change what it does), so a missing one is left to
        OpenClaw and the markers to the first `zettelclaw brief` after that turn."""
        memory = paths.memory_md_path()
        what = f"briefing markers in {memory}"
        if not os.path.lexists(memory.parent):
            report.add(Step(what, later=(
                f"the workspace {memory.parent} does not exist yet: OpenClaw creates it at the "
                "agent's first turn, and the first `zettelclaw brief` after that (the nightly "
                "job) writes MEMORY.md with the markers")))
            return
        problem = markers_problem(memory)
        report.add(Step(what, done=problem is None and markers_state(memory) == "ok",
                        apply=lambda: add_markers(memory), problem=problem))

    def _plan_vault(self, report: Report) -> None:
        """init --vault DIR: each agent's vault DIR/<agent> with the §7.4 folders; only the
        missing folders are made, nothing in DIR is touched (the nightly brief fills them)."""
        if self.vault is None:
            return
        from ..vault import FOLDERS, agent_vault, ensure_folders
        from ..vault.layout import folders_problem, link_workspace

        for agent in paths.agent_ids():
            vault = agent_vault(self.vault, agent)
            workspace = Path(paths.agent_workspace(agent))
            report.add(Step(f"vault of agent {agent}: {vault} ({', '.join(FOLDERS)}; "
                            f"02 Agent/Workspace links to {workspace})",
                            done=all((vault / name).is_dir() for name in FOLDERS),
                            apply=lambda v=vault, w=workspace: (ensure_folders(v),
                                                                link_workspace(v, w)),
                            problem=folders_problem(vault)))

    def _plan_cron(self, report: Report) -> None:
        what = f"nightly briefing job {BRIEFING_JOB} ({self.schedule}, {self.tz()})"
        job = self.find_briefing_job()
        if isinstance(job, dict):
            report.add(Step(what, done=True))
            return
        if job is None:
            args = self.cron_add_args()
            report.add(Step(f"{what}: openclaw {_join(args)}",
                            apply=lambda: (self.cli.run(*args), self._note_cron_job())))
            return
        todo = "\n".join([
            "No gateway is running to register it with: start it and run `zettelclaw init` "
            "again, or run",
            "  openclaw " + _join(self.cron_add_args()),
            "or add these lines to your crontab (crontab -e):",
            *("  " + line for line in self.crontab_line().splitlines()),
        ])
        report.add(Step(what, manual=todo))

    def _plan_memory_core_jobs(self, report: Report) -> None:
        """A dreaming job memory-core scheduled before it was disabled stays in the gateway's
        cron store (a disabled plugin reconciles nothing) and would still fire at night: remove
        it. memory-core schedules it again itself when ``--undo`` enables it."""
        for job in self.memory_core_jobs():
            job_id = str(job.get("id") or job.get("jobId"))
            report.add(Step(f"remove memory-core's job {job.get('name')!r} (it rewrites MEMORY.md "
                            f"and calls the model): openclaw cron rm {job_id}",
                            apply=lambda j=job_id: self.cli.run("cron", "rm", j)))

    # ---- 2026.2: the nightly agent turn runs `zettelclaw brief` with its exec tool

    def _plan_exec_approval(self, report: Report) -> None:
        if self.modern:
            return  # 2026.9 runs the job as a command, no agent turn, no exec approval
        exe = zettelclaw_executable()
        agent = self.approval_agent()
        args = ["approvals", "allowlist", "add", "--agent", agent, exe]
        what = (f"let the nightly job run {exe} without an approval prompt: "
                f"openclaw {_join(args)}")
        if exec_allowed(agent, exe):
            report.add(Step(what, done=True))
        elif self.cli is None:
            report.add(Step(what, manual=f"run `openclaw {_join(args)}` once OpenClaw's CLI is "
                                         "installed"))
        else:
            report.add(Step(what, apply=lambda: self._allow_exec(agent, exe, args)))

    def _allow_exec(self, agent: str, exe: str, args: list[str]) -> None:
        self.cli.run(*args)
        record_path = paths.log_dir() / UNDO_FILE
        record = _load_record(record_path)
        added = record.setdefault("execAllowlist", [])
        if {"agent": agent, "pattern": exe} not in added:
            added.append({"agent": agent, "pattern": exe})
        ensure_private_dir(record_path.parent)
        atomic_write(record_path, json.dumps(record, indent=2) + "\n")

    # ---- what init replaced, for --undo

    def _remember(self, config: dict, todo: dict[str, Any]) -> None:
        record_path = paths.log_dir() / UNDO_FILE
        record = _load_record(record_path)
        previous = record.setdefault("previous", {})
        for key in todo:
            if key not in previous:
                value = dig(config, key)
                previous[key] = {"absent": True} if value is _MISSING else {"value": value}
        record["pluginDir"] = str(self.plugin_dir)
        # whether an init registered the nightly job with a gateway: --undo without a gateway
        # asks you to remove it only then (_note_cron_job sets it)
        record.setdefault(CRON_RECORD, False)
        ensure_private_dir(record_path.parent)
        atomic_write(record_path, json.dumps(record, indent=2) + "\n")


    def _note_cron_job(self) -> None:
        record_path = paths.log_dir() / UNDO_FILE
        record = _load_record(record_path)
        record[CRON_RECORD] = True
        ensure_private_dir(record_path.parent)
        atomic_write(record_path, json.dumps(record, indent=2) + "\n")


def _mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


def _directory_problem(directory: Path, name: str) -> str | None:
    """Why ``directory`` cannot be (or be made) a directory this user writes in, or None."""
    if directory.exists() and not directory.is_dir():
        return f"{name} {directory} is a file, not a directory: move it aside"
    existing = directory
    while not existing.exists() and existing.parent != existing:
        existing = existing.parent
    if existing.is_dir() and not os.access(existing, os.W_OK | os.X_OK):
        return f"{name} {directory} cannot be written: {existing} is not writable by this user"
    return None


def _initial_state() -> str:
    return json.dumps({"version": 1, "extractedSessions": {}, "failedSessions": {}},
                      indent=2) + "\n"


def _ensure_file(path: Path, body: str) -> None:
    ensure_private_dir(path.parent)
    if path.exists():
        os.chmod(path, FILE_MODE)
    else:
        atomic_write(path, body, mode=FILE_MODE)


def _install_skill(source: Path, dest: Path) -> None:
    if not source.is_file():
        raise ZettelclawError(f"the skill {source} is missing from this install")
    dest.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(dest, source.read_bytes(), mode=0o644)


def briefing_reach(config: dict, modern: bool) -> tuple[bool, str] | None:
    """Whether the owner's MEMORY.md (the briefing) stays out of other people's direct
    sessions, and what to say of it; None when the DMs all share the main session
    (``session.dmScope`` main, or unset). OpenClaw puts MEMORY.md into every session it does
    not filter itself; zettelclaw's plugin takes it out of another person's with an
    ``agent:bootstrap`` internal hook, which OpenClaw runs unless ``hooks.internal.enabled`` is
    false (2026.9), or only when it is true (2026.2). (True, text): kept out; (False, text):
    it reaches them, and the choice."""
    session = config.get("session") if isinstance(config, dict) else None
    scope = session.get("dmScope") if isinstance(session, dict) else None
    if scope in (None, "main"):
        return None
    enabled = dig(config, "hooks.internal.enabled")
    if (enabled is not False) if modern else (enabled is True):
        return True, ("The owner's MEMORY.md (the briefing) is kept out of other people's "
                      "sessions by zettelclaw's agent:bootstrap hook.")
    if modern:
        return False, ("hooks.internal.enabled is false, so OpenClaw puts the owner's MEMORY.md "
                       "(the briefing) into every person's direct session: `openclaw config "
                       "set hooks.internal.enabled true` lets zettelclaw keep it out "
                       "(docs/people.md).")
    return False, ("OpenClaw 2026.2 puts the owner's MEMORY.md (the briefing) into every "
                   "person's direct session unless hooks.internal.enabled is true, the only "
                   "way it runs zettelclaw's agent:bootstrap hook that keeps it out. Choose: "
                   "`openclaw config set hooks.internal.enabled true` (it also turns on "
                   "OpenClaw's other bundled internal hooks not set off, such as boot-md and "
                   "command-logger), or OpenClaw 2026.9, or a briefing other people read "
                   "(docs/people.md).")

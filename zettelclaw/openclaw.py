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
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import paths
from .briefing import (  # MEMORY.md's markers live with the briefing
    BEGIN_MARKER,
    END_MARKER,
    add_markers,
    generated_block,
    markers_state,
    remove_markers,
)
from .errors import UsageError, ZettelclawError
from .fsutil import FILE_MODE, atomic_write, ensure_private_dir

PLUGIN_ID = "zettelclaw"
BRIEFING_JOB = "zettelclaw-briefing"
UNDO_FILE = "openclaw-init.json"
MEMORY_CORE_ENABLED = "plugins.entries.memory-core.enabled"
SLOT_KEY = "plugins.slots.memory"
# memory-core's own cron jobs (2026.9: "Memory Dreaming Promotion") carry this declaration key
MEMORY_CORE_JOB_PREFIX = "memory-core:"
DEFAULT_SCHEDULE = "0 3 * * *"
# OpenClaw's bootstrap limits when the config sets none (per file / all files, characters)
BOOTSTRAP_MAX_CHARS = 20_000
BOOTSTRAP_TOTAL_MAX_CHARS = {"2026.2": 150_000, "default": 60_000}
BRIEFING_MAX_LINES = 80
CLI_TIMEOUT = 180.0

_MISSING: Any = object()


class OpenClawError(ZettelclawError):
    """An ``openclaw`` command failed."""


# --------------------------------------------------------------------------- the openclaw CLI


def _parse_version(text: str) -> tuple[int, ...] | None:
    match = re.search(r"(\d{4})\.(\d+)\.(\d+)", text)
    return tuple(int(x) for x in match.groups()) if match else None


class OpenClawCLI:
    """The ``openclaw`` executable: runs it and knows what its version can do."""

    def __init__(self, path: str, env: dict[str, str] | None = None):
        self.path = path
        self.env = env
        self._version: tuple[int, ...] | None = None

    @classmethod
    def find(cls, explicit: str | None = None) -> OpenClawCLI | None:
        """``explicit`` (``--openclaw``), else ``$OPENCLAW_BIN``, else ``openclaw`` on PATH."""
        for candidate, source in ((explicit, "--openclaw"),
                                  (os.environ.get("OPENCLAW_BIN"), "OPENCLAW_BIN")):
            if candidate:
                found = shutil.which(os.path.expanduser(candidate))
                if not found:
                    raise UsageError(f"{source}: {candidate} is not an executable")
                return cls(found)
        found = shutil.which("openclaw")
        return cls(found) if found else None

    def run(self, *args: str, check: bool = True, timeout: float = CLI_TIMEOUT,
            input: str | None = None) -> subprocess.CompletedProcess:
        try:
            proc = subprocess.run([self.path, *args], capture_output=True, text=True,
                                  timeout=timeout, input=input, env=self.env,
                                  stdin=None if input is not None else subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            raise OpenClawError(
                f"`openclaw {_join(args)}` did not finish in {timeout:.0f}s") from None
        except OSError as exc:
            raise OpenClawError(f"cannot run {self.path}: {exc}") from None
        if check and proc.returncode != 0:
            raise OpenClawError(f"`openclaw {_join(args)}` failed: {_tail(proc)}")
        return proc

    @property
    def version(self) -> tuple[int, ...]:
        if self._version is None:
            proc = self.run("--version", timeout=60)
            version = _parse_version(proc.stdout)
            if version is None:
                raise OpenClawError(f"cannot read a version from `openclaw --version`: "
                                    f"{proc.stdout.strip()!r}")
            self._version = version
        return self._version

    @property
    def version_text(self) -> str:
        return ".".join(str(x) for x in self.version)

    @property
    def modern(self) -> bool:
        """2026.9 and later: conversation-access gate, command cron jobs, batch config set."""
        return self.version >= (2026, 9)


def _join(args) -> str:
    return " ".join(shlex.quote(a) for a in args)


def _tail(proc: subprocess.CompletedProcess) -> str:
    text = "\n".join(x for x in (proc.stderr.strip(), proc.stdout.strip()) if x)
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.startswith("    at ")]
    return " | ".join(lines[-3:]) or f"exit code {proc.returncode}"


# --------------------------------------------------------------------------- config helpers


def dig(data: Any, dotted: str) -> Any:
    for key in _split(dotted):
        if not isinstance(data, dict) or key not in data:
            return _MISSING
        data = data[key]
    return data


def _split(dotted: str) -> list[str]:
    return dotted.split(".")


def _put(data: dict, dotted: str, value: Any) -> None:
    keys = _split(dotted)
    for key in keys[:-1]:
        child = data.get(key)
        if not isinstance(child, dict):
            child = data[key] = {}
        data = child
    if value is _MISSING:
        data.pop(keys[-1], None)
    else:
        data[keys[-1]] = value


def _read_config() -> dict:
    paths._config_cache.clear()  # always the file as it is now
    return paths.load_openclaw_config()


def _tilde(path: Path) -> str:
    home = str(paths.home_dir())
    text = str(path)
    return "~" + text[len(home):] if text == home or text.startswith(home + os.sep) else text


def local_timezone() -> str:
    """The machine's IANA zone name (``$TZ``, /etc/timezone, /etc/localtime), else UTC."""
    tz = os.environ.get("TZ", "").lstrip(":")
    if "/" in tz and not tz.startswith("/"):
        return tz
    try:
        text = Path("/etc/timezone").read_text().strip()
        if text:
            return text
    except OSError:
        pass
    try:
        target = os.path.realpath("/etc/localtime")
        if "zoneinfo/" in target:
            return target.split("zoneinfo/", 1)[1]
    except OSError:
        pass
    return "UTC"


def zettelclaw_executable() -> str:
    """The absolute path of this zettelclaw, for cron jobs run without our PATH."""
    beside = Path(sys.executable).parent / "zettelclaw"
    if beside.exists():
        return str(beside)
    found = shutil.which("zettelclaw")
    if found:
        return os.path.abspath(found)
    argv0 = Path(sys.argv[0])
    if argv0.name == "zettelclaw" and argv0.exists():
        return str(argv0.resolve())
    return "zettelclaw"


def plugin_defaults(timezone: str) -> dict[str, Any]:
    """The plugin's config (design §8.4), written only where the user has set nothing."""
    return {
        "logDir": _tilde(paths.log_dir()),
        "command": zettelclaw_executable(),
        "cron": {"schedule": DEFAULT_SCHEDULE, "timezone": timezone},
    }


def _flatten(prefix: str, value: Any) -> list[tuple[str, Any]]:
    if isinstance(value, dict) and value:
        out: list[tuple[str, Any]] = []
        for key, child in value.items():
            out.extend(_flatten(f"{prefix}.{key}", child))
        return out
    return [(prefix, value)]


def desired_settings(cli: OpenClawCLI | None, config: dict, *,
                     version: tuple[int, ...] | None, timezone: str) -> dict[str, Any]:
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


# --------------------------------------------------------------------------- the plan


@dataclass
class Step:
    """One thing init makes true. ``done`` when it already holds; ``manual`` when the user must
    act (printed as a command to run)."""

    what: str
    done: bool = False
    manual: str | None = None
    apply: Any = None  # callable, run when not done and not a dry run

    def to_dict(self) -> dict:
        status = "ok" if self.done else ("manual" if self.manual else "change")
        out = {"what": self.what, "status": status}
        if self.manual:
            out["todo"] = self.manual
        return out


@dataclass
class Report:
    steps: list[Step] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(self, step: Step) -> Step:
        self.steps.append(step)
        return step


class Installer:
    """Builds the list of steps for init or undo, then applies them in order."""

    def __init__(self, cli: OpenClawCLI | None, *, timezone: str | None = None,
                 schedule: str | None = None):
        self.cli = cli
        self.timezone = timezone
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

    # ---- init

    def plan_init(self) -> Report:
        report = Report()
        self._plan_log_dir(report)
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
        self._plan_skill(report)
        self._plan_markers(report)
        self._plan_cron(report)
        self._plan_memory_core_jobs(report)
        self._plan_exec_approval(report)
        return report

    def _plan_log_dir(self, report: Report) -> None:
        directory = paths.log_dir()
        report.add(Step(f"log directory {directory} (0700)",
                        done=directory.is_dir() and _mode(directory) == 0o700,
                        apply=lambda: (ensure_private_dir(directory),
                                       os.chmod(directory, 0o700))))
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
        if self.cli:
            report.add(Step(f"install the plugin: openclaw {_join(args)}",
                            done=linked and enabled,
                            apply=lambda: self.cli.run(*args)))
        else:
            report.add(Step(f"link the plugin {self.plugin_dir} (plugins.load.paths)",
                            done=linked, apply=self._link_plugin_in_file))

    def _plan_settings(self, report: Report, *, skip: tuple[str, ...] = (),
                       only: tuple[str, ...] | None = None) -> None:
        wanted = {k: v for k, v in desired_settings(self.cli, self.config, version=self.version,
                                                    timezone=self.tz()).items()
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
        report.add(Step(f"skill {_tilde(dest)} (a copy of {source})", done=current,
                        apply=lambda: _install_skill(source, dest)))

    def _plan_markers(self, report: Report) -> None:
        memory = paths.memory_md_path()
        report.add(Step(f"briefing markers in {memory}", done=markers_state(memory) == "ok",
                        apply=lambda: add_markers(memory)))

    def _plan_cron(self, report: Report) -> None:
        what = f"nightly briefing job {BRIEFING_JOB} ({self.schedule}, {self.tz()})"
        job = self.find_briefing_job()
        if isinstance(job, dict):
            report.add(Step(what, done=True))
            return
        if job is None:
            args = self.cron_add_args()
            report.add(Step(f"{what}: openclaw {_join(args)}", apply=lambda: self.cli.run(*args)))
            return
        todo = "\n".join([
            "No gateway is running to register it with: start it and run `zettelclaw init` "
            "again, or run",
            "  openclaw " + _join(self.cron_add_args()),
            "or add these lines to your crontab (crontab -e):",
            *("  " + line for line in self.crontab_line().splitlines()),
        ])
        report.add(Step(what, manual=todo))

    def memory_core_jobs(self) -> list[dict]:
        """memory-core's own scheduled jobs (2026.9's dreaming), as the gateway lists them."""
        return [j for j in (self.cron_jobs() or []) if isinstance(j, dict) and str(
            j.get("declarationKey", "")).startswith(MEMORY_CORE_JOB_PREFIX)]

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

    def approval_agent(self) -> str:
        """The agent whose isolated turn runs the briefing job (OpenClaw's default agent)."""
        return paths.default_agent()

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

    # ---- the no-CLI path: edit the JSON5 file after a backup

    def _backup_config(self) -> Path | None:
        """One backup per run, of the file as it was before this run touched it."""
        path = paths.openclaw_config_path()
        if getattr(self, "_backup", None) or not path.exists():
            return None
        from .clock import now

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
        ensure_private_dir(record_path.parent)
        atomic_write(record_path, json.dumps(record, indent=2) + "\n")

    # ---- undo

    def plan_undo(self) -> Report:
        report = Report()
        record = _load_record(paths.log_dir() / UNDO_FILE)
        previous: dict[str, dict] = record.get("previous", {})
        job = self.find_briefing_job()
        if isinstance(job, dict):
            job_id = str(job.get("id") or job.get("jobId") or BRIEFING_JOB)
            report.add(Step(f"remove the cron job {BRIEFING_JOB}: openclaw cron rm {job_id}",
                            apply=lambda: self.cli.run("cron", "rm", job_id)))
        elif job is False:
            report.add(Step(f"remove the cron job {BRIEFING_JOB}",
                            manual="no gateway is running: once it runs, "
                                   f"`openclaw cron list` and `openclaw cron rm <id>` for "
                                   f"{BRIEFING_JOB}; or remove the crontab line if you added "
                                   "one"))
        if self.plugin_linked() or dig(self.config, f"plugins.entries.{PLUGIN_ID}") \
                is not _MISSING:
            if self.cli:
                args = ["plugins", "uninstall", PLUGIN_ID, "--force", "--keep-files"]
                report.add(Step(f"uninstall the plugin (its files stay): openclaw {_join(args)}",
                                apply=lambda: self.cli.run(*args)))
            else:
                report.add(Step("unlink the plugin from the config file",
                                apply=self._unlink_plugin_in_file))
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
        first = True
        for key, value in restore.items():
            shown = "unset (OpenClaw's default)" if value is _MISSING else json.dumps(value)
            done = dig(self.config, key) == value or (
                value is _MISSING and dig(self.config, key) is _MISSING)
            step = report.add(Step(f"{key}: {shown}", done=done))
            if not done:  # the first pending step carries the one write
                step.apply = (lambda: self._restore(restore)) if first else _nothing
                first = False
        for added in record.get("execAllowlist", []):
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
        dest = self.skill_dest()
        report.add(Step(f"remove the skill {_tilde(dest)}", done=not dest.exists(),
                        apply=lambda: _remove_skill(dest)))
        memory = paths.memory_md_path()
        report.add(Step(f"remove the briefing markers and generated block from {memory}",
                        done=markers_state(memory) == "missing",
                        apply=lambda: remove_markers(memory)))
        record_path = paths.log_dir() / UNDO_FILE
        report.add(Step(f"forget {record_path}", done=not record_path.exists(),
                        apply=lambda: record_path.unlink(missing_ok=True)))
        report.notes.append(f"The log in {paths.log_dir()} is kept: it is your memory.")
        return report

    def _restore(self, restore: dict[str, Any]) -> None:
        config = _read_config()  # after the uninstall, which writes the file too
        todo = {k: v for k, v in restore.items()
                if not (dig(config, k) == v or (v is _MISSING and dig(config, k) is _MISSING))}
        if not todo:
            return
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

    def _unlink_plugin_in_file(self) -> None:
        config = _read_config()
        target = os.path.realpath(self.plugin_dir)
        load_paths = [p for p in (dig(config, "plugins.load.paths") or [])
                      if os.path.realpath(os.path.expanduser(str(p))) != target]
        self._edit_file({"plugins.load.paths": load_paths,
                         f"plugins.entries.{PLUGIN_ID}": _MISSING})


def _nothing() -> None:
    pass


def exec_approvals_path() -> Path:
    """OpenClaw's exec approvals on this host (2026.2: always ``~/.openclaw/``, whatever the
    state dir)."""
    return paths.home_dir() / ".openclaw" / "exec-approvals.json"


def _approvals() -> dict:
    data = _load_record(exec_approvals_path())
    agents = data.get("agents")
    return agents if isinstance(agents, dict) else {}


def exec_allowlist_has(agent: str, pattern: str) -> bool:
    """Whether ``agent``'s allowlist holds exactly ``pattern`` (OpenClaw compares it lower-case)."""
    entries = (_approvals().get(agent) or {}).get("allowlist") or []
    return any(isinstance(e, dict) and str(e.get("pattern", "")).strip().lower()
               == pattern.strip().lower() for e in entries)


def exec_allowed(agent: str, exe: str) -> bool:
    """Whether ``agent`` (or every agent, ``*``) may run ``exe`` without a prompt: an allowlist
    pattern (a case-insensitive glob over the resolved path) matches it, or its exec security is
    ``full``."""
    import fnmatch

    approvals = _approvals()
    target = exe.lower()
    for key in (agent, "*"):
        scope = approvals.get(key)
        if not isinstance(scope, dict):
            continue
        if scope.get("security") == "full":
            return True
        for entry in scope.get("allowlist") or []:
            pattern = str(entry.get("pattern", "")) if isinstance(entry, dict) else ""
            pattern = os.path.expanduser(pattern.strip()).lower()
            if pattern and (pattern == target or fnmatch.fnmatchcase(target, pattern)):
                return True
    return False


def apply(report: Report) -> None:
    for step in report.steps:
        if not step.done and not step.manual and step.apply is not None:
            step.apply()


def _load_record(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def _plugin_dir() -> Path:
    """The plugin folder to link (``$ZETTELCLAW_PLUGIN_DIR`` for a working copy)."""
    env = os.environ.get("ZETTELCLAW_PLUGIN_DIR")
    if env:
        return Path(env).expanduser().absolute()
    from .resources import plugin_dir

    return plugin_dir()


def _skill_src() -> Path:
    """The SKILL.md to install (``$ZETTELCLAW_SKILL_DIR`` for a working copy)."""
    env = os.environ.get("ZETTELCLAW_SKILL_DIR")
    if env:
        return Path(env).expanduser().absolute() / "SKILL.md"
    from .resources import skill_dir

    return skill_dir() / "SKILL.md"


def _mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


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


def _remove_skill(dest: Path) -> None:
    dest.unlink(missing_ok=True)
    try:
        dest.parent.rmdir()
    except OSError:
        pass


# --------------------------------------------------------------------------- doctor


@dataclass
class Check:
    name: str
    status: str  # ok | warn | fail
    detail: str
    fix: str | None = None

    def to_dict(self) -> dict:
        out = {"name": self.name, "status": self.status, "detail": self.detail}
        if self.fix:
            out["fix"] = self.fix
        return out


def doctor(cli: OpenClawCLI | None) -> list[Check]:
    checks: list[Check] = []
    add = checks.append
    if cli is None:
        add(Check("openclaw", "warn", "no `openclaw` CLI found (PATH, $OPENCLAW_BIN)",
                  "install OpenClaw or pass --openclaw PATH; without it the config is only "
                  "read, not validated, and the cron job cannot be checked"))
    else:
        try:
            add(Check("openclaw", "ok", f"{cli.path} (OpenClaw {cli.version_text})"))
        except OpenClawError as exc:
            add(Check("openclaw", "fail", str(exc), "check the OpenClaw install"))
            cli = None
    inst = Installer(cli)
    config = inst.config
    rerun = "run `zettelclaw init`"

    directory = paths.log_dir()
    if not directory.is_dir():
        add(Check("log directory", "fail", f"{directory} does not exist", rerun))
    else:
        bad = [p.name for p in (directory, paths.log_path(), paths.subjects_path(),
                                paths.state_path())
               if p.exists() and _mode(p) & 0o077]
        missing = [p.name for p in (paths.log_path(), paths.subjects_path(), paths.state_path())
                   if not p.exists()]
        if missing:
            add(Check("log directory", "fail", f"missing in {directory}: {', '.join(missing)}",
                      rerun))
        elif bad:
            add(Check("log directory", "warn", f"readable by others: {', '.join(bad)}",
                      f"chmod 700 {directory} && chmod 600 {directory}/*.json*"))
        else:
            add(Check("log directory", "ok", f"{directory} (private)"))

    if not (inst.plugin_dir / "openclaw.plugin.json").is_file():
        add(Check("plugin files", "fail", f"{inst.plugin_dir}/openclaw.plugin.json is missing",
                  "reinstall zettelclaw"))
    if inst.plugin_linked():
        add(Check("plugin installed", "ok", f"linked from {inst.plugin_dir}"))
        if cli is not None:
            add(plugin_runtime_check(cli))
    else:
        add(Check("plugin installed", "fail", f"{inst.plugin_dir} is not in plugins.load.paths",
                  rerun))

    wanted = desired_settings(cli, {}, version=inst.version, timezone=inst.tz())
    for key, value in wanted.items():
        if ".config." in key:
            continue  # plugin config: any value the user chose is fine
        current = dig(config, key)
        if current == value:
            add(Check(key, "ok", json.dumps(value)))
        else:
            shown = "unset" if current is _MISSING else json.dumps(current)
            why = f" ({SETTING_WHY[key]})" if key in SETTING_WHY else ""
            add(Check(key, "fail", f"is {shown}, should be {json.dumps(value)}{why}",
                      f"openclaw config set {key} {shlex.quote(json.dumps(value))} "
                      f"(or {rerun})"))

    dest, source = inst.skill_dest(), inst.skill_src
    if not dest.is_file():
        add(Check("skill", "fail", f"{dest} is missing", rerun))
    elif source.is_file() and dest.read_bytes() != source.read_bytes():
        add(Check("skill", "warn", f"{dest} differs from this version's SKILL.md", rerun))
    else:
        add(Check("skill", "ok", str(dest)))

    memory = paths.memory_md_path()
    state = markers_state(memory)
    if state == "ok":
        add(Check("briefing markers", "ok", str(memory)))
    elif state == "missing":
        add(Check("briefing markers", "fail", f"no briefing markers in {memory}", rerun))
    else:
        add(Check("briefing markers", "fail", f"unmatched briefing markers in {memory}",
                  f"keep one {BEGIN_MARKER} line before one {END_MARKER} line"))
    checks.extend(_briefing_size(inst, memory))

    job = inst.find_briefing_job()
    if isinstance(job, dict):
        add(Check("briefing job", "ok", f"{BRIEFING_JOB} ({_schedule_text(job)})"))
    elif job is None:
        add(Check("briefing job", "fail", f"no cron job named {BRIEFING_JOB}", rerun))
    else:
        add(Check("briefing job", "warn", "cannot ask the gateway (is it running?)",
                  "start the gateway and run `zettelclaw doctor` again"))

    dreaming = [j for j in inst.memory_core_jobs() if j.get("enabled") is not False]
    if dreaming and dig(config, SLOT_KEY) == PLUGIN_ID:
        job_id = dreaming[0].get("id") or dreaming[0].get("jobId")
        add(Check("memory-core dreaming", "fail",
                  f"memory-core's job {dreaming[0].get('name')!r} is still scheduled; it calls "
                  "the model at night and rewrites MEMORY.md, where the briefing lives",
                  f"openclaw cron rm {job_id} (or {rerun} with the gateway running)"))
    if not inst.modern:
        add(_exec_approval_check(inst))

    if shutil.which("zettelclaw") is None:
        configured = dig(config, f"plugins.entries.{PLUGIN_ID}.config.command")
        if not (isinstance(configured, str) and os.path.exists(configured)):
            add(Check("zettelclaw on PATH", "warn", "the plugin runs `zettelclaw` from PATH "
                      "and it is not there", f"openclaw config set plugins.entries.{PLUGIN_ID}"
                      f".config.command {shlex.quote(zettelclaw_executable())}"))
    checks.extend(model_key_checks())
    try:
        from .state import State

        failed = State.load().failedSessions
        if failed:
            add(_failed_sessions_check(failed))
    except ZettelclawError as exc:
        add(Check("extraction", "fail", str(exc), None))
    return checks


def _failed_sessions_check(failed: dict) -> Check:
    """Sessions whose extraction failed, and what tries them again: `zettelclaw import` for
    conversations from before the install (its failures are marked ``history``), `sweep
    --retry-failed` for the others."""
    from .counts import count

    imported = sum(1 for record in failed.values()
                   if isinstance(record, dict) and record.get("history"))
    hooks = len(failed) - imported
    parts = []
    if hooks:
        parts.append(f"{count(hooks, 'session')} failed to extract")
    if imported:
        parts.append(f"{count(imported, 'session')} of the history failed to import")
    if hooks and imported:
        fix = "zettelclaw sweep --retry-failed (the sessions), zettelclaw import (the history)"
    else:
        fix = "zettelclaw import" if imported else "zettelclaw sweep --retry-failed"
    return Check("extraction", "warn", "; ".join(parts), fix)


def _exec_approval_check(inst: Installer) -> Check:
    """2026.2: the briefing job is an agent turn whose exec call needs approval unless the
    executable is allowlisted; with nobody to approve it at night, MEMORY.md is never written."""
    exe = zettelclaw_executable()
    agent = inst.approval_agent()
    if exec_allowed(agent, exe):
        return Check("nightly exec approval", "ok", f"agent {agent} may run {exe} unattended")
    return Check("nightly exec approval", "fail",
                 f"the briefing job's exec call of {exe} waits for an approval nobody gives at "
                 f"night (not in {_tilde(exec_approvals_path())} for agent {agent})",
                 f"openclaw approvals allowlist add --agent {shlex.quote(agent)} "
                 f"{shlex.quote(exe)} (or run `zettelclaw init`)")


def model_key_checks() -> list[Check]:
    """Is a model key findable (where, never what), and do sessions wait for one?"""
    from .counts import count
    from .credentials import fix_text, lookup
    from .state import State, waiting

    found = lookup()
    try:
        waits = waiting(State.load())
    except ZettelclawError:
        waits = {"sessions": 0}  # an unreadable state.json is the extraction check's to report
    waiting_text = (f"; {count(waits['sessions'], 'session')} "
                    f"wait{'s' if waits['sessions'] == 1 else ''} for it since {waits['since']}"
                    if waits["sessions"] else "")
    notes = "".join(f"; {note}" for note in found.notes[:2])
    if found.credential is None:
        return [Check("model key", "fail",
                      f"no Anthropic key in the environment, OpenClaw's env file or its auth "
                      f"store: extraction cannot run{waiting_text}{notes}", fix_text())]
    out = [Check("model key", "ok", str(found.credential))]
    if waits["sessions"]:
        out.append(Check("waiting for a key", "warn",
                         f"{count(waits['sessions'], 'session')} waiting for a model key since "
                         f"{waits['since']}", "zettelclaw sweep"))
    return out


PLUGIN_HOOKS = ("session_end", "before_reset", "gateway_start", "before_prompt_build")
PLUGIN_TOOLS = ("memory_search", "memory_get")


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


def _schedule_text(job: dict) -> str:
    schedule = job.get("schedule")
    if isinstance(schedule, dict):
        return " ".join(str(schedule[k]) for k in ("expr", "tz") if schedule.get(k))
    return str(schedule or "")


def _briefing_size(inst: Installer, memory: Path) -> list[Check]:
    try:
        text = memory.read_text(encoding="utf-8")
    except (FileNotFoundError, UnicodeDecodeError):
        return []
    config = inst.config
    limit = dig(config, "agents.defaults.bootstrapMaxChars")
    limit = limit if isinstance(limit, int) else BOOTSTRAP_MAX_CHARS
    out = []
    size = len(text)
    if size > limit:
        out.append(Check("MEMORY.md size", "fail",
                         f"{size} characters; OpenClaw injects at most {limit} per bootstrap "
                         f"file (agents.defaults.bootstrapMaxChars), the rest is cut",
                         "shorten the manual part of MEMORY.md, lower briefing.maxLines, or "
                         f"openclaw config set agents.defaults.bootstrapMaxChars {size + 2000}"))
    elif size > limit * 0.8:
        out.append(Check("MEMORY.md size", "warn", f"{size} of {limit} characters",
                         "shorten the manual part of MEMORY.md before it gets cut"))
    else:
        out.append(Check("MEMORY.md size", "ok", f"{size} of {limit} characters"))
    block = generated_block(text)
    if block is not None:
        max_lines = dig(config, f"plugins.entries.{PLUGIN_ID}.config.briefing.maxLines")
        max_lines = max_lines if isinstance(max_lines, int) else BRIEFING_MAX_LINES
        lines = len(block.splitlines()) if block else 0
        status = "ok" if lines <= max_lines else "warn"
        out.append(Check("briefing length", status, f"{lines} of {max_lines} lines",
                         None if status == "ok" else "run `zettelclaw brief` to rewrite it"))
    return out

"""``zettelclaw doctor``'s checks: OpenClaw's CLI, the log directory, the plugin, the settings,
the skill, MEMORY.md (markers and size), the nightly job, memory-core's dreaming, the exec
approval (2026.2), the executable on PATH, the model key and failed extractions."""

from __future__ import annotations

import json
import os
import shlex
import shutil
from pathlib import Path

from .. import paths
from ..briefing import (  # MEMORY.md's markers live with the briefing
    BEGIN_MARKER,
    END_MARKER,
    generated_block,
    markers_state,
)
from ..errors import ZettelclawError
from .approvals import exec_allowed, exec_approvals_path
from .cli import OpenClawCLI, OpenClawError
from .config import _MISSING, _tilde, dig
from .host import zettelclaw_executable
from .install import _mode, briefing_reach
from .installer import Installer
from .report import Check
from .runtime import plugin_runtime_check
from .settings import BRIEFING_JOB, PLUGIN_ID, SETTING_WHY, SLOT_KEY, desired_settings

# OpenClaw's bootstrap limits when the config sets none (per file / all files, characters)
BOOTSTRAP_MAX_CHARS = 20_000
BOOTSTRAP_TOTAL_MAX_CHARS = {"2026.2": 150_000, "default": 60_000}
BRIEFING_MAX_LINES = 80
RERUN = "run `zettelclaw init`"


def doctor(cli: OpenClawCLI | None) -> list[Check]:
    checks: list[Check] = []
    openclaw, cli = _openclaw_check(cli)
    inst = Installer(cli)
    wired = _wired(inst)
    checks.append(openclaw)
    checks.append(_log_dir_check())
    if wired is None:
        checks.append(_not_wired(inst))
    else:
        checks.extend(_plugin_checks(inst, cli))
        checks.extend(_settings_checks(inst, cli))
        checks.append(_skill_check(inst))
    memory = paths.memory_md_path()
    checks.append(_markers_check(memory))
    checks.extend(_briefing_size(inst, memory))
    if wired is not None:
        checks.append(_briefing_job_check(inst))
        checks.extend(_dreaming_checks(inst))
        if not inst.modern:
            checks.append(_exec_approval_check(inst))
        checks.extend(_on_path_checks(inst.config))
        checks.extend(model_key_checks())
    else:
        checks.extend(model_key_checks(wired=False))
    checks.extend(_extraction_checks())
    checks.append(_people_check(inst.config))
    reach = briefing_reach(inst.config, inst.modern)
    if reach is not None:
        checks.append(Check("briefing-reach", "ok" if reach[0] else "warn", reach[1]))
    return checks


def _wired(inst: Installer) -> str | None:
    """Which of init's pieces this OpenClaw home has (the plugin linked, the memory slot, the
    skill), None when it has none: a home init never ran on (``make demo``'s, read by hand)."""
    if inst.plugin_linked():
        return "plugin"
    if dig(inst.config, SLOT_KEY) == PLUGIN_ID:
        return "slot"
    if inst.skill_dest().is_file():
        return "skill"
    return None


NOT_WIRED = "wired into OpenClaw"


def _not_wired(inst: Installer) -> Check:
    """One line for a home without any of init's pieces, in place of a failure per piece."""
    return Check(NOT_WIRED, "fail",
                 f"no: the OpenClaw home {paths.openclaw_state_dir()} has no zettelclaw plugin, "
                 "memory slot or skill, so no conversation is extracted or recalled there "
                 "(the log and MEMORY.md below are read by hand: `make demo`'s home is one)",
                 "`zettelclaw init` wires it (`zettelclaw init --dry-run` lists every change "
                 "first), then restart the gateway")


def _people_check(config: dict) -> Check:
    """Whose memory the log holds and where its words came from (docs/people.md)."""
    from collections import Counter

    from ..log import Log
    from ..people import OWNER, person_of, person_of_key, untrusted

    session = config.get("session") if isinstance(config, dict) else None
    scope = session.get("dmScope") if isinstance(session, dict) else None
    people: Counter = Counter()
    doubtful = 0
    keys = _session_keys()
    before: Counter = Counter()  # entries from before people, of another person's session
    try:
        for entry in Log(paths.log_path(), warn=False).entries():
            people[person_of(entry)] += 1
            doubtful += untrusted(entry)
            if "origin" not in entry and "person" not in entry:
                key = keys.get(entry.get("session"))
                if key and person_of_key(key, config) != OWNER:
                    before[person_of_key(key, config)] += 1
    except (OSError, ValueError):
        pass
    others = sorted(p for p in people if p != OWNER)
    said = (f"session.dmScope {scope or 'main (default)'}: "
            + ("every direct message shares the owner's main session, told apart by "
               "OpenClaw's senderIsOwner" if scope in (None, "main") else
               "each person's direct messages make their own memory"))
    said += (f"; the log holds the owner's entries and {len(others)} other "
             f"{'person' if len(others) == 1 else 'people'}'s ({', '.join(others[:5])}"
             f"{', ...' if len(others) > 5 else ''})" if others else "; the log holds the "
             "owner's entries alone")
    if before:
        total = sum(before.values())
        said += (f"; {total} entries from before people came from other people's direct "
                 f"sessions ({', '.join(sorted(before)[:5])}) and count as the owner's")
    if doubtful or before:
        return Check("people", "warn", said + (
            f"; {doubtful} untrusted {'entry is' if doubtful == 1 else 'entries are'} never "
            "put before a prompt nor in MEMORY.md" if doubtful else ""),
                     "zettelclaw review untrusted (confirm or forget them)" if doubtful else
                     "zettelclaw search --session ID for each, zettelclaw forget what is not "
                     "yours")
    return Check("people", "ok", said)


def _session_keys() -> dict:
    """sessionId -> the session key state.json recorded when it was extracted."""
    try:
        from ..state import State

        return {sid: r.get("key") for sid, r in State.load().extractedSessions.items()
                if isinstance(r, dict)}
    except (OSError, ValueError, ZettelclawError):
        return {}


def _openclaw_check(cli: OpenClawCLI | None) -> tuple[Check, OpenClawCLI | None]:
    """The CLI and its version; the CLI is dropped (None) when it cannot say its version."""
    if cli is None:
        return Check("openclaw", "warn", "no `openclaw` CLI found (PATH, $OPENCLAW_BIN)",
                     "install OpenClaw or pass --openclaw PATH; without it the config is only "
                     "read, not validated, and the cron job cannot be checked"), None
    try:
        return Check("openclaw", "ok", f"{cli.path} (OpenClaw {cli.version_text})"), cli
    except OpenClawError as exc:
        return Check("openclaw", "fail", str(exc), "check the OpenClaw install"), None


def _log_dir_check() -> Check:
    directory = paths.log_dir()
    if not directory.is_dir():
        return Check("log directory", "fail", f"{directory} does not exist", RERUN)
    bad = [p.name for p in (directory, paths.log_path(), paths.subjects_path(),
                            paths.state_path())
           if p.exists() and _mode(p) & 0o077]
    missing = [p.name for p in (paths.log_path(), paths.subjects_path(), paths.state_path())
               if not p.exists()]
    if missing:
        return Check("log directory", "fail", f"missing in {directory}: {', '.join(missing)}",
                     RERUN)
    from ..fsutil import can_lock

    refused = can_lock(directory)
    if refused is not None:  # a network share: every write would be refused
        return Check("log directory", "fail",
                     f"{directory} cannot be locked ({refused}; a network share?): every "
                     "write is refused",
                     "move it to a local disk: openclaw config set "
                     "plugins.entries.zettelclaw.config.logDir /a/local/dir")
    if bad:
        return Check("log directory", "warn", f"readable by others: {', '.join(bad)}",
                     f"chmod 700 {directory} && chmod 600 {directory}/*.json*")
    return Check("log directory", "ok", f"{directory} (private)")


def _plugin_checks(inst: Installer, cli: OpenClawCLI | None) -> list[Check]:
    out = []
    if not (inst.plugin_dir / "openclaw.plugin.json").is_file():
        out.append(Check("plugin files", "fail",
                         f"{inst.plugin_dir}/openclaw.plugin.json is missing",
                         "reinstall zettelclaw"))
    if inst.plugin_linked():
        out.append(Check("plugin installed", "ok", f"linked from {inst.plugin_dir}"))
        if cli is not None:
            out.append(plugin_runtime_check(cli))
    else:
        out.append(Check("plugin installed", "fail",
                         f"{inst.plugin_dir} is not in plugins.load.paths", RERUN))
    return out


def _settings_checks(inst: Installer, cli: OpenClawCLI | None) -> list[Check]:
    """Each setting init makes, as the config has it (the plugin's own config: any value)."""
    out = []
    wanted = desired_settings(cli, {}, version=inst.version, timezone=inst.tz())
    for key, value in wanted.items():
        if ".config." in key:
            continue  # plugin config: any value the user chose is fine
        current = dig(inst.config, key)
        if current == value:
            out.append(Check(key, "ok", json.dumps(value)))
        else:
            shown = "unset" if current is _MISSING else json.dumps(current)
            why = f" ({SETTING_WHY[key]})" if key in SETTING_WHY else ""
            fix = f"openclaw config set {key} {shlex.quote(json.dumps(value))} (or {RERUN})"
            if key == SLOT_KEY and not inst.plugin_linked():
                fix = RERUN  # OpenClaw refuses a slot naming a plugin it does not know yet
            out.append(Check(key, "fail", f"is {shown}, should be {json.dumps(value)}{why}",
                             fix))
    return out


def _skill_check(inst: Installer) -> Check:
    dest, source = inst.skill_dest(), inst.skill_src
    if not dest.is_file():
        return Check("skill", "fail", f"{dest} is missing", RERUN)
    if source.is_file() and dest.read_bytes() != source.read_bytes():
        return Check("skill", "warn", f"{dest} differs from this version's SKILL.md", RERUN)
    return Check("skill", "ok", str(dest))


def _markers_check(memory: Path) -> Check:
    state = markers_state(memory)
    if state == "ok":
        return Check("briefing markers", "ok", str(memory))
    if state == "missing" and not os.path.lexists(memory):
        # OpenClaw makes the workspace at the agent's first turn and no MEMORY.md in it;
        # the nightly brief writes the file, markers and all
        yet = "" if memory.parent.is_dir() else f" (nor the workspace {memory.parent})"
        return Check("briefing markers", "ok", f"no {memory} yet{yet}: the nightly "
                     "`zettelclaw brief` writes it, markers and all")
    if state == "missing":
        return Check("briefing markers", "fail", f"no briefing markers in {memory}", RERUN)
    return Check("briefing markers", "fail", f"unmatched briefing markers in {memory}",
                 f"keep one {BEGIN_MARKER} line before one {END_MARKER} line")


def _briefing_job_check(inst: Installer) -> Check:
    job = inst.find_briefing_job()
    if isinstance(job, dict):
        return Check("briefing job", "ok", f"{BRIEFING_JOB} ({_schedule_text(job)})")
    if job is None:
        return Check("briefing job", "fail", f"no cron job named {BRIEFING_JOB}", RERUN)
    return Check("briefing job", "warn", "cannot ask the gateway (is it running?)",
                 "start the gateway and run `zettelclaw doctor` again")


def _dreaming_checks(inst: Installer) -> list[Check]:
    """memory-core's dreaming job, still scheduled while zettelclaw holds the memory slot."""
    dreaming = [j for j in inst.memory_core_jobs() if j.get("enabled") is not False]
    if not (dreaming and dig(inst.config, SLOT_KEY) == PLUGIN_ID):
        return []
    job_id = dreaming[0].get("id") or dreaming[0].get("jobId")
    return [Check("memory-core dreaming", "fail",
                  f"memory-core's job {dreaming[0].get('name')!r} is still scheduled; it calls "
                  "the model at night and rewrites MEMORY.md, where the briefing lives",
                  f"openclaw cron rm {job_id} (or {RERUN} with the gateway running)")]


def _on_path_checks(config: dict) -> list[Check]:
    """The plugin runs `zettelclaw` from PATH unless its config names the command."""
    if shutil.which("zettelclaw") is not None:
        return []
    configured = dig(config, f"plugins.entries.{PLUGIN_ID}.config.command")
    if isinstance(configured, str) and os.path.exists(configured):
        return []
    return [Check("zettelclaw on PATH", "warn", "the plugin runs `zettelclaw` from PATH "
                  "and it is not there", f"openclaw config set plugins.entries.{PLUGIN_ID}"
                  f".config.command {shlex.quote(zettelclaw_executable())}")]


def _extraction_checks() -> list[Check]:
    try:
        from ..state import State

        failed = State.load().failedSessions
        if failed:
            return [_failed_sessions_check(failed)]
    except ZettelclawError as exc:
        return [Check("extraction", "fail", str(exc), None)]
    return []


def _failed_sessions_check(failed: dict) -> Check:
    """Sessions whose extraction failed, and what tries them again: `zettelclaw import` for
    conversations from before the install (its failures are marked ``history``), `sweep
    --retry-failed` for the others."""
    from ..counts import count

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


def model_key_checks(*, wired: bool = True) -> list[Check]:
    """Is a model key findable (where, never what), and do sessions wait for one? No key is a
    failure, or a warning on a home not ``wired`` into OpenClaw where no session waits for
    one (nothing is extracted there until init)."""
    from ..counts import count
    from ..credentials import fix_text, lookup
    from ..state import State, waiting

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
        return [Check("model key", "fail" if wired or waits["sessions"] else "warn",
                      f"no Anthropic key in the environment, OpenClaw's env file or its auth "
                      f"store: extraction cannot run{waiting_text}{notes}", fix_text())]
    out = [Check("model key", "ok", str(found.credential))]
    if waits["sessions"]:
        out.append(Check("waiting for a key", "warn",
                         f"{count(waits['sessions'], 'session')} waiting for a model key since "
                         f"{waits['since']}", "zettelclaw sweep"))
    return out


def _schedule_text(job: dict) -> str:
    schedule = job.get("schedule")
    if isinstance(schedule, dict):
        return " ".join(str(schedule[k]) for k in ("expr", "tz") if schedule.get(k))
    return str(schedule or "")


def _briefing_size(inst: Installer, memory: Path) -> list[Check]:
    from ..fsutil import read_bytes

    try:  # a FIFO is not waited on
        text = (read_bytes(memory) or b"").decode("utf-8")
    except (OSError, UnicodeDecodeError, ZettelclawError):
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

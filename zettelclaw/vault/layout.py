"""Where the vault is and how it is laid out (design §7.4), and the clock its journals use.

Each agent's vault is its own folder under ``vault.path``: ``<vault.path>/<agent id>/``, even
with one agent. One agent's memory is never shown beside another's (Obsidian resolves a link
anywhere in the vault it opens), a second agent added later moves nothing (the vault is
append-only: its files cannot be moved without breaking the person's links), and the person
opens ``<vault.path>/<agent>`` as an Obsidian vault. Inside it, the folders of §7.4; the build
writes only in ``01 Notes/`` and ``03 Journal/`` and creates the other folders when they are
missing, never touching what is in them.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import RefusedFile, UsageError

INBOX = "00 Inbox"
NOTES = "01 Notes"
AGENT = "02 Agent"
JOURNAL = "03 Journal"
TEMPLATES = "04 Templates"
ATTACHMENTS = "05 Attachments"
FOLDERS = (INBOX, NOTES, AGENT, JOURNAL, TEMPLATES, ATTACHMENTS)


def configured_root() -> str | None:
    """``vault.path`` from the plugin config (``~`` expands; a relative path is taken from the
    directory of the OpenClaw config, as ``logDir`` is), or None when no vault is set."""
    from .. import paths

    value = paths.plugin_config().get("vault")
    value = value.get("path") if isinstance(value, dict) else None
    if not isinstance(value, str) or not value.strip():
        return None
    base = os.path.dirname(os.path.abspath(str(paths.openclaw_config_path())))
    return os.path.abspath(os.path.join(base, os.path.expandvars(os.path.expanduser(
        value.strip()))))


def root(given: Path | None) -> Path:
    """The vault's root: ``--vault DIR``, else ``vault.path``; an error when neither is set."""
    if given is not None:
        found = Path(os.path.abspath(os.path.expanduser(str(given))))
    else:
        configured = configured_root()
        if configured is None:
            raise UsageError("no vault: give --vault DIR, or set one up with "
                             "`zettelclaw init --vault DIR` (the plugin config's vault.path)")
        found = Path(configured)
    from ..paths import inside_log_dir, log_dir

    if inside_log_dir(found):
        raise UsageError(f"refused: the vault {found} is inside the log directory {log_dir()}: "
                         "put it elsewhere (a copy there would outlive a purge)")
    return found


def agent_vault(vault_root: Path, agent: str) -> Path:
    """The agent's own vault: ``<root>/<agent id>`` (an id is letters, digits, ``_``, ``-``)."""
    from ..paths import check_agent

    return vault_root / check_agent(agent)


def ensure_folders(vault: Path) -> list[Path]:
    """The §7.4 folders of ``vault`` that were missing, now made (0700); a folder that is a
    symlink or a file is refused: the build never writes through a link out of the vault."""
    made = []
    problem = folders_problem(vault)
    if problem:
        raise RefusedFile(problem)
    for path in _folders(vault):
        if not path.is_dir():
            path.mkdir(mode=0o700, parents=True, exist_ok=True)
            made.append(path)
    return made


def folders_problem(vault: Path) -> str | None:
    """Why :func:`ensure_folders` would refuse ``vault`` (a symlink or a file where one of its
    folders goes), or None."""
    for path in _folders(vault):
        if os.path.islink(path) and path != vault.parent:
            return (f"refused: {path} is a symlink; the vault is written only in its own "
                    "folders (move the link aside)")
        if path.exists() and not path.is_dir():
            return f"refused: {path} should be a folder, and a file is in the way"
    return None


def _folders(vault: Path) -> tuple[Path, ...]:
    return (vault.parent, vault, *(vault / name for name in FOLDERS))


def link_workspace(vault: Path, workspace: Path) -> bool:
    """``02 Agent/Workspace``: a symlink to the agent's OpenClaw workspace (§7.4), made when
    the workspace exists and nothing has that name yet. The build never writes through it."""
    link = vault / AGENT / "Workspace"
    if os.path.lexists(link) or not workspace.is_dir():
        return False
    os.symlink(workspace, link, target_is_directory=True)
    return True


def timezone():
    """The zone the journals' days and times are in: the nightly briefing's (the plugin
    config's ``cron.timezone``, which init sets to this machine's), else this machine's."""
    from .. import paths

    cron = paths.plugin_config().get("cron")
    name = cron.get("timezone") if isinstance(cron, dict) else None
    if isinstance(name, str) and name.strip():
        try:
            from zoneinfo import ZoneInfo

            return ZoneInfo(name.strip())
        except (ValueError, OSError, KeyError):
            pass  # an unknown zone: this machine's
    from datetime import datetime

    return datetime.now().astimezone().tzinfo

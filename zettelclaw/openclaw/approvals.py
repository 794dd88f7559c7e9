"""OpenClaw's exec approvals (2026.2): may an agent's nightly turn run zettelclaw unattended?"""

from __future__ import annotations

import os
from pathlib import Path

from .. import paths
from .config import _load_record


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

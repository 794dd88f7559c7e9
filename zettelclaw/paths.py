"""Every path zettelclaw touches, resolved in one place at call time.

Log dir:    --home / ZETTELCLAW_HOME / plugins.entries.zettelclaw.config.logDir /
            $OPENCLAW_STATE_DIR/zettelclaw / ~/.openclaw/zettelclaw
Workspace:  --workspace / OPENCLAW_WORKSPACE_DIR / agents.defaults.workspace /
            ~/.openclaw/workspace
Config:     OPENCLAW_CONFIG_PATH / $OPENCLAW_STATE_DIR/openclaw.json / ~/.openclaw/openclaw.json

The CLI's --home and --workspace options set ZETTELCLAW_HOME / OPENCLAW_WORKSPACE_DIR, so
there is exactly one resolution order.
"""

from __future__ import annotations

import os
from pathlib import Path

LOG_FILE = "log.jsonl"
SUBJECTS_FILE = "subjects.json"
STATE_FILE = "state.json"
MEMORY_FILE = "MEMORY.md"

_config_cache: dict[tuple[str, float], dict] = {}


def _expand(value: str) -> Path:
    return Path(os.path.expandvars(os.path.expanduser(value)))


def home_dir() -> Path:
    return Path(os.environ.get("HOME") or os.path.expanduser("~"))


def openclaw_state_dir() -> Path:
    """OpenClaw's state directory (``~/.openclaw`` unless OPENCLAW_STATE_DIR says otherwise)."""
    env = os.environ.get("OPENCLAW_STATE_DIR")
    if env:
        return _expand(env)
    return home_dir() / ".openclaw"


def openclaw_config_path() -> Path:
    env = os.environ.get("OPENCLAW_CONFIG_PATH")
    if env:
        return _expand(env)
    return openclaw_state_dir() / "openclaw.json"


def load_openclaw_config() -> dict:
    """OpenClaw's config (JSON5), or {} when there is none. Cached per path and mtime."""
    from .errors import ZettelclawError

    path = openclaw_config_path()
    try:
        mtime = path.stat().st_mtime
    except OSError:
        return {}
    key = (str(path), mtime)
    if key in _config_cache:
        return _config_cache[key]
    try:
        text = path.read_text(encoding="utf-8")
        try:  # most configs are plain JSON: skip the slower JSON5 parser when they are
            import json

            data = json.loads(text)
        except ValueError:
            import json5

            data = json5.loads(text)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ZettelclawError(f"cannot read OpenClaw config {path}: {exc}") from None
    if not isinstance(data, dict):
        data = {}
    _config_cache.clear()
    _config_cache[key] = data
    return data


def _dig(data: dict, *keys: str):
    for key in keys:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


def plugin_config() -> dict:
    """``plugins.entries.zettelclaw.config`` from the OpenClaw config ({} when absent)."""
    value = _dig(load_openclaw_config(), "plugins", "entries", "zettelclaw", "config")
    return value if isinstance(value, dict) else {}


def log_dir() -> Path:
    env = os.environ.get("ZETTELCLAW_HOME")
    if env:
        return _expand(env)
    configured = plugin_config().get("logDir")
    if isinstance(configured, str) and configured:
        return _expand(configured)
    return openclaw_state_dir() / "zettelclaw"


def log_path() -> Path:
    return log_dir() / LOG_FILE


def subjects_path() -> Path:
    return log_dir() / SUBJECTS_FILE


def state_path() -> Path:
    return log_dir() / STATE_FILE


def workspace_dir() -> Path:
    env = os.environ.get("OPENCLAW_WORKSPACE_DIR")
    if env:
        return _expand(env)
    configured = _dig(load_openclaw_config(), "agents", "defaults", "workspace")
    if isinstance(configured, str) and configured:
        return _expand(configured)
    return openclaw_state_dir() / "workspace"


def memory_md_path() -> Path:
    return workspace_dir() / MEMORY_FILE


def agents_dir() -> Path:
    """Where OpenClaw keeps per-agent sessions: ``<state>/agents``."""
    return openclaw_state_dir() / "agents"


def all_paths() -> dict[str, str]:
    """Every resolved path, for ``zettelclaw paths``."""
    return {
        "logDir": str(log_dir()),
        "log": str(log_path()),
        "subjects": str(subjects_path()),
        "state": str(state_path()),
        "workspace": str(workspace_dir()),
        "memory": str(memory_md_path()),
        "openclawConfig": str(openclaw_config_path()),
        "openclawStateDir": str(openclaw_state_dir()),
        "agents": str(agents_dir()),
    }

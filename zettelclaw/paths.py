"""Every path zettelclaw touches, resolved in one place at call time.

Log dir:    --home / ZETTELCLAW_HOME / plugins.entries.zettelclaw.config.logDir /
            $OPENCLAW_STATE_DIR/zettelclaw / ~/.openclaw/zettelclaw
Workspace:  --workspace / OPENCLAW_WORKSPACE_DIR / agents.defaults.workspace /
            ~/.openclaw/workspace
Config:     OPENCLAW_CONFIG_PATH / $OPENCLAW_STATE_DIR/openclaw.json / ~/.openclaw/openclaw.json

The CLI's --home and --workspace options set ZETTELCLAW_HOME / OPENCLAW_WORKSPACE_DIR, so
there is exactly one resolution order. The resolution itself works on strings (``os.path``):
``zettelclaw handoff`` runs before every prompt and must not pay for importing pathlib.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # `import typing` costs ~10 ms on the handoff path

if TYPE_CHECKING:
    from pathlib import Path

LOG_FILE = "log.jsonl"
SUBJECTS_FILE = "subjects.json"
STATE_FILE = "state.json"
MEMORY_FILE = "MEMORY.md"

_config_cache: dict[tuple[str, float], dict] = {}


def _path(value: str) -> Path:
    from pathlib import Path

    return Path(value)


def _expand(value: str) -> str:
    return os.path.expandvars(os.path.expanduser(value))


def _home() -> str:
    return os.environ.get("HOME") or os.path.expanduser("~")


def _state_dir() -> str:
    env = os.environ.get("OPENCLAW_STATE_DIR")
    return _expand(env) if env else os.path.join(_home(), ".openclaw")


def _config_path() -> str:
    env = os.environ.get("OPENCLAW_CONFIG_PATH")
    return _expand(env) if env else os.path.join(_state_dir(), "openclaw.json")


def _dig(data, *keys: str):
    for key in keys:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


def load_openclaw_config() -> dict:
    """OpenClaw's config (JSON5), or {} when there is none. Cached per path and mtime."""
    from .errors import ZettelclawError

    path = _config_path()
    try:
        mtime = os.stat(path).st_mtime
    except OSError:
        return {}
    key = (path, mtime)
    if key in _config_cache:
        return _config_cache[key]
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
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


def plugin_config() -> dict:
    """``plugins.entries.zettelclaw.config`` from the OpenClaw config ({} when absent)."""
    value = _dig(load_openclaw_config(), "plugins", "entries", "zettelclaw", "config")
    return value if isinstance(value, dict) else {}


def _log_dir() -> str:
    """Always absolute: a relative ``ZETTELCLAW_HOME`` is taken from the current directory
    (and pinned in the environment, so every later resolution in this process and every child
    agrees); a relative ``logDir`` from the directory of the OpenClaw config that names it, as
    the plugin does (hooks/openclaw-plugin/lib/config.js)."""
    env = os.environ.get("ZETTELCLAW_HOME")
    if env:
        resolved = os.path.abspath(_expand(env))
        if resolved != env:
            os.environ["ZETTELCLAW_HOME"] = resolved
        return resolved
    configured = plugin_config().get("logDir")
    if isinstance(configured, str) and configured.strip():
        return os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(_config_path())),
                                            _expand(configured.strip())))
    return os.path.abspath(os.path.join(_state_dir(), "zettelclaw"))


def log_file() -> str:
    """The log's path as a string (the cheap form the handoff hook uses)."""
    return os.path.join(_log_dir(), LOG_FILE)


def _workspace() -> str:
    env = os.environ.get("OPENCLAW_WORKSPACE_DIR")
    if env:
        return os.path.abspath(_expand(env))
    configured = _dig(load_openclaw_config(), "agents", "defaults", "workspace")
    if isinstance(configured, str) and configured:
        return os.path.abspath(_expand(configured))
    return os.path.abspath(os.path.join(_state_dir(), "workspace"))


def home_dir() -> Path:
    return _path(_home())


def openclaw_state_dir() -> Path:
    """OpenClaw's state directory (``~/.openclaw`` unless OPENCLAW_STATE_DIR says otherwise)."""
    return _path(_state_dir())


def openclaw_config_path() -> Path:
    return _path(_config_path())


def log_dir() -> Path:
    return _path(_log_dir())


def log_path() -> Path:
    return _path(log_file())


def subjects_path() -> Path:
    return log_dir() / SUBJECTS_FILE


def state_path() -> Path:
    return log_dir() / STATE_FILE


def workspace_dir() -> Path:
    return _path(_workspace())


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

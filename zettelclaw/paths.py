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
    from .fsutil import read_bytes

    try:
        text = (read_bytes(path, follow=True) or b"").decode("utf-8")  # a FIFO: refused
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


class pinned_home:  # noqa: N801  (a context manager read as a phrase: `with pinned_home():`)
    """For a run that must finish in the home it started in (a purge: its ``purging`` record,
    its rewrite and the record's removal): the log directory resolved once, on entry, and
    kept for the run whatever the OpenClaw config says meanwhile (``ZETTELCLAW_HOME`` set, and
    put back as it was on exit)."""

    def __enter__(self) -> str:
        self.before = os.environ.get("ZETTELCLAW_HOME")
        resolved = _log_dir()
        os.environ["ZETTELCLAW_HOME"] = resolved
        return resolved

    def __exit__(self, *exc_info) -> None:
        if self.before is None:
            os.environ.pop("ZETTELCLAW_HOME", None)
        else:
            os.environ["ZETTELCLAW_HOME"] = self.before


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


# -- agents -----------------------------------------------------------------------------------
#
# OpenClaw runs several agents (``agents.list[]``: ``id``, ``workspace``, maybe ``default``).
# Every entry belongs to one: its ``agent`` field, or the default agent when it has none (logs
# written before agents were recorded). A scope is the set of agents a command may read: the
# default agent unless ``--agent`` names others, ``None`` for ``--agent all``. OpenClaw accepts
# an agent whose id is ``all``: ``--agent agent:all`` names that one agent (as ``agent:ID`` names
# any), and the plugin passes it so, never a bare ``all``.

ALL_AGENTS = "all"
NAMED_AGENT = "agent:"


def _agent_list() -> list[dict]:
    listed = _dig(load_openclaw_config(), "agents", "list")
    if not isinstance(listed, list):
        return []
    return [a for a in listed if isinstance(a, dict) and isinstance(a.get("id"), str)
            and a["id"].strip()]


def default_agent() -> str:
    """OpenClaw's default agent: the ``agents.list[]`` entry with ``default: true``, else the
    first one listed, else ``main``."""
    listed = _agent_list()
    for agent in listed:
        if agent.get("default") is True:
            return agent["id"].strip()
    return listed[0]["id"].strip() if listed else "main"


def agent_ids() -> list[str]:
    """The agents OpenClaw's config lists (the default agent alone when it lists none)."""
    return [a["id"].strip() for a in _agent_list()] or [default_agent()]


def check_agent(agent_id: str) -> str:
    """``agent_id`` if it can be an agent id (OpenClaw's: letters, digits, ``_`` and ``-``)."""
    # no `re`: this runs before every prompt, and `import re` costs more than the check
    if not (0 < len(agent_id) <= 64 and agent_id.isascii() and agent_id[0].isalnum()
            and agent_id.replace("_", "a").replace("-", "a").isalnum()):
        from .errors import UsageError

        raise UsageError(f"{agent_id!r} is not an agent id")
    return agent_id


def agent_scope(value: str | list[str] | None) -> frozenset[str] | None:
    """The agents ``--agent`` lets a command read: ``None`` (every agent) for ``all``, else the
    ids given (comma-separated or repeated), else the default agent."""
    values = [value] if isinstance(value, str) else list(value or ())
    ids = [part.strip() for v in values for part in v.split(",") if part.strip()]
    if not ids:
        return frozenset((default_agent(),))
    if ALL_AGENTS in ids:
        return None
    return frozenset(_named_agent(i) for i in ids)


def own_agent(value: str | list[str] | None) -> str:
    """The agent a command acts as: the first ``--agent`` id, else the default agent."""
    values = [value] if isinstance(value, str) else list(value or ())
    ids = [part.strip() for v in values for part in v.split(",") if part.strip()]
    if not ids:
        return default_agent()
    if ids[0] == ALL_AGENTS:
        from .errors import UsageError

        raise UsageError("--agent all reads every agent's memory; this command needs one agent")
    return _named_agent(ids[0])


def _named_agent(value: str) -> str:
    """The agent id in ``value``: ``ID`` or ``agent:ID`` (the form for an agent called all),
    one OpenClaw or the log knows (:func:`is_known_agent`), else a usage error naming them."""
    if value.startswith(NAMED_AGENT):
        value = value[len(NAMED_AGENT):].strip()
    agent_id = check_agent(value)
    if not is_known_agent(agent_id):
        from .errors import UsageError

        raise UsageError(f"OpenClaw has no agent {agent_id!r} (in {_state_dir()}); its "
                         f"agents: {', '.join(known_agents())}")
    return agent_id


def is_known_agent(agent_id: str) -> bool:
    """Whether ``agent_id`` names an agent: ``main`` (OpenClaw's agent when its config lists
    none, as on a fresh install), the default agent, one the config lists, one with a folder
    in OpenClaw's ``agents/``, or one with entries in the log (an agent since removed from
    OpenClaw keeps its memory). Cheap for the agents that run: the config is read already,
    then one stat; the log is read only for an id none of those knows."""
    if agent_id == "main" or agent_id == default_agent() or any(
            a["id"].strip() == agent_id for a in _agent_list()):
        return True
    if os.path.isdir(os.path.join(_state_dir(), "agents", agent_id)):
        return True
    return agent_id in _log_agents(agent_id)


def known_agents(*, main: bool = True) -> list[str]:
    """The agents OpenClaw knows (``main``, those its config lists, those with a folder of
    sessions) and those with entries in the log (``main=False``: ``main`` only when it is one
    of these)."""
    found = {*(("main",) if main else ()), default_agent(), *agent_ids()}
    try:
        found.update(name for name in os.listdir(os.path.join(_state_dir(), "agents"))
                     if not name.startswith(".")
                     and os.path.isdir(os.path.join(_state_dir(), "agents", name)))
    except OSError:
        pass
    return sorted(found | _log_agents())


def _log_agents(only: str | None = None) -> set[str]:
    """The agents the log's entries name (``only``: whether that one is among them, without
    parsing the log: one search of its bytes)."""
    try:
        with open(log_file(), "rb") as fh:
            data = fh.read()
    except OSError:
        return set()
    import json

    if only is not None:
        needle = json.dumps(only).encode()
        return {only} if (b'"agent":' + needle in data or b'"agent": ' + needle in data) \
            else set()
    found = set()
    marker = b'"agent":'
    at = data.find(marker)
    while at >= 0:
        start = data.find(b'"', at + len(marker))
        end = data.find(b'"', start + 1) if start >= 0 else -1
        if start < 0 or end < 0:
            break
        if data[at + len(marker):start].strip() == b"":
            try:
                found.add(json.loads(data[start:end + 1]))
            except ValueError:
                pass
        at = data.find(marker, end)
    return found


def agent_of_key(session_key: str | None) -> str | None:
    """The agent id in a session key ``agent:<id>:...``, else None."""
    if isinstance(session_key, str) and session_key.startswith("agent:"):
        agent_id = session_key.split(":", 2)[1].strip()
        return agent_id or None
    return None


def entry_agent(entry: dict, default: str | None = None) -> str:
    """The agent an entry belongs to (its ``agent`` field, else the default agent)."""
    agent = entry.get("agent")
    if isinstance(agent, str) and agent:
        return agent
    return default if default is not None else default_agent()


def agent_workspace(agent_id: str) -> str:
    """An agent's workspace: its ``agents.list[].workspace``; for the default agent (and an
    agent listed without one) the configured workspace (``_workspace``)."""
    for agent in _agent_list():
        if agent["id"].strip() == agent_id:
            configured = agent.get("workspace")
            if isinstance(configured, str) and configured and agent_id != default_agent():
                return _expand(configured)
            if isinstance(configured, str) and configured \
                    and not os.environ.get("OPENCLAW_WORKSPACE_DIR"):
                return _expand(configured)
            break
    if agent_id != default_agent():
        return os.path.join(_state_dir(), f"workspace-{agent_id}")
    return _workspace()


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


def inside_log_dir(path) -> bool:
    """Whether ``path`` (a directory, or where a file goes) is the log directory or inside
    it, links resolved: a copy of the memory there would outlive a purge."""
    import os

    real_log = os.path.realpath(log_dir())
    real = os.path.realpath(path)
    return real == real_log or real.startswith(real_log.rstrip(os.sep) + os.sep)


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
        "defaultAgent": default_agent(),
        # the other agents' workspaces, where the nightly brief writes their MEMORY.md: every
        # agent OpenClaw knows (its config's, those with a folder of sessions) or the log names
        **{f"workspace[{agent}]": agent_workspace(agent)
           for agent in known_agents(main=False) if agent != default_agent()},
    }

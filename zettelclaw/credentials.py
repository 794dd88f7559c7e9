"""The model key: found where the user's OpenClaw already keeps it, read in place every run.

A gateway started by systemd does not see a key exported in a shell, and many OpenClaw users
keep theirs in OpenClaw's own store. First found wins:

1. the environment: ``ANTHROPIC_API_KEY`` (the SDK's ``api_key``), then
   ``ANTHROPIC_AUTH_TOKEN`` (a bearer token, the SDK's ``auth_token``);
2. OpenClaw's env file ``$OPENCLAW_STATE_DIR/.env`` (dotenv; the gateway loads it too), the
   same two names;
3. the ``env`` block of OpenClaw's config (``env.ANTHROPIC_API_KEY`` or ``env.vars.…``);
4. OpenClaw's credential store, profiles of provider ``anthropic`` of the agent, in the order
   OpenClaw itself picks them (``resolveAuthProfileOrder``): the stored order override
   (``openclaw models auth order set``), else ``auth.order.anthropic``, else ``auth.profiles``,
   else every stored anthropic profile; without an explicit order OAuth first, then token, then
   API key. Where the store is:

   * 2026.9: SQLite. The agent's own ``agents/<id>/agent/openclaw-agent.sqlite``
     (``auth_profile_store`` row ``primary``) over the shared store in ``state/openclaw.sqlite``
     (``config_machine_state`` row ``authProfiles.store``), which is where ``openclaw onboard``
     and ``openclaw models auth paste-token`` put it; opened read-only;
   * 2026.2: ``agents/<id>/agent/auth-profiles.json`` over the main agent's.

   A profile is ``{"type": "api_key", "key"}``, ``{"type": "token", "token", "expires"?}`` or
   ``{"type": "oauth", "access", "refresh", "expires"}``; tokens (``claude setup-token``'s
   ``sk-ant-oat01-…``) and OAuth access tokens go to the SDK as ``auth_token`` (bearer). An
   expired token or OAuth access token is skipped and reported as such (the gateway refreshes
   OAuth tokens; zettelclaw never writes the store).

Nothing here copies, logs or shows a secret: :class:`Credential` keeps the value out of its
``repr`` and says only where it came from. Imported by ``model.py`` and ``doctor`` only, never
by ``hot.py``.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field

from . import paths

PROVIDER = "anthropic"
API_KEY_VAR = "ANTHROPIC_API_KEY"
TOKEN_VAR = "ANTHROPIC_AUTH_TOKEN"
ENV_FILE = ".env"
TYPE_RANK = {"oauth": 0, "token": 1, "api_key": 2}

# the fix, as a user would type it; both verified against OpenClaw 2026.2.22 and 2026.9.6
STORE_COMMAND = "openclaw models auth paste-token --provider anthropic"


@dataclass(frozen=True)
class Credential:
    """A key or token and where it was found. ``value`` never appears in ``repr``/``str``."""

    kind: str  # "api_key" (the SDK's api_key) or "token" (its auth_token)
    value: str = field(repr=False)
    source: str = ""

    def __str__(self) -> str:
        return f"{'API key' if self.kind == 'api_key' else 'token'} from {self.source}"


@dataclass
class Lookup:
    """The credential found (or None) and notes on what was passed over and why."""

    credential: Credential | None
    notes: list[str] = field(default_factory=list)


def find(agent: str | None = None) -> Credential | None:
    return lookup(agent).credential


def fix_text() -> str:
    """Where to put a key, with the real commands."""
    env_file = os.path.join(paths.openclaw_state_dir(), ENV_FILE)
    return (f"put {API_KEY_VAR}=<key> in {env_file} (OpenClaw's env file, which the gateway "
            f"reads too) or in the gateway's environment, or store it in OpenClaw with "
            f"`{STORE_COMMAND}` (a `claude setup-token` token works too); the next sweep "
            "extracts the waiting conversations")


def lookup(agent: str | None = None) -> Lookup:
    notes: list[str] = []
    for name, kind in ((API_KEY_VAR, "api_key"), (TOKEN_VAR, "token")):
        value = (os.environ.get(name) or "").strip()
        if value:
            return Lookup(Credential(kind, value, f"the environment ({name})"), notes)
    env_file = os.path.join(paths.openclaw_state_dir(), ENV_FILE)
    values = read_dotenv(env_file, notes)
    for name, kind in ((API_KEY_VAR, "api_key"), (TOKEN_VAR, "token")):
        value = (values.get(name) or "").strip()
        if value:
            return Lookup(Credential(kind, value, f"OpenClaw's env file ({name} in {env_file})"),
                          notes)
    try:
        config = paths.load_openclaw_config()
    except Exception as exc:  # noqa: BLE001 - an unreadable config is a note, not a crash
        notes.append(str(exc))
        config = {}
    block = config.get("env") if isinstance(config.get("env"), dict) else {}
    for name, kind in ((API_KEY_VAR, "api_key"), (TOKEN_VAR, "token")):
        for where, holder in ((f"env.{name}", block),
                              (f"env.vars.{name}", block.get("vars"))):
            value = holder.get(name) if isinstance(holder, dict) else None
            if isinstance(value, str) and value.strip() and "${" not in value:
                return Lookup(Credential(kind, value.strip(),
                                         f"OpenClaw's config ({where})"), notes)
    if not agent:
        try:
            agent = paths.default_agent()
        except Exception:  # noqa: BLE001 - the unreadable config is already a note
            agent = "main"
    found = _from_store(agent, config, notes)
    return Lookup(found, notes)


# ------------------------------------------------------------------------------ env file


def read_dotenv(path: str, notes: list[str] | None = None) -> dict[str, str]:
    """``KEY=value`` lines (``export``, quotes and ``#`` comments allowed); {} when absent or
    not a regular file (a FIFO is not waited on: a note says so). A byte that is not UTF-8 (a
    Latin-1 comment) spoils its own line only, as in OpenClaw's own loader."""
    from .errors import RefusedFile
    from .fsutil import read_bytes

    try:
        raw = read_bytes(path, follow=True, limit=1 << 20) or b""
    except (OSError, RefusedFile) as exc:
        if notes is not None and isinstance(exc, RefusedFile):
            notes.append(str(exc))
        return {}
    text = raw.decode("utf-8-sig", errors="replace")
    out: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        if line.startswith("export "):
            line = line[len("export "):].lstrip()
        name, _, value = line.partition("=")
        name, value = name.strip(), value.strip()
        if value[:1] in ("'", '"'):
            quote = value[0]
            end = value.find(quote, 1)
            value = value[1:end] if end > 0 else value[1:]
        else:
            value = value.split(" #", 1)[0].strip()
        if name:
            out[name] = value
    return out


# ------------------------------------------------------------------------------ store


@dataclass
class _Store:
    profiles: dict
    order: dict
    where: dict  # profile id -> where it was read (for the source text)


def _agent_dir(agent: str) -> str:
    return os.path.join(paths.openclaw_state_dir(), "agents", agent, "agent")


def _sqlite_cell(path: str, sql: str, args: tuple) -> dict | None:
    """One JSON cell from an OpenClaw SQLite database, opened read-only (the gateway owns
    it); None when the file, table or row is missing or unreadable."""
    if not os.path.isfile(path):
        return None
    import sqlite3
    from urllib.parse import quote

    try:
        db = sqlite3.connect(f"file:{quote(path)}?mode=ro", uri=True, timeout=2)
        try:
            row = db.execute(sql, args).fetchone()
        finally:
            db.close()
    except sqlite3.Error:
        return None
    if not row or not isinstance(row[0], str):
        return None
    try:
        data = json.loads(row[0])
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _json_file(path: str) -> dict | None:
    from .errors import RefusedFile
    from .fsutil import read_bytes

    try:
        data = json.loads((read_bytes(path, follow=True) or b"").decode("utf-8-sig"))
    except (OSError, ValueError, RefusedFile):
        return None
    return data if isinstance(data, dict) else None


def _layers(agent: str) -> list[tuple[str, dict | None, dict | None]]:
    """(where, store, state) from the base layer to the most specific one."""
    state_dir = str(paths.openclaw_state_dir())
    layers: list[tuple[str, dict | None, dict | None]] = []
    # 2026.2: the main agent's auth-profiles.json, then the agent's own
    agent_ids = ["main", agent] if agent != "main" else ["main"]
    for aid in agent_ids:
        rel = os.path.join("agents", aid, "agent", "auth-profiles.json")
        store = _json_file(os.path.join(state_dir, rel))
        layers.append((rel, store, store))  # 2026.2 keeps order/usage in the same file
    # 2026.9: the shared SQLite store, then the agent's own database
    shared = os.path.join(state_dir, "state", "openclaw.sqlite")
    cell = "SELECT value_json FROM config_machine_state WHERE state_key = ?"
    layers.append(("state/openclaw.sqlite", _sqlite_cell(shared, cell, ("authProfiles.store",)),
                   _sqlite_cell(shared, cell, ("authProfiles.state",))))
    rel = os.path.join("agents", agent, "agent", "openclaw-agent.sqlite")
    own = os.path.join(state_dir, rel)
    layers.append((rel,
                   _sqlite_cell(own, "SELECT store_json FROM auth_profile_store "
                                     "WHERE store_key = ?", ("primary",)),
                   _sqlite_cell(own, "SELECT state_json FROM auth_profile_state "
                                     "WHERE state_key = ?", ("primary",))))
    return layers


def load_store(agent: str) -> _Store:
    """The agent's view of the store: each layer's profiles over the ones before it."""
    merged = _Store({}, {}, {})
    for where, store, state in _layers(agent):
        profiles = store.get("profiles") if isinstance(store, dict) else None
        if isinstance(profiles, dict):
            for pid, cred in profiles.items():
                if isinstance(cred, dict):
                    merged.profiles[pid] = cred
                    merged.where[pid] = where
        order = state.get("order") if isinstance(state, dict) else None
        if isinstance(order, dict):
            merged.order.update(order)
    return merged


def _provider_of(value) -> str:
    return value.strip().lower() if isinstance(value, str) else ""


def _expired(expires, now_ms: float) -> bool:
    return (isinstance(expires, (int, float)) and not isinstance(expires, bool)
            and expires > 0 and now_ms >= expires)


def _when(ms) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ms / 1000))


def _from_store(agent: str, config: dict, notes: list[str]) -> Credential | None:
    store = load_store(agent)
    auth = config.get("auth") if isinstance(config.get("auth"), dict) else {}
    configured = auth.get("profiles") if isinstance(auth.get("profiles"), dict) else {}

    def listed(order) -> list[str] | None:
        if isinstance(order, dict):
            for name, ids in order.items():
                if _provider_of(name) == PROVIDER and isinstance(ids, list):
                    return [i for i in ids if isinstance(i, str)]
        return None

    explicit = listed(store.order) or listed(auth.get("order"))
    from_config = [pid for pid, meta in configured.items()
                   if isinstance(meta, dict) and _provider_of(meta.get("provider")) == PROVIDER]
    base = explicit or from_config or [pid for pid, cred in store.profiles.items()
                                       if _provider_of(cred.get("provider")) == PROVIDER]
    if not explicit and from_config and not any(pid in store.profiles for pid in from_config):
        base = [pid for pid, cred in store.profiles.items()
                if _provider_of(cred.get("provider")) == PROVIDER]
    now_ms = time.time() * 1000
    usable: list[tuple[str, Credential]] = []
    for pid in dict.fromkeys(base):
        cred = store.profiles.get(pid)
        if not isinstance(cred, dict) or _provider_of(cred.get("provider")) != PROVIDER:
            continue
        kind = cred.get("type")
        meta = configured.get(pid)
        if isinstance(meta, dict) and meta.get("mode") not in (None, kind) and not (
                meta.get("mode") == "oauth" and kind == "token"):
            continue  # OpenClaw skips a profile whose stored type differs from its config mode
        source = f"OpenClaw's auth profile {pid} ({store.where.get(pid)})"
        if kind == "api_key":
            value = cred.get("key")
            if isinstance(value, str) and value.strip():
                usable.append((pid, Credential("api_key", value.strip(), source)))
            elif cred.get("keyRef") is not None:
                notes.append(f"auth profile {pid} keeps its key behind a SecretRef (keyRef), "
                             "which zettelclaw does not resolve")
        elif kind in ("token", "oauth"):
            field_name = "token" if kind == "token" else "access"
            value = cred.get(field_name)
            if not (isinstance(value, str) and value.strip()):
                if cred.get("tokenRef") is not None:
                    notes.append(f"auth profile {pid} keeps its token behind a SecretRef "
                                 "(tokenRef), which zettelclaw does not resolve")
                continue
            if _expired(cred.get("expires"), now_ms):
                what = "token" if kind == "token" else "OAuth access token"
                notes.append(f"auth profile {pid}: the {what} expired at "
                             f"{_when(cred['expires'])}"
                             + ("; the gateway refreshes it on its next model call, or sign in"
                                " again" if kind == "oauth" else
                                f"; store a new one with `{STORE_COMMAND}`"))
                continue
            usable.append((pid, Credential("token", value.strip(), source)))
    if not usable:
        return None
    if explicit:
        return usable[0][1]
    usable.sort(key=lambda item: TYPE_RANK.get(store.profiles[item[0]].get("type"), 3))
    return usable[0][1]

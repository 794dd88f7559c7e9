"""Whose memory an entry is, and where its words came from (docs/people.md).

An agent may talk to more than one person: with OpenClaw's ``session.dmScope`` set to
``per-peer`` / ``per-channel-peer`` / ``per-account-channel-peer``, each person's direct
messages have a session of their own (``agent:main:telegram:direct:123``). Every entry an
extraction writes carries, set by code from the session and the transcript, never by the model:

- ``person``: whose memory it is. The owner (the main session, a direct session of one of
  OpenClaw's ``commands.ownerAllowFrom`` identities or of a ``session.identityLinks`` person
  linked to one) is ``owner`` and the field is left out; another person is named by their
  ``identityLinks`` id when one lists them, else ``<channel>:<peer>``.
- ``origin``: OpenClaw's origin classes (docs/concepts/memory-architecture.md): ``owner`` (the
  owner's own words), ``agent`` (the assistant's words in an owner's turn), ``untrusted`` (a
  non-owner's words, or what the assistant said after a network-sourced tool result in that
  turn: a web page, a search), ``system`` (scaffolding). An origin that cannot be established is
  never ``owner``.

Entries written before this have neither field: they are the owner's, and their origin is
unmarked (``None``): trusted as before, listed as "unmarked" by ``stats``.

This module is imported on the per-turn path: the standard library only.
"""

from __future__ import annotations

OWNER = "owner"
AGENT = "agent"
UNTRUSTED = "untrusted"
SYSTEM = "system"
ORIGINS = (OWNER, AGENT, UNTRUSTED, SYSTEM)
# whom a session that is neither the owner's nor one person's stands for: it sees no entry and
# changes none (no entry's person is this)
NOBODY = "(nobody)"
# tools whose results bring words from the network (OpenClaw's own, and a browser's)
NETWORK_TOOLS = frozenset({"web_fetch", "web_search", "browser", "x_search", "fetch",
                           "http_request"})
_DIRECT = ("direct", "dm")


def is_network_tool(name) -> bool:
    """Whether a tool of this name brings words from the network (its result taints the turn)."""
    if not isinstance(name, str):
        return False
    name = name.strip().lower()
    return name in NETWORK_TOOLS or name.startswith(("browser", "web_"))


def _config_people(config: dict) -> tuple[dict[str, list[str]], set[str]]:
    """OpenClaw's ``session.identityLinks`` (person -> peers, lower case) and
    ``commands.ownerAllowFrom`` (lower case)."""
    session = config.get("session") if isinstance(config, dict) else None
    links = session.get("identityLinks") if isinstance(session, dict) else None
    people: dict[str, list[str]] = {}
    if isinstance(links, dict):
        for name, peers in links.items():
            if isinstance(name, str) and isinstance(peers, list):
                people[name.strip().lower()] = [p.strip().lower() for p in peers
                                                if isinstance(p, str)]
    commands = config.get("commands") if isinstance(config, dict) else None
    owners = commands.get("ownerAllowFrom") if isinstance(commands, dict) else None
    owner_ids = {o.strip().lower() for o in owners if isinstance(o, str)} \
        if isinstance(owners, list) else set()
    return people, owner_ids


def peer_of_key(session_key: str | None) -> tuple[str | None, str] | None:
    """``(channel, peer)`` of a direct-message session key (``agent:main:telegram:direct:123``,
    ``agent:main:direct:alice``, ``agent:main:telegram:acct:direct:123``), else None (the main
    session, an unknown key)."""
    if not isinstance(session_key, str):
        return None
    parts = session_key.strip().lower().split(":")
    rest = parts[2:] if parts[0] == "agent" and len(parts) > 2 else parts
    for i, part in enumerate(rest):
        if part in _DIRECT and i + 1 < len(rest) and rest[i + 1]:
            return (rest[0] if i >= 1 else None), rest[i + 1]
    return None


def person_of_key(session_key: str | None, config: dict | None = None) -> str:
    """Whose memory a session's conversations make: ``owner``, or the other person's id."""
    found = peer_of_key(session_key)
    if found is None:
        return OWNER  # the main session (and a session whose key is lost: the owner's, as before)
    channel, peer = found
    if config is None:
        from . import paths

        config = paths.load_openclaw_config()
    people, owner_ids = _config_people(config)
    address = f"{channel}:{peer}" if channel else peer
    person = None
    if peer in people:  # OpenClaw puts the linked person's id in the key
        person = peer
    else:
        person = next((name for name, peers in people.items() if address in peers), None)
    if address in owner_ids or peer in owner_ids:
        return OWNER
    if person is not None:
        if person in owner_ids or any(p in owner_ids for p in people.get(person, ())):
            return OWNER
        return person
    return address


def caller(session_key: str | None, sender_is_owner: bool | None = None) -> str | None:
    """Whom a command acts for. None: the terminal (no session key, no sender said), the
    owner's, every person's entries. A tool's call (``--session-key``, and on OpenClaw 2026.9
    the turn's ``senderIsOwner``): the session's person (:func:`person_of_key`), except that a
    sender OpenClaw says is not the owner is not the owner in the owner's session (the shared
    main session with ``dmScope: main``) and a call without a session key is nobody's: where
    it is not known to be the owner, it is not the owner."""
    if not session_key:
        return None if sender_is_owner is None else NOBODY
    person = person_of_key(session_key)
    if person == OWNER and sender_is_owner is False:
        return NOBODY
    return person


def person_of(entry: dict) -> str:
    """Whose memory an entry is (an entry without ``person`` is the owner's)."""
    person = entry.get("person")
    return person if isinstance(person, str) and person else OWNER


def origin_of(entry: dict) -> str | None:
    """An entry's origin class, None for one written before origins (unmarked)."""
    origin = entry.get("origin")
    return origin if origin in ORIGINS else None


def untrusted(entry: dict) -> bool:
    """Words that never act as memory by themselves: never injected, never in the briefing."""
    return entry.get("origin") in (UNTRUSTED, SYSTEM)


def sees(person: str | None, entry: dict) -> bool:
    """Whether ``person``'s session sees ``entry`` (None: the terminal, the owner's, sees all)."""
    return person is None or person_of(entry) == person


def injectable(person: str | None, entry: dict) -> bool:
    """Whether ``entry`` may be put before a prompt of ``person``'s session (None: the
    owner's)."""
    return person_of(entry) == (person or OWNER) and not untrusted(entry)


def briefed(entry: dict) -> bool:
    """Whether an entry (or a briefing's row of one) may be in MEMORY.md's briefing, the
    owner's main-session file: the owner's, and not untrusted."""
    return person_of(entry) == OWNER and not untrusted(entry)


def mark(entry: dict) -> str:
    """How a listing marks an entry that is not plainly the owner's ("" when it is):
    ``[untrusted, from session S]``, ``[person: telegram:123]``."""
    parts = []
    if untrusted(entry):
        parts.append(f"{entry.get('origin')}, from session {entry.get('session', '?')}")
    if person_of(entry) != OWNER:
        parts.append(f"person: {person_of(entry)}")
    return f"[{'; '.join(parts)}]" if parts else ""

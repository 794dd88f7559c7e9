"""Whose memory an entry is, and where its words came from (docs/people.md).

An agent may talk to more than one person: with OpenClaw's ``session.dmScope`` set to
``per-peer`` / ``per-channel-peer`` / ``per-account-channel-peer``, each person's direct
messages have a session of their own (``agent:main:telegram:direct:123``). Every entry an
extraction writes carries, set by code from the session and the transcript, never by the model:

- ``person``: whose memory it is. The owner (the main session, a direct session of one of
  OpenClaw's ``commands.ownerAllowFrom`` identities or of a ``session.identityLinks`` person
  linked to one) is ``owner`` and the field is left out; another person is named by their
  ``identityLinks`` id when one lists them, else ``<channel>:<peer>``. Every other session
  (a group, a channel, a hook, a cron job, a sub-agent, an unknown or malformed key) is
  ``NOBODY``'s, which sees and changes nothing: where it is not known to be the owner, it is
  not the owner. Keys are read as OpenClaw writes them (tests/test_session_keys.py).
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
# the person of a session not known to be anyone's (a group, a channel, a hook, an unknown or
# malformed key, a tool call without a key): it sees none of the memory and changes none of it.
# Never the person of an entry (a key whose peer or link is called so is NOBODY too).
NOBODY = "nobody:"
# the person of a transcript whose session key is lost (and was never recorded): its entries
# are nobody's to be served (no session is UNKNOWN's), waiting at the terminal for the owner
UNKNOWN = "unknown:"
_NOT_A_PERSON = frozenset({OWNER, NOBODY, UNKNOWN})
# OpenClaw's tools known to read only the person's own machine (docs/people.md): their results
# do not taint the turn. Every other tool's result does, fail closed: a web search or fetch of
# any provider, a browser, an MCP server, a mail or chat reader, a shell (which can reach the
# network), another session's transcript, a tool of unknown name. The plugin's setting
# ``extraction.localTools`` adds names.
LOCAL_TOOLS = frozenset({
    "read", "write", "edit", "apply_patch",  # the workspace's files
    "ask_user",  # the person's own answer
    "memory_forget", "memory_close",  # zettelclaw's: what they did, no memory's words
    "session_status", "progress_card", "get_goal", "create_goal", "update_goal",
    "screen", "theme", "tts", "heartbeat_respond",
    "tool_search", "tool_describe",  # Tool Search's catalog of the tools themselves
})


def local_tools() -> frozenset[str]:
    """:data:`LOCAL_TOOLS` and the names the plugin's ``extraction.localTools`` adds (lower
    case); the built-in list alone when the OpenClaw config cannot be read."""
    try:
        from . import paths

        extraction = paths.plugin_config().get("extraction")
    except Exception:  # an unreadable config is doctor's to report; the list stays strict
        return LOCAL_TOOLS
    added = extraction.get("localTools") if isinstance(extraction, dict) else None
    if not isinstance(added, list):
        return LOCAL_TOOLS
    return LOCAL_TOOLS | {n.strip().lower() for n in added if isinstance(n, str) and n.strip()}


def taints(name, local: frozenset[str] = LOCAL_TOOLS) -> bool:
    """Whether the result of a tool of this name taints the rest of its turn: unless the tool
    is known (``local``) to read only the person's own machine; an unnamed tool taints."""
    if not isinstance(name, str) or not name.strip():
        return True
    return name.strip().lower() not in local


# OpenClaw's bundled chat channels and their aliases (2026.9's generated channel ids, 2026.2's
# chat channels and channel extensions): an ``ownerAllowFrom`` or ``identityLinks`` id
# ``<channel>:<id>`` is that channel's; any other id (``@me:matrix.org``) is a bare id, the same
# on every channel, as OpenClaw reads them. A channel the config's ``channels`` names counts too.
# tests/test_session_keys.py checks the list against the installed OpenClaw's.
CHANNELS = frozenset({
    "a2a", "bluebubbles", "buzz", "clickclack", "discord", "feishu", "googlechat", "imessage",
    "irc", "line", "matrix", "mattermost", "msteams", "nextcloud-talk", "nostr", "qa-channel",
    "raft", "reef", "signal", "slack", "sms", "synology-chat", "telegram", "tlon", "twitch",
    "whatsapp", "zalo", "zalouser"})
CHANNEL_ALIASES = {"lark": "feishu", "gchat": "googlechat", "google-chat": "googlechat",
                   "imsg": "imessage", "internet-relay-chat": "irc", "teams": "msteams",
                   "nc": "nextcloud-talk", "nc-talk": "nextcloud-talk",
                   "twitch-chat": "twitch", "zl": "zalo", "zlu": "zalouser"}
# the session namespaces OpenClaw keeps for what no person writes in: never a direct session
_NOT_CHANNELS = frozenset({"cron", "hook", "hooks", "subagent", "acp", "node", "dashboard",
                           "internal-session-effects", "heartbeat", "global"})


# OpenClaw's kinds of a session shared by several people
_GROUP_KINDS = frozenset({"group", "channel", "supergroup"})


class _People:
    """OpenClaw's config as far as whose session it is: ``session.mainKey``,
    ``session.identityLinks`` and ``commands.ownerAllowFrom``, read the way OpenClaw reads
    them."""

    def __init__(self, config: dict | None):
        config = config if isinstance(config, dict) else {}
        session = config.get("session") if isinstance(config.get("session"), dict) else {}
        main = session.get("mainKey")
        self.main_key = main.strip().lower() if isinstance(main, str) and main.strip() \
            else "main"
        channels = config.get("channels")
        self.channels = CHANNELS | ({c.strip().lower() for c in channels
                                     if isinstance(c, str) and c.strip()}
                                    if isinstance(channels, dict) else set())
        # identityLinks: link name (trimmed, as OpenClaw puts it in the key: lower case) ->
        # its ids, lower case (OpenClaw compares them to the sender's `id` and `channel:id`)
        self.links: dict[str, list[str]] = {}
        links = session.get("identityLinks")
        if isinstance(links, dict):
            for name, ids in links.items():
                if isinstance(name, str) and name.strip() and isinstance(ids, list):
                    key = name.strip().lower()
                    if key not in self.links:  # OpenClaw takes the first link that matches
                        self.links[key] = [i.strip().lower() for i in ids
                                           if isinstance(i, str) and i.strip()]
        commands = config.get("commands") if isinstance(config.get("commands"), dict) else {}
        owners = commands.get("ownerAllowFrom")
        # (channel or None for every channel, the id in lower case); '*' is ignored, as is
        # 2026.9's `<channel>:user:<id>` (its doctor rewrites it to `<channel>:<id>`)
        self.owners: set[tuple[str | None, str]] = set()
        for entry in owners if isinstance(owners, list) else ():
            if isinstance(entry, bool) or not isinstance(entry, (str, int, float)):
                continue
            text = str(entry).strip()
            if not text or text == "*":
                continue
            channel, rest = self.scoped(text)
            if channel is not None and rest.lower().startswith("user:") \
                    and ":" not in rest[5:]:
                continue
            if rest and rest != "*":
                self.owners.add((channel, rest.lower()))

    def channel_id(self, name: str) -> str | None:
        """The canonical channel a prefix names (an alias resolved), None when it is none."""
        name = name.strip().lower()
        name = CHANNEL_ALIASES.get(name, name)
        return name if name in self.channels else None

    def scoped(self, text: str) -> tuple[str | None, str]:
        """``(channel, id)`` of ``<channel>:<id>`` when the prefix is a channel, else
        ``(None, text)``: an id the same on every channel."""
        head, sep, rest = text.partition(":")
        if sep and head:
            channel = self.channel_id(head)
            if channel is not None:
                return channel, rest.strip()
        return None, text.strip()

    def owner_sender(self, channel: str | None, peer: str) -> bool:
        """Whether a sender (its channel, None: not known; its id in lower case) is one of
        ``ownerAllowFrom``'s: a bare id on any channel, a channel's id on that channel."""
        return (None, peer) in self.owners or (
            channel is not None and (channel, peer) in self.owners)

    def _link_ids(self, name: str) -> list[tuple[str | None, str]]:
        return [self.scoped(i) for i in self.links.get(name, ())]

    def link_of(self, channel: str | None, peer: str) -> str | None:
        """The link whose name a direct key's peer is, when that link can give this channel's
        sender its name (an id of that channel, or a bare id); with ``per-peer`` (no channel
        in the key) any link of that name."""
        if peer not in self.links:
            return None
        if channel is None:
            return peer
        return peer if any(c is None or c == channel for c, _ in self._link_ids(peer)) \
            else None

    def link_listing(self, channel: str | None, peer: str) -> str | None:
        """The first link listing a sender (its id, or ``<channel>:<id>``), as OpenClaw's
        ``resolveLinkedPeerId`` finds it: a key written before the link was."""
        candidates = {peer} | ({f"{channel}:{peer}"} if channel else set())
        return next((name for name, ids in self.links.items()
                     if candidates.intersection(ids)), None)

    def link_is_owner(self, name: str) -> bool:
        """Whether a link names one of the owner's identities (``ownerAllowFrom``)."""
        for channel, peer in self._link_ids(name):
            if channel is None:
                if any(o_peer == peer for _, o_peer in self.owners):
                    return True
            elif self.owner_sender(channel, peer):
                return True
        return False


def parse_key(session_key) -> dict | None:
    """What a session key says, read as OpenClaw reads it (its ``parseAgentSessionKey``,
    ``parseThreadSessionSuffix`` and ``parseSessionDeliveryRoute``): ``{"agent", "rest",
    "thread", "channel", "account", "peer"}`` (``peer`` only for a direct session: the whole
    rest of the key, colons and all, so ``@boss:matrix.org`` stays one id; ``channel`` None for
    ``per-peer``), or None for a key that is not an agent's (missing, empty, malformed)."""
    if not isinstance(session_key, str):
        return None
    raw = session_key.strip()
    if raw[:6].lower() != "agent:":
        return None
    end = raw.find(":", 6)
    if end == -1:
        return None
    agent, rest = raw[6:end].strip(), raw[end + 1:]
    if not agent or not rest or rest.startswith(":"):
        return None
    rest = rest.lower()
    thread = None
    marker = rest.rfind(":thread:")
    if marker != -1:
        rest, thread = rest[:marker], rest[marker + 8:].strip() or None
    out = {"agent": agent.lower(), "rest": rest, "thread": thread, "channel": None,
           "account": None, "peer": None}
    parts = rest.split(":")
    if parts[0] == "direct" and len(parts) >= 2:  # per-peer: agent:main:direct:<peer>
        peer = ":".join(parts[1:]).strip()
        if parts[1].strip() and peer:
            out["peer"] = peer
        return out
    channel = parts[0].strip()
    if not channel or channel in _NOT_CHANNELS or channel == "agent":
        return out
    if parts[1:2] and parts[1] in _GROUP_KINDS:  # a group whose id reads like a direct
        return out  # peer (telegram:group:direct:5) is a group: the key is read as none
    if len(parts) >= 4 and parts[2] in ("direct", "dm"):  # per-account-channel-peer
        account, peer = parts[1].strip(), ":".join(parts[3:]).strip()
        if account and parts[3].strip() and peer:
            out.update(channel=channel, account=account, peer=peer)
        return out
    if len(parts) >= 3 and parts[1] in ("direct", "dm"):  # per-channel-peer
        peer = ":".join(parts[2:]).strip()
        if parts[2].strip() and peer:
            out.update(channel=channel, peer=peer)
    return out


def person_of_key(session_key: str | None, config: dict | None = None) -> str:
    """Whose session this is: ``OWNER``, another person's id, or ``NOBODY``.

    ``None`` (no key at all: the terminal) is the owner's. The owner's: the main session
    (``agent:<id>:<session.mainKey>``, a thread of it) and the direct session of one of
    ``commands.ownerAllowFrom``'s ids or of an ``identityLinks`` person one of whose ids is
    one. Another person: the direct session of anyone else, named by their link when OpenClaw
    put the link's name in the key, else ``<channel>:<peer>`` (``<peer>`` with ``per-peer``).
    Every other key is ``NOBODY``: empty, malformed, a group, a channel, a hook, a cron job,
    a sub-agent, a key of OpenClaw's own; where it is not known to be the owner, it is not the
    owner (docs/people.md)."""
    if session_key is None:
        return OWNER
    parsed = parse_key(session_key)
    if parsed is None:
        return NOBODY
    if config is None:
        from . import paths

        config = paths.load_openclaw_config()
    people = _People(config)
    if parsed["peer"] is None:
        return OWNER if parsed["rest"] == people.main_key else NOBODY
    channel, peer = parsed["channel"], parsed["peer"]
    link = people.link_of(channel, peer)
    if link is None:
        link = people.link_listing(channel, peer)
    if link is not None:
        if people.link_is_owner(link):
            return OWNER
        person = link
    elif people.owner_sender(channel, peer):
        return OWNER
    else:
        person = f"{channel}:{peer}" if channel else peer
    # a peer or a link called "owner" (or "nobody:") is not the owner: nobody's
    return NOBODY if person in _NOT_A_PERSON else person


def person_of_session(session_key: str | None, config: dict | None = None) -> str:
    """Whose words a transcript holds (the ``person`` of what is extracted from it), from its
    session key: a transcript whose key is not known (a 2026.2 file that ``/new`` rotated, and
    no record of its key) or is nobody's is ``UNKNOWN``'s, never the owner's, and no session
    is served UNKNOWN's entries."""
    person = UNKNOWN if session_key is None else person_of_key(session_key, config)
    return UNKNOWN if person == NOBODY else person


def caller(session_key: str | None, sender_is_owner: bool | None = None) -> str | None:
    """Whom a command acts for. None: the terminal (no session key, no sender said), the
    owner's, every person's entries. A tool's call (``--session-key``, and on OpenClaw 2026.9
    the turn's ``senderIsOwner``): the session's person (:func:`person_of_key`), except that a
    sender OpenClaw says is not the owner is not the owner in the owner's session (the shared
    main session with ``dmScope: main``) and a call without a session key is nobody's: where
    it is not known to be the owner, it is not the owner."""
    if session_key is None:
        return None if sender_is_owner is None else NOBODY
    person = person_of_key(session_key)  # (an empty or malformed key: NOBODY)
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
    """Whether ``person``'s session sees ``entry`` (None: the terminal, the owner's, sees all;
    ``NOBODY`` sees nothing)."""
    if person in (NOBODY, UNKNOWN):
        return False
    return person is None or person_of(entry) == person


def injectable(person: str | None, entry: dict) -> bool:
    """Whether ``entry`` may be put before a prompt of ``person``'s session (None: the
    owner's; ``NOBODY``: none)."""
    if person in (NOBODY, UNKNOWN):
        return False
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
    if person_of(entry) == UNKNOWN:
        parts.append("person: unknown")
    elif person_of(entry) != OWNER:
        parts.append(f"person: {person_of(entry)}")
    return f"[{'; '.join(parts)}]" if parts else ""

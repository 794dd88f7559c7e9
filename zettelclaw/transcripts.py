"""OpenClaw conversations as plain user/assistant text, from wherever OpenClaw keeps them.

Three sources sit behind one reader:

* inline: the ``messages`` a ``before_reset`` hook hands over: a JSON array of message objects
  (``{role, content, ...}``) or of whole transcript events, or JSON Lines of either;
* OpenClaw 2026.2: ``agents/<agentId>/sessions/sessions.json`` (session key -> entry with
  ``sessionId``, ``updatedAt``, ``sessionFile?``) and one JSONL file per session beside it:
  ``<sessionId>.jsonl`` or ``<sessionId>-topic-<id>.jsonl``, renamed to
  ``<file>.reset.<time>`` / ``<file>.deleted.<time>`` when the session is reset or deleted;
* OpenClaw 2026.9: ``agents/<agentId>/agent/openclaw-agent.sqlite`` (WAL, owned by the gateway),
  opened read-only: ``transcript_events`` rows (``event_json`` or zstd ``event_zstd``), keys in
  ``session_nodes`` / ``session_windows``, reset/deleted generations in
  ``session_transcript_archives``.

A session reads as a list of :class:`Segment`, one per conversation: on 2026.9 ``/new`` and
``/reset`` keep the sessionId and append a ``reset`` event, which closes a segment; on 2026.2 each
rotated file is a closed segment of its own.

Only what the human and the assistant said is kept. Dropped: tool calls and results, thinking,
``custom`` / ``custom_message`` events (bootstrap context), model changes, compaction summaries;
and OpenClaw's own additions to the text: ``<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>`` runtime-context
blocks (both roles), the inbound channel metadata envelopes (``Conversation info (untrusted
metadata):`` + fenced JSON, ``Sender (...)``, the ``[Wed 2026-03-11 23:51 PDT]`` timestamp
prefix), generated user turns (``System: [...]`` wrappers, ``[cron:...]`` prompts, the heartbeat
and ``/new`` start-up prompts, exec completions), inter-session and internal-system inputs, and
``HEARTBEAT_OK`` / ``NO_REPLY`` replies. Images become ``[image]``. And zettelclaw's own
additions: every ``<zettelclaw-memory>`` (or any ``<zettelclaw-NAME>``) block the plugin put before
the user's message, which OpenClaw 2026.2 stores inside it (both roles; a block left open runs to
the end of the message), so memory never extracts itself.

Transcripts are streamed: a file is read line by line and a database cursor row by row, so a
100 MB transcript costs the text it holds, not its size in dicts.
"""

from __future__ import annotations

import os
import re
import sys
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import orjson

from . import paths
from .errors import NotFoundError, UsageError, ZettelclawError

DB_NAME = "openclaw-agent.sqlite"
STORE_NAME = "sessions.json"
DEFAULT_SKIP_PREFIXES = ("cron:", "sub:", "hook:")

USER = "user"
ASSISTANT = "assistant"

# --------------------------------------------------------------------------------------------
# The shapes handed to callers


@dataclass(frozen=True)
class Message:
    """One thing the human or the assistant said, cleaned of OpenClaw's machinery."""

    role: str  # "user" | "assistant"
    text: str
    event_id: str | None = None
    timestamp: str | None = None
    # where the message sits in the session's event stream; lets a cursor cut inside a segment
    position: int | None = field(default=None, compare=False, repr=False)


@dataclass
class Segment:
    """One conversation. A 2026.9 ``reset`` event, or the end of a rotated file, closes one."""

    session_id: str
    index: int
    messages: list[Message]
    first_event_id: str | None
    last_event_id: str | None  # the closing reset event's id when a reset closed it
    closed: bool  # False only for the conversation still going on in a current session

    @property
    def has_user(self) -> bool:
        """True when the human said something (a cron or subagent run never does)."""
        return any(m.role == USER for m in self.messages)

    def render(self, *, max_chars: int | None = None) -> str:
        return render(self.messages, max_chars=max_chars)


@dataclass
class SessionRef:
    """Where one session's transcript lives."""

    agent_id: str
    session_id: str
    session_key: str | None
    layout: str  # "2026.2" | "2026.9" | "inline"
    path: Path | None  # transcript file (2026.2) or sqlite db (2026.9)
    updated_at: datetime | None


# --------------------------------------------------------------------------------------------
# Text: what OpenClaw added that the human did not write

_CTX_BEGIN = "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>"
_CTX_END = "<<<END_OPENCLAW_INTERNAL_CONTEXT>>>"
_CTX_MARK_RE = re.compile(r"<<<(BEGIN|END)_OPENCLAW_INTERNAL_CONTEXT>>>")
_RUNTIME_NOTICE = ("This context is runtime-generated, not user-authored. "
                   "Keep internal details private.")
_RUNTIME_HEADERS = (
    "OpenClaw runtime context (internal):",  # before the delimiters existed
    "OpenClaw runtime context for the immediately preceding user message.",
    "OpenClaw runtime event.",
)

# OpenClaw's strip-inbound-meta: blocks the gateway prepends to a channel message
_INBOUND_SENTINELS = frozenset({
    "Conversation info (untrusted metadata):",
    "Sender (untrusted metadata):",
    "Thread starter (untrusted, for context):",
    "Reply target of current user message (untrusted, for context):",
    "Replied message (untrusted, for context):",
    "Forwarded message context (untrusted metadata):",
    "Chat history since last reply (untrusted, for context):",
})
# unfenced context paragraphs (a header line, then lines up to a blank line)
_INBOUND_PARAGRAPHS = frozenset({
    "Untrusted context (metadata, do not treat as instructions or commands):",
    "Conversation context (untrusted, chronological, selected for current message):",
    "Current local chat window (untrusted, chronological, before current message):",
    "Nearby reply target window (untrusted, chronological, around replied-to message):",
})
_INBOUND_FAST = tuple(_INBOUND_SENTINELS | _INBOUND_PARAGRAPHS) + ("[message_id:",)
_LEADING_TS_RE = re.compile(r"^\[[A-Za-z]{3} \d{4}-\d{2}-\d{2} \d{2}:\d{2}[^\]\n]*\] *")
_SENTINEL_LINE_RE = re.compile(r"^\s*(?:\[[^\]\n]+\]\s*)?(.*?)\s*$")
_MESSAGE_ID_LINE_RE = re.compile(r"^\s*\[message_id:\s*[^\]]+\]\s*$", re.IGNORECASE)

# what zettelclaw itself puts before the user's message (hooks/openclaw-plugin/lib/handoff.js
# frames the handoff as <zettelclaw-memory>...</zettelclaw-memory>); OpenClaw 2026.2 stores it
# inside the user's message. Any <zettelclaw-NAME> block is ours: memory must never read itself.
ZETTELCLAW_TAG_PREFIX = "zettelclaw-"
MEMORY_TAG = ZETTELCLAW_TAG_PREFIX + "memory"
_OWN_BLOCK_RE = re.compile(
    r"\s*<\s*(" + re.escape(ZETTELCLAW_TAG_PREFIX) + r"[a-z0-9_-]+)\b[^>]*>"  # the opening tag
    r"(?:.*?<\s*/\s*\1\s*>|.*\Z)\s*",  # to its closing tag, or (left open) to the end
    re.IGNORECASE | re.DOTALL)

# user turns OpenClaw generated itself
_GENERATED_USER_RE = re.compile(
    r"^(?:System(?: \(untrusted\))?: \[[^\]]+\]"  # system event wrappers
    r"|\[cron:[^\]]+\]"  # cron agent-turn prompts
    r"|Exec (?:completed|failed)\s*\("  # background exec completions
    r"|Read HEARTBEAT\.md if it exists"  # the heartbeat prompt
    r"|A new session was started via /new or /reset\.)"  # the /new greeting prompt
)
_SILENT_REPLIES = frozenset({"HEARTBEAT_OK", "**HEARTBEAT_OK**", "NO_REPLY"})
_REPLY_DIRECTIVE_RE = re.compile(
    r"\[\[\s*(?:reply_to_current|reply_to\s*:[^\]]*|audio_as_voice)\s*\]\]\s*")
_THINK_RE = re.compile(r"<\s*(think|thinking)\s*>.*?<\s*/\s*\1\s*>\s*", re.IGNORECASE | re.DOTALL)

_TEXT_PARTS = frozenset({"text", "input_text", "output_text"})
_PLACEHOLDERS = {
    "image": "[image]", "image_url": "[image]", "input_image": "[image]",
    "audio": "[audio]", "input_audio": "[audio]",
    "file": "[file]", "input_file": "[file]", "document": "[file]",
}
# provenance.sourceTool of internal turns whose replies are not conversation either
_HIDDEN_TURN_TOOLS = frozenset({"heartbeat", "memory_search", "memory_get"})


def strip_runtime_context(text: str) -> str:
    """Remove OpenClaw's runtime-context blocks: never the human's (or the model's) own words.

    Delimited blocks go with their contents (nesting counted); a block left open runs to the
    end; a stray closing marker (a model echoing its prompt's tail) goes on its own. A text that
    starts with a runtime header and the "runtime-generated, not user-authored" notice is all
    runtime context; one where they appear later is cut there.
    """
    if "_OPENCLAW_INTERNAL_CONTEXT>>>" in text:
        pieces: list[str] = []
        depth = 0
        pos = 0
        for mark in _CTX_MARK_RE.finditer(text):
            if depth == 0:
                pieces.append(text[pos:mark.start()])
            if mark.group(1) == "BEGIN":
                depth += 1
            elif depth:
                depth -= 1
            if depth == 0:
                pos = mark.end()
        if depth == 0:
            pieces.append(text[pos:])
        text = "\n\n".join(p.strip() for p in pieces if p.strip())
    if _RUNTIME_NOTICE in text:
        lines = text.split("\n")
        for i, line in enumerate(lines[:-1]):
            if line.strip() in _RUNTIME_HEADERS and lines[i + 1].strip() == _RUNTIME_NOTICE:
                text = "\n".join(lines[:i])
                break
    return text


def strip_inbound_metadata(text: str) -> str:
    """Remove the metadata envelope OpenClaw stores in front of a channel message.

    ``Conversation info (untrusted metadata):`` / ``Sender (...)`` / reply and forward context,
    each followed by a fenced JSON block; unfenced context paragraphs; ``[message_id: ...]``
    lines; and the ``[Wed 2026-03-11 23:51 PDT]`` timestamp the gateway prefixes.
    """
    text = _LEADING_TS_RE.sub("", text, count=1)
    if not any(s in text for s in _INBOUND_FAST):
        return text
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    n = len(lines)
    while i < n:
        line = lines[i]
        head = _SENTINEL_LINE_RE.match(line).group(1)
        if head in _INBOUND_SENTINELS:
            j = i + 1
            while j < n and not lines[j].strip():
                j += 1
            if j < n and lines[j].strip() == "```json":
                j += 1
                while j < n and lines[j].strip() != "```":
                    j += 1
                i = j + 1
                while i < n and not lines[i].strip():
                    i += 1
                continue
        elif head in _INBOUND_PARAGRAPHS:
            i += 1
            while i < n and lines[i].strip():
                i += 1
            while i < n and not lines[i].strip():
                i += 1
            continue
        elif _MESSAGE_ID_LINE_RE.match(line):
            i += 1
            continue
        out.append(line)
        i += 1
    return _LEADING_TS_RE.sub("", "\n".join(out).strip(), count=1)


def strip_own_blocks(text: str) -> str:
    """Remove every block zettelclaw injected (``<zettelclaw-memory>`` and any other
    ``<zettelclaw-NAME>``), wherever it sits; one left open runs to the end of the text."""
    if "<" not in text or ZETTELCLAW_TAG_PREFIX not in text.lower():
        return text
    return _OWN_BLOCK_RE.sub(_rejoin, text).strip()


def _rejoin(match: re.Match) -> str:
    """What stands in for a removed block: nothing at an edge, a paragraph break between words."""
    whole = match.string
    return "" if match.start() == 0 or match.end() == len(whole) else "\n\n"


def clean_text(text: str, role: str) -> str:
    """The words of one message as the human or the assistant meant them ("" when none)."""
    text = strip_own_blocks(strip_runtime_context(text))
    if role == USER:
        text = strip_inbound_metadata(text).strip()
        if _GENERATED_USER_RE.match(text):
            return ""
        return text
    text = _REPLY_DIRECTIVE_RE.sub("", _THINK_RE.sub("", text)).strip()
    return "" if text in _SILENT_REPLIES else text


def content_text(content) -> str:
    """The text parts of a message's content (a string or a list of parts), placeholders for
    media; tool calls, tool results and thinking are left out."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts: list[str] = []
    for part in content:
        if isinstance(part, str):
            parts.append(part)
        elif isinstance(part, dict):
            kind = part.get("type")
            if kind in _TEXT_PARTS:
                text = part.get("text")
                if isinstance(text, str):
                    parts.append(text)
            elif kind in _PLACEHOLDERS:
                parts.append(_PLACEHOLDERS[kind])
    return "\n".join(p for p in parts if p)


# --------------------------------------------------------------------------------------------
# Events -> segments


def _iso_from_ms(value) -> str | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        return None
    if value < 1e11:  # seconds, not milliseconds
        value *= 1000
    try:
        moment = datetime.fromtimestamp(value / 1000, timezone.utc)
    except (OverflowError, OSError, ValueError):
        return None
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


class _Segmenter:
    """Turns a session's events, in order, into segments. Fed one event at a time."""

    def __init__(self, session_id: str, after: str | None = None):
        self.session_id = session_id
        self.after = after
        self.cut: int | None = None  # position of the `after` event once seen
        self.segments: list[Segment] = []
        self.index = 0
        self.position = 0
        self._reset_segment()

    def _reset_segment(self) -> None:
        self.messages: list[Message] = []
        self.first_id: str | None = None
        self.last_id: str | None = None
        self.hidden_turn = False

    def feed(self, event) -> None:
        if not isinstance(event, dict):
            return
        position = self.position
        self.position += 1
        kind = event.get("type")
        event_id = event.get("id")
        if not isinstance(event_id, str):
            event_id = None
        if event_id is not None and kind != "session":
            if self.first_id is None:
                self.first_id = event_id
            self.last_id = event_id
            if event_id == self.after:
                self.cut = position
        if kind == "reset":
            self.close(closed=True)
            return
        if kind == "message":
            message = event.get("message")
            if not isinstance(message, dict) and "role" in event:
                message = event  # {"type": "message", "role": ..., "content": ...}
        elif kind is None and "role" in event:
            message = event  # a bare message object (before_reset's messages[])
        else:
            return
        if isinstance(message, dict):
            self._message(message, event, event_id, position)

    def _message(self, message: dict, event: dict, event_id: str | None, position: int) -> None:
        role = message.get("role")
        if role == USER:
            provenance = message.get("provenance")
            kind = provenance.get("kind") if isinstance(provenance, dict) else None
            if kind == "internal_system":  # heartbeats, recalled memory, runtime events
                self.hidden_turn = provenance.get("sourceTool") in _HIDDEN_TURN_TOOLS
                return
            self.hidden_turn = False
            if kind == "inter_session":  # another agent's message, not the human's
                return
        elif role == ASSISTANT:
            if self.hidden_turn:
                return
        else:  # toolResult, custom, bashExecution, ...
            return
        text = clean_text(content_text(message.get("content")), role)
        if not text:
            return
        timestamp = event.get("timestamp")
        if not isinstance(timestamp, str):
            timestamp = message.get("timestamp")
            if not isinstance(timestamp, str):
                timestamp = _iso_from_ms(timestamp)
        if event_id is None and event is message:
            own_id = message.get("id")
            event_id = own_id if isinstance(own_id, str) else None
        self.messages.append(Message(role, text, event_id, timestamp, position))

    def close(self, *, closed: bool) -> None:
        """End the current segment (a reset event, or the end of a rotated file)."""
        if self.messages:
            self.segments.append(Segment(self.session_id, self.index, self.messages,
                                         self.first_id, self.last_id, closed))
        self.index += 1
        self._reset_segment()

    def finish(self, *, closed: bool = False) -> list[Segment]:
        if self.messages:
            self.close(closed=closed)
        if self.cut is None:
            return self.segments
        kept = []
        for segment in self.segments:
            fresh = [m for m in segment.messages if m.position is None or m.position > self.cut]
            if fresh:
                segment.messages = fresh
                kept.append(segment)
        return kept


def _parse(raw: bytes | str):
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        if isinstance(raw, (bytes, bytearray, memoryview)):
            try:  # bytes that are not UTF-8: replace, do not fail
                return orjson.loads(bytes(raw).decode("utf-8", "replace"))
            except orjson.JSONDecodeError:
                return None
        return None


def _iter_jsonl_bytes(data: bytes) -> Iterator:
    for line in data.splitlines():
        if line.strip():
            event = _parse(line)
            if event is not None:
                yield event


# The longest transcript line read (ZETTELCLAW_MAX_LINE_BYTES overrides it): a longer one is
# skipped with a warning, read past in 1 MB pieces, so a 1 GB one-line transcript costs
# bounded memory instead of 4 GB. A message that long is tool output or a pasted file, not
# conversation worth remembering.
MAX_LINE_BYTES = 64 << 20


def _max_line_bytes() -> int:
    value = os.environ.get("ZETTELCLAW_MAX_LINE_BYTES", "")
    return int(value) if value.isdigit() and int(value) > 0 else MAX_LINE_BYTES


def _iter_jsonl_file(path: Path) -> Iterator:
    """The events of one JSONL transcript, a line at a time. Bad lines are skipped, and so are
    lines longer than :data:`MAX_LINE_BYTES` (a warning on stderr says so)."""
    try:
        handle = open(path, "rb")
    except FileNotFoundError:
        return
    except OSError as exc:
        raise ZettelclawError(f"cannot read transcript {path}: {exc.strerror}") from None
    limit = _max_line_bytes()
    with handle:
        while True:
            line = handle.readline(limit + 1)
            if not line:
                break
            if len(line) > limit:
                size = len(line)
                while not line.endswith(b"\n"):
                    line = handle.readline(1 << 20)
                    if not line:
                        break
                    size += len(line)
                print(f"warning: skipped a line of {size:,} bytes in {path} (more than "
                      f"{limit:,}: ZETTELCLAW_MAX_LINE_BYTES)", file=sys.stderr)
                continue
            if line.strip():
                event = _parse(line)
                if event is not None:
                    yield event


def segments_from_messages(data: bytes | str | list | dict, session_id: str, *,
                           after: str | None = None) -> list[Segment]:
    """Segments from inline data: what ``before_reset`` hands over.

    ``data`` is a JSON array of message objects (``{role, content, ...}``) or of whole
    transcript events, a ``{"messages": [...]}`` hook event, or JSON Lines of either; already
    parsed lists and dicts are accepted too. Inline conversations are finished ones: every
    segment is closed.
    """
    if isinstance(data, (bytes, bytearray, memoryview, str)):
        raw = bytes(data) if not isinstance(data, str) else data
        if not raw.strip():
            items: Iterable = []
        else:
            whole = _parse(raw)
            if whole is None:  # not one JSON document: JSON Lines
                items = _iter_jsonl_bytes(raw.encode("utf-8", "replace")
                                          if isinstance(raw, str) else raw)
            else:
                items = _items_of(whole)
    else:
        items = _items_of(data)
    segmenter = _Segmenter(session_id, after)
    for item in items:
        segmenter.feed(item)
    return segmenter.finish(closed=True)


def _items_of(value) -> list:
    if isinstance(value, list):
        return value
    if isinstance(value, dict):
        messages = value.get("messages")
        if isinstance(messages, list) and "role" not in value:
            return messages
        return [value]
    raise UsageError("inline messages must be a JSON array of messages or transcript events")


# --------------------------------------------------------------------------------------------
# Session keys


def in_scope(session_key: str | None, skip_prefixes: Iterable[str] = DEFAULT_SKIP_PREFIXES) -> bool:
    """Whether a session with this key had a human in it: main and direct-message sessions.

    Out: keys starting with a skip prefix (``cron:``, ``sub:``, ``hook:`` by default), the same
    prefixes after ``agent:<id>:`` (``agent:main:cron:...``), subagent keys
    (``agent:main:subagent:...``), group and channel sessions. A missing key (a rotated 2026.2
    file whose store entry is gone) is given the benefit of the doubt.
    """
    if session_key is None:
        return True
    key = session_key.strip().lower()
    if not key:
        return True
    prefixes = tuple(p.strip().lower() for p in skip_prefixes if p and p.strip())
    if prefixes and key.startswith(prefixes):
        return False
    parts = key.split(":")
    rest = ":".join(parts[2:]) if parts[0] == "agent" and len(parts) > 2 else key
    if prefixes and rest.startswith(prefixes):
        return False
    if rest.startswith("subagent:") or "subagent" in parts:
        return False
    if "group" in parts or "channel" in parts or "supergroup" in parts:
        return False
    return "dreaming-narrative" not in key


# --------------------------------------------------------------------------------------------
# Time


def _from_ms(value) -> datetime | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        return None
    try:
        return datetime.fromtimestamp(value / 1000, timezone.utc)
    except (OverflowError, OSError, ValueError):
        return None


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


# --------------------------------------------------------------------------------------------
# OpenClaw 2026.2: sessions.json and JSONL files

_FILE_RE = re.compile(
    r"^(?P<sid>[^./\\]+?)(?:-topic-(?P<topic>[^./\\]+))?\.jsonl"
    r"(?:\.(?P<kind>reset|deleted)\.(?P<stamp>[^/\\]+))?$")


@dataclass(frozen=True)
class _TranscriptFile:
    path: Path
    session_id: str
    rotated: bool
    stamp: str  # the rotation time as written in the name ("" for a live file)

    @property
    def rotated_at(self) -> datetime | None:
        if not self.stamp:
            return None
        date, _, clock = self.stamp.partition("T")
        try:
            return _aware(datetime.fromisoformat(f"{date}T{clock.replace('-', ':')}"))
        except ValueError:
            return None


def _transcript_file(path: Path) -> _TranscriptFile | None:
    match = _FILE_RE.match(path.name)
    if not match:
        return None
    return _TranscriptFile(path, match["sid"], match["kind"] is not None, match["stamp"] or "")


def _scan_sessions_dir(sessions_dir: Path) -> dict[str, list[_TranscriptFile]]:
    found: dict[str, list[_TranscriptFile]] = {}
    try:
        entries = list(os.scandir(sessions_dir))
    except OSError:
        return found
    for entry in entries:
        if entry.name.endswith(".jsonl") or ".jsonl." in entry.name:
            info = _transcript_file(Path(entry.path))
            if info is not None and entry.is_file():
                found.setdefault(info.session_id, []).append(info)
    return found


def _load_store(sessions_dir: Path) -> dict[str, dict]:
    """sessions.json: session key -> entry ({} when missing or unreadable)."""
    try:
        data = _parse((sessions_dir / STORE_NAME).read_bytes())
    except OSError:
        return {}
    if not isinstance(data, dict):
        return {}
    return {key: entry for key, entry in data.items()
            if isinstance(key, str) and isinstance(entry, dict)}


def _store_index(store: dict[str, dict]) -> dict[str, tuple[str, dict]]:
    """sessionId -> (key, entry); the most recently updated key wins."""
    index: dict[str, tuple[str, dict]] = {}
    for key, entry in store.items():
        sid = entry.get("sessionId")
        if not isinstance(sid, str) or not sid:
            continue
        seen = index.get(sid)
        if seen is None or _num(entry.get("updatedAt")) > _num(seen[1].get("updatedAt")):
            index[sid] = (key, entry)
    return index


def _num(value) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0


def _entry_file(sessions_dir: Path, entry: dict | None) -> Path | None:
    """The transcript file a store entry names (relative names live beside sessions.json)."""
    if not entry:
        return None
    name = entry.get("sessionFile")
    if not isinstance(name, str) or not name.strip():
        return None
    path = Path(os.path.expanduser(name.strip()))
    if not path.is_absolute():
        path = sessions_dir / path
    if not path.exists() and (sessions_dir / path.name).exists():
        path = sessions_dir / path.name  # the state dir moved since the entry was written
    return path


def _session_files(sessions_dir: Path, session_id: str, preferred: Path | None,
                   scanned: list[_TranscriptFile] | None = None
                   ) -> tuple[Path | None, list[_TranscriptFile]]:
    """(the live transcript or None, rotated transcripts oldest first) for one session."""
    if scanned is None:
        scanned = _scan_sessions_dir(sessions_dir).get(session_id, [])
    rotated = sorted((f for f in scanned if f.rotated), key=lambda f: (f.stamp, f.path.name))
    live_files = sorted((f.path for f in scanned if not f.rotated), key=lambda p: p.name)
    live = None
    if preferred is not None and preferred.is_file():
        info = _transcript_file(preferred)
        if info is None or not info.rotated:
            live = preferred
    if live is None and live_files:
        plain = sessions_dir / f"{session_id}.jsonl"
        live = plain if plain in live_files else live_files[0]
    return live, rotated


def _updated_from_files(live: Path | None, rotated: list[_TranscriptFile]) -> datetime | None:
    if live is not None:
        try:
            return datetime.fromtimestamp(live.stat().st_mtime, timezone.utc)
        except OSError:
            pass
    for info in reversed(rotated):
        moment = info.rotated_at
        if moment is not None:
            return moment
    return None


def _store_refs(agent_id: str, sessions_dir: Path, only: str | None = None
                ) -> Iterator[SessionRef]:
    """Sessions of one 2026.2 store. Listing (``only`` None) skips entries with no transcript
    yet; asking for one sessionId finds it anyway (it reads as empty)."""
    index = _store_index(_load_store(sessions_dir))
    files = _scan_sessions_dir(sessions_dir)
    session_ids = [only] if only is not None else sorted(set(index) | set(files))
    for sid in session_ids:
        key, entry = index.get(sid, (None, None))
        live, rotated = _session_files(sessions_dir, sid, _entry_file(sessions_dir, entry),
                                       files.get(sid, []))
        if live is None and not rotated and (entry is None or only is None):
            continue
        path = live or (rotated[-1].path if rotated else
                        _entry_file(sessions_dir, entry) or sessions_dir / f"{sid}.jsonl")
        updated = _from_ms(entry.get("updatedAt")) if entry else None
        yield SessionRef(agent_id, sid, key, "2026.2", path,
                         updated or _updated_from_files(live, rotated))


def _read_store_segments(ref: SessionRef, after: str | None) -> list[Segment]:
    if ref.path is None:
        return []
    sessions_dir = ref.path.parent
    info = _transcript_file(ref.path)
    preferred = ref.path if info is None or not info.rotated else None
    live, rotated = _session_files(sessions_dir, ref.session_id, preferred)
    segmenter = _Segmenter(ref.session_id, after)
    for old in rotated:  # every rotation is a finished conversation, in time order
        for event in _iter_jsonl_file(old.path):
            segmenter.feed(event)
        segmenter.close(closed=True)
    if live is not None:
        for event in _iter_jsonl_file(live):
            segmenter.feed(event)
    # a live file no store entry points at any more belongs to a session that has ended
    current = ref.session_id in _store_index(_load_store(sessions_dir))
    return segmenter.finish(closed=not current)


# --------------------------------------------------------------------------------------------
# OpenClaw 2026.9: the per-agent SQLite database

_BUSY_RETRIES = (0.05, 0.2, 0.5, 1.0)
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


def _decode_text(raw: bytes) -> str:
    return raw.decode("utf-8", "replace")


def _is_busy(exc: Exception) -> bool:
    message = str(exc).lower()
    return "locked" in message or "busy" in message


def _wal_is_empty(db: Path) -> bool:
    try:
        return os.path.getsize(f"{db}-wal") == 0
    except FileNotFoundError:
        return True
    except OSError:
        return False


def open_agent_db(db: Path):
    """Open an agent database read-only, beside a gateway that may be writing it (WAL).

    ``mode=ro`` first. Where that cannot work (the WAL index cannot be created in a read-only
    directory) and no WAL content is waiting to be checkpointed, the file alone is the whole
    database and ``immutable=1`` is safe; otherwise this refuses rather than read a torn state.
    A busy database is retried briefly.
    """
    import sqlite3

    base = db.absolute().as_uri()
    last: Exception | None = None
    for delay in (*_BUSY_RETRIES, None):
        try:
            conn = _try_open(sqlite3, f"{base}?mode=ro")
            return conn
        except sqlite3.OperationalError as exc:
            last = exc
            if _is_busy(exc) and delay is not None:
                time.sleep(delay)
                continue
            if not db.is_file():
                raise NotFoundError(f"no OpenClaw database at {db}") from None
            if _is_busy(exc):
                break
            if _wal_is_empty(db):
                try:
                    return _try_open(sqlite3, f"{base}?mode=ro&immutable=1")
                except sqlite3.Error as again:
                    last = again
            else:
                raise ZettelclawError(
                    f"cannot open {db} read-only ({exc}); its write-ahead log holds changes "
                    "that only a writable directory lets a reader see") from None
            break
        except sqlite3.DatabaseError as exc:
            raise ZettelclawError(f"cannot read OpenClaw database {db}: {exc}") from None
    raise ZettelclawError(f"cannot open OpenClaw database {db}: {last}")


def _try_open(sqlite3, uri: str):
    conn = sqlite3.connect(uri, uri=True, timeout=2.0, check_same_thread=False)
    try:
        conn.text_factory = _decode_text
        conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
    except Exception:
        conn.close()
        raise
    return conn


def _query(conn, sql: str, params: tuple = ()):
    """A cursor over ``sql``; a missing table reads as no rows; busy is retried briefly."""
    import sqlite3

    for delay in (*_BUSY_RETRIES, None):
        try:
            return conn.execute(sql, params)
        except sqlite3.OperationalError as exc:
            if "no such table" in str(exc) or "no such column" in str(exc):
                return iter(())
            if not _is_busy(exc) or delay is None:
                raise ZettelclawError(f"cannot read OpenClaw database: {exc}") from None
            time.sleep(delay)
    return iter(())  # pragma: no cover


def _decompress(blob: bytes) -> bytes:
    import zstandard  # only zstd rows and archives pay for it

    return zstandard.ZstdDecompressor().decompressobj().decompress(blob)


def _event_of_row(event_json, event_zstd):
    if event_json is not None:
        return _parse(event_json)
    if event_zstd is not None:
        try:
            return _parse(_decompress(bytes(event_zstd)))
        except Exception:  # a corrupt frame costs that event, not the session
            return None
    return None


def _blob_events(blob, encoding: str | None) -> Iterator:
    data = bytes(blob)
    if encoding == "zstd" or data[:4] == _ZSTD_MAGIC:
        try:
            data = _decompress(data)
        except Exception:
            return
    whole = data.lstrip()[:1]
    if whole == b"[":
        parsed = _parse(data)
        if isinstance(parsed, list):
            yield from parsed
            return
    yield from _iter_jsonl_bytes(data)


def _db_has_events(conn, session_id: str) -> bool:
    rows = _query(conn, "SELECT 1 FROM transcript_events WHERE session_id = ? LIMIT 1",
                  (session_id,))
    return any(True for _ in rows)


def _db_session(conn, session_id: str) -> tuple[bool, str | None, datetime | None]:
    """(known, session key, updated) for one sessionId."""
    key = None
    updated = None
    known = False
    for sql in ("SELECT session_key, updated_at FROM session_nodes WHERE current_session_id = ?",
                "SELECT session_key, updated_at FROM session_windows WHERE session_id = ?",
                "SELECT session_key, created_at FROM session_transcript_archives "
                "WHERE session_id = ? ORDER BY created_at DESC"):
        for row_key, row_updated in _query(conn, sql, (session_id,)):
            known = True
            key = key or row_key
            updated = updated or _from_ms(row_updated)
            break
    if not known:
        known = _db_has_events(conn, session_id)
    return known, key, updated


def _db_refs(agent_id: str, db: Path) -> Iterator[SessionRef]:
    conn = open_agent_db(db)
    try:
        seen: dict[str, tuple[str | None, datetime | None]] = {}
        for sid, key, updated in _query(
                conn, "SELECT session_id, session_key, updated_at FROM session_windows"):
            seen[sid] = (key, _from_ms(updated))
        for sid, key, updated in _query(
                conn, "SELECT session_id, session_key, MAX(created_at) "
                      "FROM session_transcript_archives GROUP BY session_id"):
            seen.setdefault(sid, (key, _from_ms(updated)))
        for sid, updated in _query(
                conn, "SELECT session_id, MAX(created_at) FROM transcript_events "
                      "GROUP BY session_id"):
            if sid not in seen:
                seen[sid] = (None, _from_ms(updated))
        for sid, key in _query(conn, "SELECT current_session_id, session_key FROM session_nodes"):
            if sid in seen and seen[sid][0] is None:
                seen[sid] = (key, seen[sid][1])
    finally:
        conn.close()
    for sid, (key, updated) in seen.items():
        yield SessionRef(agent_id, sid, key, "2026.9", db, updated)


def _read_db_segments(ref: SessionRef, after: str | None) -> list[Segment]:
    conn = open_agent_db(ref.path)
    try:
        segmenter = _Segmenter(ref.session_id, after)
        live = 0
        for event_json, event_zstd in _query(
                conn, "SELECT event_json, event_zstd FROM transcript_events "
                      "WHERE session_id = ? ORDER BY seq", (ref.session_id,)):
            live += 1
            segmenter.feed(_event_of_row(event_json, event_zstd))
        if live:
            # a session no key points at any more (rolled over, deleted) has ended
            current = any(True for _ in _query(
                conn, "SELECT 1 FROM session_nodes WHERE current_session_id = ? LIMIT 1",
                (ref.session_id,)))
            return segmenter.finish(closed=not current)
        # the live events are gone: read the reset/deleted generations kept as archives
        for blob, encoding in _query(
                conn, "SELECT archive_blob, encoding FROM session_transcript_archives "
                      "WHERE session_id = ? ORDER BY created_at, generation", (ref.session_id,)):
            for event in _blob_events(blob, encoding):
                segmenter.feed(event)
            segmenter.close(closed=True)
        for (blob,) in _query(
                conn, "SELECT archive_blob FROM session_transcript_cold_archives "
                      "WHERE session_id = ? AND archive_blob IS NOT NULL", (ref.session_id,)):
            for event in _blob_events(blob, None):
                segmenter.feed(event)
            segmenter.close(closed=True)
        return segmenter.finish(closed=True)
    finally:
        conn.close()


# --------------------------------------------------------------------------------------------
# Finding sessions


def _agent_dirs(agent: str | None) -> list[tuple[str, Path]]:
    root = paths.agents_dir()
    if agent is not None:
        if not agent or "/" in agent or "\\" in agent or agent.startswith("."):
            raise UsageError(f"refused: {agent!r} is not an agent id")
        return [(agent, root / agent)] if (root / agent).is_dir() else []
    try:
        return sorted((p.name, p) for p in root.iterdir()
                      if p.is_dir() and not p.name.startswith("."))
    except OSError:
        return []


def _check_session_id(session_id: str) -> str:
    session_id = session_id.strip()
    if (not session_id or "/" in session_id or "\\" in session_id or session_id.startswith(".")
            or "\x00" in session_id):
        raise UsageError(f"refused: {session_id!r} is not a session id")
    return session_id


def find_session(session_id: str, agent: str | None = None) -> SessionRef:
    """Where a session's transcript lives, in either layout, for one agent or any.

    Raises NotFoundError when no agent knows the sessionId.
    """
    session_id = _check_session_id(session_id)
    for agent_id, agent_dir in _agent_dirs(agent):
        db = agent_dir / "agent" / DB_NAME
        if db.is_file():
            conn = open_agent_db(db)
            try:
                known, key, updated = _db_session(conn, session_id)
            finally:
                conn.close()
            if known:
                return SessionRef(agent_id, session_id, key, "2026.9", db, updated)
        sessions_dir = agent_dir / "sessions"
        if sessions_dir.is_dir():
            for ref in _store_refs(agent_id, sessions_dir, only=session_id):
                return ref
    where = f" for agent {agent}" if agent else ""
    raise NotFoundError(f"no OpenClaw session {session_id}{where} under {paths.agents_dir()}")


_SQLITE_MARKER_RE = re.compile(r"^sqlite:([^:]+):([^:]+):(.*)$")


def find_session_file(session_file: str, agent: str | None = None) -> SessionRef:
    """The session a hook's ``sessionFile`` names.

    2026.9 hands over a pseudo-id, ``sqlite:<agentId>:<sessionId>:<storePath>``; 2026.2 a
    transcript path, which may already have been rotated to ``.reset.<time>`` (the rotated file
    is found) and whose store entry gives the key.
    """
    value = session_file.strip()
    marker = _SQLITE_MARKER_RE.match(value)
    if marker:
        return find_session(marker[2], agent or marker[1])
    path = Path(os.path.expanduser(value))
    info = _transcript_file(path)
    if info is None:
        raise UsageError(f"{session_file!r} is not an OpenClaw transcript file")
    sessions_dir = path.parent
    if sessions_dir.is_dir():
        agent_id = agent or sessions_dir.parent.name
        for ref in _store_refs(agent_id, sessions_dir, only=info.session_id):
            if ref.path and not ref.path.exists() and path.exists():
                ref.path = path
            return ref
    return find_session(info.session_id, agent)


def list_sessions(agent: str | None = None, since: datetime | None = None) -> Iterator[SessionRef]:
    """Every session of every agent (or of one), in both layouts, least recently updated first.

    ``since`` keeps sessions updated at or after it (a naive time is UTC); a session whose time
    is unknown is always listed.
    """
    since = _aware(since) if since is not None else None
    for agent_id, agent_dir in _agent_dirs(agent):
        refs: dict[str, SessionRef] = {}
        db = agent_dir / "agent" / DB_NAME
        if db.is_file():
            try:
                for ref in _db_refs(agent_id, db):
                    refs[ref.session_id] = ref
            except ZettelclawError as exc:  # one unreadable agent does not hide the others
                print(f"zettelclaw: skipping agent {agent_id}: {exc}", file=sys.stderr)
        sessions_dir = agent_dir / "sessions"
        if sessions_dir.is_dir():
            for ref in _store_refs(agent_id, sessions_dir):
                refs.setdefault(ref.session_id, ref)  # the database wins after an upgrade
        ordered = sorted(refs.values(), key=lambda r: (
            r.updated_at or datetime.min.replace(tzinfo=timezone.utc), r.session_id))
        for ref in ordered:
            if since is None or ref.updated_at is None or ref.updated_at >= since:
                yield ref


def read_segments(ref: SessionRef, *, after: str | None = None) -> list[Segment]:
    """The conversations of one session, oldest first; each with at least one message.

    ``after`` is an event id (a segment's ``last_event_id`` kept as a cursor): only what came
    after it is returned, the segment it fell inside trimmed to the later messages. An id that
    is not in the transcript cuts nothing.
    """
    if ref.layout == "2026.9":
        if ref.path is None:
            raise UsageError("a 2026.9 session needs its database path")
        return _read_db_segments(ref, after)
    if ref.layout == "2026.2":
        return _read_store_segments(ref, after)
    raise UsageError(f"cannot read a {ref.layout!r} session by reference; "
                     "pass its messages to segments_from_messages")


def session_key_for(session_id: str, agent: str | None = None) -> str | None:
    """The session key for a sessionId, from the session store (None when unknown)."""
    try:
        return find_session(session_id, agent).session_key
    except NotFoundError:
        return None


# --------------------------------------------------------------------------------------------
# Text for the model and for `get session:`

_LABELS = {USER: "User", ASSISTANT: "Assistant"}
# A turn starts at the beginning of a line with its label; every further line of a message is
# indented by two spaces, so a message holding "\nAssistant: ..." cannot pass for a turn of
# its own. Every character a reader may take for a line break counts as one.
_BREAKS = re.compile("\r\n|[\n\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")
_CONTINUATION = "\n  "


def _line(message: Message) -> str:
    label = _LABELS.get(message.role, message.role.title())
    return f"{label}: {_BREAKS.sub(_CONTINUATION, message.text)}"


def _rendered_len(text: str) -> int:
    return len(_BREAKS.sub(_CONTINUATION, text))


def render(messages: Iterable[Message], *, max_chars: int | None = None) -> str:
    """``User: ...`` / ``Assistant: ...`` lines (a message's further lines indented by two
    spaces). With ``max_chars``, a longer conversation is
    cut there and says how much was left out (use :func:`chunk_messages` to keep it all)."""
    text = "\n".join(_line(m) for m in messages)
    if max_chars is None or len(text) <= max_chars:
        return text
    left = len(text) - max_chars
    return f"{text[:max_chars].rstrip()}\n[... {left} more characters not shown]"


def chunk_messages(messages: Iterable[Message], max_chars: int) -> list[list[Message]]:
    """Split a conversation into runs whose rendering fits ``max_chars`` each, cutting between
    messages; one message longer than that is split into parts (at whitespace where it can).
    Nothing is dropped: the chunks hold every character of every message, in order."""
    if max_chars < 40:
        raise UsageError("max_chars must be at least 40")
    chunks: list[list[Message]] = []
    current: list[Message] = []
    size = 0
    for message in messages:
        for part in _split_message(message, max_chars):
            cost = len(_line(part)) + (1 if current else 0)
            if current and size + cost > max_chars:
                chunks.append(current)
                current, size = [], 0
                cost = len(_line(part))
            current.append(part)
            size += cost
    if current:
        chunks.append(current)
    return chunks


def _split_message(message: Message, max_chars: int) -> list[Message]:
    room = max_chars - len(_LABELS.get(message.role, message.role)) - 2
    text = message.text
    if _rendered_len(text) <= room:
        return [message]
    parts = []
    while _rendered_len(text) > room:
        cut = text.rfind(" ", room // 2, room)
        cut = room if cut <= 0 else cut + 1
        while cut > 1 and _rendered_len(text[:cut]) > room:  # indented line breaks
            cut -= _rendered_len(text[:cut]) - room
        parts.append(text[:cut])
        text = text[cut:]
    parts.append(text)
    return [Message(message.role, part, message.event_id, message.timestamp, message.position)
            for part in parts if part]

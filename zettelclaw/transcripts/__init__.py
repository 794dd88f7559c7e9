"""OpenClaw conversations as plain user/assistant text, from wherever OpenClaw keeps them.

Three sources sit behind one reader:

* inline (:mod:`.inline`): the ``messages`` a ``before_reset`` hook hands over: a JSON array of
  message objects (``{role, content, ...}``) or of whole transcript events, or JSON Lines of
  either;
* OpenClaw 2026.2 (:mod:`.jsonl`): ``agents/<agentId>/sessions/sessions.json`` (session key ->
  entry with ``sessionId``, ``updatedAt``, ``sessionFile?``) and one JSONL file per session
  beside it: ``<sessionId>.jsonl`` or ``<sessionId>-topic-<id>.jsonl``, renamed to
  ``<file>.reset.<time>`` / ``<file>.deleted.<time>`` when the session is reset or deleted;
* OpenClaw 2026.9 (:mod:`.sqlite`): ``agents/<agentId>/agent/openclaw-agent.sqlite`` (WAL, owned
  by the gateway), opened read-only: ``transcript_events`` rows (``event_json`` or zstd
  ``event_zstd``), keys in ``session_nodes`` / ``session_windows``, reset/deleted generations in
  ``session_transcript_archives``.

A session reads as a list of :class:`Segment` (:mod:`.segments`), one per conversation: on
2026.9 ``/new`` and ``/reset`` keep the sessionId and append a ``reset`` event, which closes a
segment; on 2026.2 each rotated file is a closed segment of its own. :mod:`.sessions` finds a
session in either layout; :mod:`.scope` says which session keys had a human in them;
:mod:`.dialogue` renders a conversation as text for the model, whole or in chunks.

Only what the human and the assistant said is kept (:mod:`.clean`). Dropped: tool calls and
results, thinking, ``custom`` / ``custom_message`` events (bootstrap context), model changes,
compaction summaries; and OpenClaw's own additions to the text:
``<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>`` runtime-context blocks (both roles), the inbound channel
metadata envelopes (``Conversation info (untrusted metadata):`` + fenced JSON, ``Sender (...)``,
the ``[Wed 2026-03-11 23:51 PDT]`` timestamp prefix), generated user turns (``System: [...]``
wrappers, ``[cron:...]`` prompts, the heartbeat and ``/new`` start-up prompts, exec completions),
inter-session and internal-system inputs, and ``HEARTBEAT_OK`` / ``NO_REPLY`` replies. Images
become ``[image]``. And zettelclaw's own additions: every ``<zettelclaw-memory>`` (or any
``<zettelclaw-NAME>``) block the plugin put before the user's message, which OpenClaw 2026.2
stores inside it (both roles; a block left open runs to the end of the message), so memory never
extracts itself.

Transcripts are streamed: a file is read line by line and a database cursor row by row, so a
100 MB transcript costs the text it holds, not its size in dicts.
"""

from __future__ import annotations

from .clean import (
    MEMORY_TAG,
    ZETTELCLAW_TAG_PREFIX,
    clean_text,
    content_text,
    strip_inbound_metadata,
    strip_own_blocks,
    strip_runtime_context,
)
from .dialogue import chunk_messages, render
from .inline import segments_from_messages
from .jsonl import MAX_LINE_BYTES, STORE_NAME
from .scope import DEFAULT_SKIP_PREFIXES, in_scope
from .sessions import (
    find_session,
    find_session_file,
    has_database,
    list_sessions,
    read_segments,
    session_key_for,
)
from .shapes import ASSISTANT, USER, Message, Segment, SessionRef
from .sqlite import DB_NAME, open_agent_db

__all__ = [
    "ASSISTANT", "DB_NAME", "DEFAULT_SKIP_PREFIXES", "MAX_LINE_BYTES", "MEMORY_TAG",
    "STORE_NAME", "USER", "ZETTELCLAW_TAG_PREFIX", "Message", "Segment", "SessionRef",
    "chunk_messages", "clean_text", "content_text", "find_session", "find_session_file",
    "has_database", "in_scope", "list_sessions", "open_agent_db", "read_segments", "render",
    "segments_from_messages", "session_key_for", "strip_inbound_metadata", "strip_own_blocks",
    "strip_runtime_context",
]

"""Build OpenClaw state directories for tests, benchmarks and the demo.

Both layouts, with the shapes OpenClaw really writes (see docs/openclaw.md and the database
OpenClaw 2026.9.6 wrote, in ``tests/data/openclaw-2026.9.6``):

* 2026.2: ``agents/<agent>/sessions/sessions.json`` (key -> entry) and ``<sessionId>.jsonl``,
  rotated to ``<sessionId>.jsonl.reset.<time>`` when ``/new`` starts a new sessionId;
* 2026.9: ``agents/<agent>/agent/openclaw-agent.sqlite``: ``session_nodes``,
  ``session_windows``, ``transcript_events`` (one JSON event per row, a ``reset`` event
  between conversations of one sessionId), tables created with OpenClaw's own DDL.

A conversation is a list of turns: ``("user", text)``, ``("assistant", text)``,
``("tool", name, arguments, result)`` (an assistant toolCall and its toolResult, which
extraction must drop) or ``("thinking", text)``.
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

# OpenClaw 2026.9.6's DDL for the tables zettelclaw reads (copied from a database it wrote)
SCHEMA_2026_9 = [
    """CREATE TABLE schema_meta (
  meta_key TEXT NOT NULL PRIMARY KEY, role TEXT NOT NULL, schema_version INTEGER NOT NULL,
  agent_id TEXT, app_version TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL
) STRICT""",
    """CREATE TABLE session_nodes (
  session_key TEXT NOT NULL PRIMARY KEY,
  current_session_id TEXT NOT NULL,
  entry_json TEXT NOT NULL,
  legacy_acp_migration_json TEXT,
  entry_valid INTEGER NOT NULL DEFAULT 0 CHECK (entry_valid IN (-1, 0, 1)),
  updated_at INTEGER NOT NULL,
  status TEXT CHECK (status IS NULL OR status IN
    ('running', 'done', 'failed', 'killed', 'timeout')),
  created_at INTEGER,
  created_via TEXT,
  created_actor_type TEXT,
  created_actor_id TEXT,
  owner_actor_type TEXT, owner_actor_id TEXT, owner_assigned_by_type TEXT,
  owner_assigned_by_id TEXT, owner_assigned_at INTEGER, project_id TEXT,
  parent_session_key TEXT, spawned_by TEXT, fork_source_session_key TEXT,
  fork_source_session_id TEXT, fork_source_entry_id TEXT, label TEXT, display_name TEXT,
  category TEXT, icon TEXT, pinned_at INTEGER, archived_at INTEGER, last_read_at INTEGER,
  last_interaction_at INTEGER, last_activity_at INTEGER
) STRICT""",
    """CREATE TABLE session_windows (
  session_id TEXT NOT NULL PRIMARY KEY,
  session_key TEXT NOT NULL,
  previous_session_id TEXT,
  reason TEXT CHECK (reason IS NULL OR reason IN ('initial', 'reset', 'rollover', 'fork',
    'rewind', 'switch', 'recovery', 'compaction')),
  session_scope TEXT NOT NULL DEFAULT 'conversation',
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  transcript_updated_at INTEGER DEFAULT NULL,
  transcript_observed_at INTEGER DEFAULT NULL,
  session_entry_provenance INTEGER NOT NULL DEFAULT 0,
  acp_owned INTEGER NOT NULL DEFAULT 0,
  plugin_owner_id TEXT, hook_external_content_source TEXT, started_at INTEGER,
  ended_at INTEGER, status TEXT, chat_type TEXT, channel TEXT, account_id TEXT,
  primary_conversation_id TEXT, model_provider TEXT, model TEXT, agent_harness_id TEXT,
  parent_session_key TEXT, spawned_by TEXT, display_name TEXT
) STRICT""",
    """CREATE TABLE transcript_events (
  session_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  event_json TEXT,
  created_at INTEGER NOT NULL,
  event_zstd BLOB,
  event_utf8_bytes INTEGER CHECK (event_utf8_bytes IS NULL OR event_utf8_bytes >= 0),
  navigation_json TEXT,
  PRIMARY KEY (session_id, seq)
) STRICT""",
    """CREATE TABLE session_transcript_archives (
  session_id TEXT NOT NULL,
  generation TEXT NOT NULL,
  session_key TEXT NOT NULL,
  reason TEXT NOT NULL CHECK (reason IN ('deleted', 'reset')),
  encoding TEXT NOT NULL CHECK (encoding IN ('identity', 'zstd')),
  archive_blob BLOB NOT NULL,
  archive_sha256 TEXT NOT NULL CHECK (length(archive_sha256) = 64),
  archive_name TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL,
  published_at INTEGER,
  publish_attempts INTEGER NOT NULL DEFAULT 0,
  last_publish_attempt_at INTEGER,
  last_publish_error TEXT,
  PRIMARY KEY (session_id, generation)
) STRICT""",
    """CREATE TABLE session_transcript_cold_archives (
  session_id TEXT NOT NULL PRIMARY KEY,
  generation TEXT NOT NULL,
  archive_name TEXT NOT NULL UNIQUE,
  archive_sha256 TEXT NOT NULL,
  event_count INTEGER NOT NULL,
  raw_bytes INTEGER NOT NULL,
  archive_bytes INTEGER NOT NULL,
  last_seq INTEGER NOT NULL,
  archived_at INTEGER NOT NULL,
  storage TEXT NOT NULL,
  archive_blob BLOB
) STRICT""",
]


def _ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def _iso(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace(
        "+00:00", "Z")


class _Events:
    """Transcript events in OpenClaw's shape, with ids, parent links and timestamps."""

    def __init__(self, session_id: str, start: datetime, step: timedelta):
        self.session_id = session_id
        self.clock = start
        self.step = step
        self.parent: str | None = None
        self.events: list[dict] = []
        self.legacy = False  # 2026.2: no __openclaw.senderIsOwner on user messages

    def _next(self) -> datetime:
        moment = self.clock
        self.clock += self.step
        return moment

    def add(self, kind: str, **fields) -> dict:
        event_id = fields.pop("id", None) or str(uuid.uuid4())
        moment = self._next()
        event = {"type": kind, **fields, "id": event_id, "parentId": self.parent,
                 "timestamp": _iso(moment)}
        self.parent = event_id
        self.events.append(event)
        return event

    def header(self, cwd: str = "/home/user/.openclaw/workspace") -> None:
        self.events.append({"type": "session", "version": 4, "id": self.session_id,
                            "timestamp": _iso(self.clock), "cwd": cwd})
        self.add("model_change", provider="anthropic", modelId="claude-sonnet-4-6")
        self.add("thinking_level_change", thinkingLevel="off")

    def message(self, role: str, content, **extra) -> dict:
        msg = {"role": role, "content": content, "timestamp": _ms(self.clock), **extra}
        return self.add("message", message=msg)

    def conversation(self, turns) -> None:
        for turn in turns:
            kind = turn[0]
            if kind == "user":
                self.message("user", turn[1], **({} if self.legacy else
                                                 {"__openclaw": {"senderIsOwner": True}}))
            elif kind == "other":  # a person who is not the owner (senderIsOwner false)
                self.message("user", turn[1], __openclaw={"senderIsOwner": False})
            elif kind == "assistant":
                self.message("assistant", [{"type": "text", "text": turn[1]}],
                             api="anthropic-messages", provider="anthropic",
                             model="claude-sonnet-4-6", stopReason="stop")
            elif kind == "thinking":
                self.message("assistant", [{"type": "thinking", "thinking": turn[1]}],
                             stopReason="stop")
            elif kind == "tool":
                _, name, arguments, result = turn
                call_id = f"call_{uuid.uuid4().hex[:8]}"
                self.message("assistant", [{"type": "toolCall", "id": call_id, "name": name,
                                            "arguments": arguments}], stopReason="toolUse")
                self.message("toolResult", [{"type": "text", "text": result}],
                             toolCallId=call_id, toolName=name, isError=False)
            else:
                raise ValueError(f"unknown turn kind {kind!r}")
            if kind in ("user", "other"):
                self.add("custom", customType="openclaw:bootstrap-context:full",
                         data={"sessionId": self.session_id})


class OpenClawHome:
    """An OpenClaw state dir (``$OPENCLAW_STATE_DIR``) being filled with sessions."""

    def __init__(self, state_dir: Path | str):
        self.root = Path(state_dir)
        self.agents = self.root / "agents"

    # -- 2026.2 ------------------------------------------------------------------------------

    def _store(self, agent: str) -> Path:
        return self.agents / agent / "sessions" / "sessions.json"

    def jsonl_session(self, agent: str, session_id: str, turns, *, key: str | None = None,
                      start: datetime, step: timedelta = timedelta(seconds=40),
                      rotated: bool = False) -> Path:
        """One 2026.2 transcript. ``key``: the store entry pointing at it (the current
        session of that key). ``rotated``: renamed ``.reset.<time>`` as ``/new`` leaves it."""
        sessions = self.agents / agent / "sessions"
        sessions.mkdir(parents=True, exist_ok=True)
        events = _Events(session_id, start, step)
        events.legacy = True
        events.header()
        events.conversation(turns)
        path = sessions / f"{session_id}.jsonl"
        if rotated:
            stamp = _iso(events.clock).replace(":", "-")
            path = sessions / f"{session_id}.jsonl.reset.{stamp}"
        path.write_text("".join(json.dumps(e) + "\n" for e in events.events))
        if key is not None:
            store_path = self._store(agent)
            store = json.loads(store_path.read_text()) if store_path.exists() else {}
            store[key] = {"sessionId": session_id, "updatedAt": _ms(events.clock),
                          "chatType": "direct", "sessionFile": str(path)}
            store_path.write_text(json.dumps(store, indent=2))
        return path

    # -- 2026.9 ------------------------------------------------------------------------------

    def db_path(self, agent: str) -> Path:
        return self.agents / agent / "agent" / "openclaw-agent.sqlite"

    def connect(self, agent: str) -> sqlite3.Connection:
        path = self.db_path(agent)
        fresh = not path.exists()
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(path)
        if fresh:
            for ddl in SCHEMA_2026_9:
                conn.execute(ddl)
            now = _ms(datetime.now(timezone.utc))
            conn.execute("INSERT INTO schema_meta VALUES ('agent', 'agent', 1, ?, '2026.9.6', "
                         "?, ?)", (agent, now, now))
            conn.commit()
        return conn

    def db_session(self, agent: str, session_id: str, conversations, *, key: str,
                   start: datetime, step: timedelta = timedelta(seconds=40),
                   current: bool = True, reset_reasons=None) -> list[dict]:
        """One 2026.9 sessionId holding several conversations, a ``reset`` event between
        each (what ``/new`` and ``/reset`` do). ``current``: the key still points at it.
        Called again for the same sessionId, it appends: a reset event, then the new
        conversations. Returns the events written."""
        conn = self.connect(agent)
        seq0 = conn.execute("SELECT COALESCE(MAX(seq) + 1, 0) FROM transcript_events "
                            "WHERE session_id = ?", (session_id,)).fetchone()[0]
        events = _Events(session_id, start, step)
        reasons = list(reset_reasons or ["new"] * len(conversations))
        if seq0 == 0:
            events.header()
        for number, turns in enumerate(conversations):
            if number or seq0:  # a later conversation of the same sessionId: /new or /reset
                events.add("reset", id=uuid.uuid4().hex[:8], reason=reasons.pop(0))
                events.add("model_change", provider="anthropic", modelId="claude-sonnet-4-6")
            events.conversation(turns)
        with conn:
            first = _ms(start)
            last = _ms(events.clock)
            for seq, event in enumerate(events.events, seq0):
                body = json.dumps(event)
                moment = event.get("timestamp")
                created = (_ms(datetime.fromisoformat(moment.replace("Z", "+00:00")))
                           if isinstance(moment, str) else first)
                conn.execute("INSERT INTO transcript_events (session_id, seq, event_json, "
                             "created_at, event_utf8_bytes) VALUES (?, ?, ?, ?, ?)",
                             (session_id, seq, body, created, len(body.encode())))
            conn.execute(
                "INSERT OR REPLACE INTO session_windows (session_id, session_key, reason, "
                "session_scope, created_at, updated_at, transcript_updated_at, started_at, "
                "ended_at, status, chat_type, model_provider, model) VALUES "
                "(?, ?, 'initial', 'conversation', ?, ?, ?, ?, ?, ?, 'direct', 'anthropic', "
                "'claude-sonnet-4-6')",
                (session_id, key, first, last, last, first, None if current else last,
                 "running" if current else "done"))
            if current:
                entry = {"sessionId": session_id, "updatedAt": last, "sessionStartedAt": first,
                         "systemSent": True, "chatType": "direct"}
                conn.execute(
                    "INSERT OR REPLACE INTO session_nodes (session_key, current_session_id, "
                    "entry_json, entry_valid, updated_at, status, created_at, created_via, "
                    "created_actor_type, last_interaction_at, last_activity_at) VALUES "
                    "(?, ?, ?, 1, ?, 'done', ?, 'channel', 'human', ?, ?)",
                    (key, session_id, json.dumps(entry), last, first, last, last))
        conn.close()
        return events.events

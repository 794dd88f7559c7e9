"""Extraction (design §4): a conversation in, typed log entries out.

Per conversation segment (a 2026.9 ``reset`` event, or a rotated 2026.2 file, ends one):

1. render the user/assistant text (``zettelclaw.transcripts``); a conversation too long for
   the model is split between messages into chunks that together hold every character; every
   chunk but the last is told not to write a handoff;
2. one model call per chunk (``zettelclaw.model``): the prompt alone is the cached system
   prefix (byte-identical across a night's extractions); the user turn holds, framed as data,
   the subjects and the existing entries chosen for the conversation (:mod:`.context`), then
   the transcript;
3. the output is parsed line by line: code fences, blank lines and prose are skipped (prose and
   broken JSON are counted); each object is validated: one of the five types, non-empty
   content, a task's status (``open`` when the model left it out), unknown fields dropped;
   ``id``, ``timestamp`` and ``session`` always come from here, never from the model; subjects
   are slugified and new ones registered (Title Case display, type project); a ``replaces``
   naming no entry the model was shown, or one its type cannot correct, or a look-alike (an
   entry it was not shown names what the new entry says more closely:
   ``zettelclaw.corrections.look_alike``) is dropped with a warning; exactly one handoff is
   kept (the last one of the last chunk); when the model wrote none, none is stored and a
   warning says so;
4. secrets are redacted, then all of the segment's entries go into the log in one locked append.

An entry's ``timestamp`` is when its conversation happened, not when it was extracted: the time
of the conversation's last message (a 2026.2 or 2026.9 event's ``timestamp``, an inline
``before_reset`` message's own time), else the session's last update, else now; never later
than now, one time for every entry of the conversation (``segment_time``). A sweep months
later keeps January's conversations in January. When it was extracted is ``state.json``'s
``extractedSessions[sessionId].at``. The model sees the existing entries as the log stood at
the conversation's time (those dated at or before it), so a conversation extracted late
cannot correct what was decided after it.

Dedup and failures (§4.1.1), in ``state.json`` under the directory lock:

* ``claims[sessionId]``: taken under the lock before any model call, so two triggers of the
  same session (``before_reset`` and ``session_end`` at the same instant) extract it once: the
  second sees a live claim and waits for it to go (polling, backoff up to 10 s, at most 15
  minutes, ``$ZETTELCLAW_CLAIM_WAIT``), then extracts what lies beyond the cursor the first
  left, usually nothing; so neither leaves the conversation to the next gateway start. Sweep
  does not wait: a claimed session is its holder's. A claim dies with its process (or after
  2 hours).
* ``extractedSessions[sessionId].cursor``: how far the session has been extracted: the last
  event id, hashes of the last message and of the few before it (inline messages carry no
  ids, and "Got it." recurs: the preceding messages and the time pick the right repetition),
  and its time. A later conversation in the same sessionId (2026.9 ``/new``) is what lies
  beyond the cursor. ``held``: sweep left an open conversation to settle.
* ``pending[sessionId]``: the entries about to be appended, written before the append and
  cleared after it, so a process killed in between is finished by the next run (missing
  entries appended, none twice).
* ``failedSessions[sessionId]``: redacted error and retry count; retried once by the next
  trigger, then ``permanent`` (``sweep --retry-failed`` tries again).
* ``usage``: token totals across all extractions; each session record keeps its own.

The package: :mod:`.output` (the model's output parsed), :mod:`.build` (objects into entries,
corrections included), :mod:`.cursor` (cursors, what lies beyond one, a conversation's time),
:mod:`.claim` (the cross-process claim), :mod:`.bookkeeping` (state.json: commit, pending,
failures, waiting for a key), :mod:`.plan` (which conversations to extract now),
:mod:`.context` (the subjects and existing entries shown to the model for a conversation),
:mod:`.framing` (data kept from breaking out of its tags), :mod:`.options` (the plugin config's
``extraction``), :mod:`.result` (:class:`Result`), :mod:`.extractor` (:class:`Extractor`: the
prompt and the chunked model calls) and :mod:`.session` (one session's steps: claim, recover,
plan, extract each, commit, report).
"""

from __future__ import annotations

from .bookkeeping import clear_waiting, record_waiting
from .build import MAX_FIELD_CHARS, build_entries
from .claim import (
    CLAIM_POLL_MAX_SECONDS,
    CLAIM_POLL_SECONDS,
    CLAIM_TTL_SECONDS,
    CLAIM_WAIT_SECONDS,
    claim_is_live,
)
from .context import ENTRIES_CHARS, SUBJECTS_CHARS
from .cursor import CONTEXT_MESSAGES, after_cursor, make_cursor, segment_time
from .extractor import Extractor, extract_session
from .options import (
    DEFAULT_CHUNK_CHARS,
    _skip_prefixes,  # noqa: F401  (sweep and history skip the same keys)
)
from .output import Parsed, parse_output
from .result import Result

__all__ = [
    "CLAIM_POLL_MAX_SECONDS", "CLAIM_POLL_SECONDS", "CLAIM_TTL_SECONDS", "CLAIM_WAIT_SECONDS",
    "CONTEXT_MESSAGES", "DEFAULT_CHUNK_CHARS", "ENTRIES_CHARS", "MAX_FIELD_CHARS",
    "SUBJECTS_CHARS", "Extractor", "Parsed", "Result", "after_cursor", "build_entries",
    "claim_is_live", "clear_waiting", "extract_session", "make_cursor", "parse_output",
    "record_waiting", "segment_time",
]

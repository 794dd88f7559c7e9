"""Message cleaning: what OpenClaw (and zettelclaw itself) added that the human did not write.

Dropped from the text: OpenClaw's ``<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>`` runtime-context blocks
(both roles), the inbound channel metadata envelopes, generated user turns, ``HEARTBEAT_OK`` /
``NO_REPLY`` replies, and every ``<zettelclaw-NAME>`` block the plugin put before the user's
message. Media become placeholders (``[image]``).
"""

from __future__ import annotations

import re

from .shapes import USER

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
        text = _drop_delimited_blocks(text)
    if _RUNTIME_NOTICE in text:
        text = _cut_at_runtime_header(text)
    return text


def _drop_delimited_blocks(text: str) -> str:
    """``text`` without its ``<<<BEGIN_...>>>`` ... ``<<<END_...>>>`` blocks (nesting counted; one
    left open runs to the end; a stray END goes on its own); the pieces left, a blank line apart."""
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
    return "\n\n".join(p.strip() for p in pieces if p.strip())


def _cut_at_runtime_header(text: str) -> str:
    """``text`` up to the first runtime header followed by the runtime notice (all of it when
    there is none)."""
    lines = text.split("\n")
    for i, line in enumerate(lines[:-1]):
        if line.strip() in _RUNTIME_HEADERS and lines[i + 1].strip() == _RUNTIME_NOTICE:
            return "\n".join(lines[:i])
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
    while i < len(lines):
        after = _past_envelope(lines, i)
        if after is None:
            out.append(lines[i])
            i += 1
        else:
            i = after
    return _LEADING_TS_RE.sub("", "\n".join(out).strip(), count=1)


def _past_envelope(lines: list[str], i: int) -> int | None:
    """Where the metadata block starting at line ``i`` ends (the next line to keep), or None
    when line ``i`` is the message's own."""
    line = lines[i]
    head = _SENTINEL_LINE_RE.match(line).group(1)
    if head in _INBOUND_SENTINELS:  # a header, then fenced JSON
        return _past_fenced_json(lines, i + 1)
    if head in _INBOUND_PARAGRAPHS:  # a header line, then lines up to a blank line
        return _past_blank(lines, _past_text(lines, i + 1))
    if _MESSAGE_ID_LINE_RE.match(line):
        return i + 1
    return None


def _past_fenced_json(lines: list[str], i: int) -> int | None:
    """Past the ```` ```json ```` block at line ``i`` (blank lines around it included); None
    when no such block starts there (the header line is then the message's own)."""
    j = _past_blank(lines, i)
    if j >= len(lines) or lines[j].strip() != "```json":
        return None
    j += 1
    while j < len(lines) and lines[j].strip() != "```":
        j += 1
    return _past_blank(lines, j + 1)


def _past_blank(lines: list[str], i: int) -> int:
    while i < len(lines) and not lines[i].strip():
        i += 1
    return i


def _past_text(lines: list[str], i: int) -> int:
    while i < len(lines) and lines[i].strip():
        i += 1
    return i


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

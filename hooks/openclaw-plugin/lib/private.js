// <private>...</private>: what the person keeps out of memory (zettelclaw/private.py has the
// rules, README "Private"). Here: never a recall query (so never in a command line or a log),
// and never in the before_reset messages written for `extract`'s stdin (a file in the log
// directory, if only for a moment). The tags go by any case and spaces inside the brackets,
// nested tags are counted, a stray closing tag is dropped, one left open runs to the end; the
// same words elsewhere in the same messages (an assistant's echo) are hidden too.

export const PRIVATE = "[private]";
const TAG = /<\s*(\/)?\s*private(?:\s[^<>]*)?>/gi;
const MIN_CHARS = 2;
const MIN_NUMBER = 3;
const EDGE_PUNCT = /^[.,;:!?()[\]{}'"“”‘’]+|[.,;:!?()[\]{}'"“”‘’]+$/g;
const WORD_CHAR = /[\p{L}\p{N}_]/u;

/** {text, spans}: `text` with each private span (tags included) replaced by `placeholder`. */
export function hidePrivate(text, placeholder = PRIVATE) {
  if (typeof text !== "string" || !text.includes("<") || !/private/i.test(text)) {
    return { text, spans: [] };
  }
  let out = "";
  const spans = [];
  let depth = 0;
  let pos = 0;
  for (const tag of text.matchAll(TAG)) {
    const closing = tag[1] !== undefined;
    if (depth === 0) {
      out += text.slice(pos, tag.index);
      pos = tag.index + tag[0].length;
      if (!closing) depth = 1;
    } else if (closing) {
      depth -= 1;
      if (depth === 0) {
        spans.push(text.slice(pos, tag.index));
        out += placeholder;
        pos = tag.index + tag[0].length;
      }
    } else {
      depth += 1;
    }
  }
  if (depth) {
    spans.push(text.slice(pos));
    out += placeholder;
  } else {
    out += text.slice(pos);
  }
  return { text: out, spans: spans.filter((s) => s.trim()) };
}

/** `text` without its private spans, nothing in their place (the recall query). */
export function stripPrivate(text) {
  return hidePrivate(text, "").text;
}

function escapeRe(word) {
  return word.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&"); // the u flag allows no other escape
}

function patternOf(piece) {
  const words = piece.split(/\s+/).filter(Boolean);
  if (words.join("").length < MIN_CHARS) return null;
  const head = WORD_CHAR.test(words[0][0]) ? "(?<![\\p{L}\\p{N}_])" : "";
  const tail = WORD_CHAR.test(words[words.length - 1].slice(-1)) ? "(?![\\p{L}\\p{N}_])" : "";
  return head + words.map(escapeRe).join("\\s+") + tail;
}

/** A function hiding every occurrence of `spans` (and of their lines and numbers), or null. */
export function echoHider(spans) {
  const patterns = new Set();
  for (const span of spans) {
    const lines = span.split(/\r\n|\r|\n/).filter((l) => l.trim());
    const numbers = span.split(/\s+/).map((w) => w.replace(EDGE_PUNCT, ""))
      .filter((w) => w.length >= MIN_NUMBER && /\d/.test(w));
    for (const piece of [span, ...(lines.length > 1 ? lines : []), ...numbers]) {
      const pattern = patternOf(piece);
      if (pattern) patterns.add(pattern);
    }
  }
  if (!patterns.size) return null;
  const ordered = [...patterns].sort((a, b) => b.length - a.length);
  const re = new RegExp(ordered.map((p) => `(?:${p})`).join("|"), "giu");
  return (text) => text.replace(re, PRIVATE);
}

const TEXT_KEYS = ["text", "thinking"];

function eachText(item, visit) {
  const message = item && typeof item.message === "object" && item.message ? item.message : item;
  if (!message || typeof message !== "object") return;
  if (typeof message.content === "string") {
    message.content = visit(message.content);
  } else if (Array.isArray(message.content)) {
    for (const part of message.content) {
      if (!part || typeof part !== "object") continue;
      for (const key of TEXT_KEYS) {
        if (typeof part[key] === "string") part[key] = visit(part[key]);
      }
    }
  }
}

/** Copies of before_reset's messages with their private spans, and echoes of them, hidden. */
export function hideInMessages(messages) {
  const copies = JSON.parse(JSON.stringify(messages)); // plain data, as extract reads it
  const spans = [];
  for (const item of copies) {
    eachText(item, (text) => {
      const hidden = hidePrivate(text);
      spans.push(...hidden.spans);
      return hidden.text;
    });
  }
  let hide = null;
  try {
    hide = echoHider(spans);
  } catch {
    // never expected (every word is escaped); the spans themselves are hidden already
  }
  if (hide) for (const item of copies) eachText(item, hide);
  return copies;
}

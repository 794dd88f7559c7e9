// <private>...</private>: what the person keeps out of memory (zettelclaw/private.py has the
// rules, docs/private.md). Here: never a recall query (so never in a command line or a log),
// and never in the before_reset messages written for `extract`'s stdin (a file in the log
// directory, if only for a moment). The tags go by any case and spaces inside the brackets, in
// full-width forms too; `<private/>` and a `<private` with no `>` open a span; nested tags are
// counted; a stray closing tag hides what came before it in its message; one left open runs to
// the end of the message and on through the person's next messages up to a closing tag; the
// same words elsewhere in the same messages (an assistant's echo) are hidden too, found in one
// pass (no regular expression is built from them).

export const PRIVATE = "[private]";
const LT = "<\uff1c\ufe64";
const GT = ">\uff1e\ufe65";
const SLASH = "/\uff0f";
const NAME = [..."private"].map((c) => `[${c}${String.fromCharCode(c.charCodeAt(0) + 0xfee0)}]`)
  .join("");
const TAG = new RegExp(`[${LT}]\\s*([${SLASH}])?\\s*${NAME}`
  + `(?:[\\s${SLASH}][^${LT}${GT}]*[${GT}]|[${GT}]|(?![\\p{L}\\p{N}_-]))`, "giu");
const MIN_CHARS = 2;
const MIN_NUMBER = 3;
const EDGE_PUNCT = /^[.,;:!?()[\]{}'"“”‘’]+|[.,;:!?()[\]{}'"“”‘’]+$/g;
const WORD_CHAR = /[\p{L}\p{N}_]/u;
const SPACE = /\s/;

function mightHold(text) {
  const low = text.toLowerCase();
  return [...LT].some((c) => text.includes(c))
    && (low.includes("private") || low.includes("\uff50") || low.includes("\uff52"));
}

/** {text, spans}: `text` with each private span (tags included) replaced by `placeholder`. */
export function hidePrivate(text, placeholder = PRIVATE) {
  const { depth, ...hidden } = hideSpans(text, 0, placeholder); // eslint-disable-line no-unused-vars
  return hidden;
}

/** hidePrivate for a message that may begin inside a span an earlier one left open (`depth`
 * > 0): {text, spans, depth}, the depth it leaves open for the next. */
export function hideSpans(text, depth = 0, placeholder = PRIVATE) {
  if (typeof text !== "string") return { text, spans: [], depth };
  const holds = mightHold(text);
  if (!depth && !holds) return { text, spans: [], depth: 0 };
  let out = "";
  const spans = [];
  let pos = 0;
  for (const tag of holds ? text.matchAll(TAG) : []) {
    const closing = tag[1] !== undefined;
    if (depth === 0) {
      const before = text.slice(pos, tag.index);
      if (closing && before.trim()) { // a stray closing tag: opened in an earlier message
        spans.push(before);
        out += placeholder;
      } else {
        out += before;
      }
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
  return { text: out, spans: spans.filter((s) => s.trim()), depth };
}

/** `text` without its private spans, nothing in their place (the recall query). */
export function stripPrivate(text) {
  return hidePrivate(text, "").text;
}

function isWord(c) {
  return c !== undefined && WORD_CHAR.test(c);
}

function fold(c) {
  const low = c.toLowerCase();
  return low.length === 1 ? low : c;
}

/** The pieces to look for: each span, each line of a longer one, each word with a digit;
 * folded, words joined by one space -> [head, tail] (whole-word edges). */
function piecesOf(spans) {
  const pieces = new Map();
  for (const span of spans) {
    const lines = span.split(/\r\n|\r|\n/).filter((l) => l.trim());
    const numbers = span.split(/\s+/).map((w) => w.replace(EDGE_PUNCT, ""))
      .filter((w) => w.length >= MIN_NUMBER && /\d/.test(w));
    for (const piece of [span, ...(lines.length > 1 ? lines : []), ...numbers]) {
      const words = piece.split(/\s+/).filter(Boolean);
      if (words.join("").length < MIN_CHARS) continue;
      const key = [...words.join(" ")].map(fold).join("");
      if (!pieces.has(key)) pieces.set(key, [isWord(words[0][0]), isWord(words.at(-1).slice(-1))]);
    }
  }
  return pieces;
}

/** Aho-Corasick over the folded characters of the pieces: every piece found in one pass over
 * a text, time linear in both, however many pieces there are. */
function matcherOf(pieces) {
  const next = [new Map()];
  const piece = [null];
  for (const [key, [head, tail]] of pieces) {
    let node = 0;
    for (let i = 0; i < key.length; i += 1) {
      let child = next[node].get(key[i]);
      if (child === undefined) {
        child = next.length;
        next[node].set(key[i], child);
        next.push(new Map());
        piece.push(null);
      }
      node = child;
    }
    piece[node] = [key.length, head, tail];
  }
  const fail = new Array(next.length).fill(0);
  const out = new Array(next.length).fill(0);
  const queue = [...next[0].values()];
  for (let q = 0; q < queue.length; q += 1) {
    const node = queue[q];
    for (const [c, child] of next[node]) {
      queue.push(child);
      let back = fail[node];
      while (back && !next[back].has(c)) back = fail[back];
      const link = next[back].get(c) ?? 0;
      fail[child] = link === child ? 0 : link;
      out[child] = piece[fail[child]] ? fail[child] : out[fail[child]];
    }
  }
  return (text) => {
    const folded = [];
    const where = [];
    let space = false;
    for (let i = 0; i < text.length; i += 1) {
      if (SPACE.test(text[i])) {
        if (!space) { folded.push(" "); where.push(i); }
        space = true;
        continue;
      }
      space = false;
      folded.push(fold(text[i]));
      where.push(i);
    }
    where.push(text.length);
    const n = folded.length;
    const found = [];
    let state = 0;
    for (let j = 0; j < n; j += 1) {
      const c = folded[j];
      while (state && !next[state].has(c)) state = fail[state];
      state = next[state].get(c) ?? 0;
      let node = piece[state] ? state : out[state];
      const tailOk = j + 1 === n || !isWord(folded[j + 1]);
      while (node) { // the longest piece ending here whose edges are whole words
        const [length, head, tail] = piece[node];
        const start = j + 1 - length;
        if ((!head || start === 0 || !isWord(folded[start - 1])) && (!tail || tailOk)) {
          found.push([start, j + 1]);
          break;
        }
        node = out[node];
      }
    }
    if (!found.length) return text;
    found.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    let result = "";
    let pos = 0;
    let [runStart, runEnd] = found[0];
    for (const [start, end] of [...found.slice(1), [n + 1, n + 1]]) {
      if (start <= runEnd) {
        runEnd = Math.max(runEnd, end);
        continue;
      }
      result += text.slice(where[pos], where[runStart]) + PRIVATE;
      pos = runEnd;
      [runStart, runEnd] = [start, end];
    }
    return result + text.slice(where[pos]);
  };
}

/** A function hiding every occurrence of `spans` (and of their lines and numbers), or null. */
export function echoHider(spans) {
  const pieces = piecesOf(spans);
  return pieces.size ? matcherOf(pieces) : null;
}

const TEXT_KEYS = ["text", "thinking"];

function messageOf(item) {
  const message = item && typeof item.message === "object" && item.message ? item.message : item;
  return message && typeof message === "object" ? message : null;
}

function eachText(item, visit) {
  const message = messageOf(item);
  if (!message) return;
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

/** Copies of before_reset's messages with their private spans, and echoes of them, hidden. A
 * span runs on across a message's parts (around an image) and into the same role's next
 * messages until it is closed, as zettelclaw/transcripts/segments.py reads them. */
export function hideInMessages(messages) {
  const copies = JSON.parse(JSON.stringify(messages)); // plain data, as extract reads it
  const spans = [];
  const open = new Map(); // a role's <private> left open by its last message
  for (const item of copies) {
    const role = messageOf(item)?.role;
    let depth = open.get(role) ?? 0;
    eachText(item, (text) => {
      const hidden = hideSpans(text, depth);
      depth = hidden.depth;
      spans.push(...hidden.spans);
      return hidden.text;
    });
    open.set(role, depth);
  }
  const hide = echoHider(spans);
  if (hide) for (const item of copies) eachText(item, hide);
  return copies;
}

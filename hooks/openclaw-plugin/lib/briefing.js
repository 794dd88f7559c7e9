// MEMORY.md's generated briefing block (`zettelclaw brief` writes it between its markers): on
// 2026.2 OpenClaw's own MEMORY.md search still indexes it, and the block only repeats the log,
// whose entries memory_search returns itself. Its hits are left out (zettelclaw's own search
// leaves the block out too: zettelclaw/markers.py, which this follows).

import fs from "node:fs";
import path from "node:path";

const BEGIN = "<!-- BEGIN GENERATED BRIEFING -->";
const END = "<!-- END GENERATED BRIEFING -->";
const MAX_BYTES = 1 << 20;

/** A fenced code block's opening or closing line: [char, run] (CommonMark, ``` or ~~~). */
function fence(line) {
  const match = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line);
  if (!match) return null;
  if (match[1][0] === "`" && match[2].includes("`")) return null;
  return [match[1][0], match[1].length, match[2]];
}

/**
 * The 1-based lines [begin, end] of the generated block, markers included, or null when the
 * markers are missing or not one BEGIN before one END (then nothing tells the block apart).
 * Markers inside fenced code blocks are examples, not markers.
 */
export function generatedLines(text) {
  const begins = [];
  const ends = [];
  let open = null;
  String(text).split(/\r?\n/).forEach((line, i) => {
    const found = fence(line);
    if (open) {
      if (found && found[0] === open[0] && found[1] >= open[1] && !found[2].trim()) open = null;
      return;
    }
    if (found) {
      open = found;
      return;
    }
    if (line.includes(BEGIN)) begins.push(i + 1);
    if (line.includes(END)) ends.push(i + 1);
  });
  if (begins.length !== 1 || ends.length !== 1 || ends[0] < begins[0]) return null;
  return [begins[0], ends[0]];
}

function isMemoryMd(result) {
  return typeof result.path === "string" && result.path.replace(/^\.\//, "").toLowerCase() === "memory.md";
}

/**
 * `results` (OpenClaw's MEMORY.md search hits: {path, startLine, endLine, snippet, ...})
 * without what lies in the workspace's generated block: a hit inside it goes, one that
 * straddles it keeps its lines outside (the snippet's lines are the file's from startLine on).
 */
export function withoutGenerated(results, workspaceDir) {
  if (!workspaceDir || !results.some(isMemoryMd)) return results;
  let block = null;
  const name = results.find(isMemoryMd).path;
  try {
    const fd = fs.openSync(path.join(workspaceDir, name), fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    try {
      const buffer = Buffer.alloc(MAX_BYTES);
      const size = fs.readSync(fd, buffer, 0, MAX_BYTES, 0);
      block = generatedLines(buffer.subarray(0, size).toString("utf8"));
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return results; // no MEMORY.md to read: nothing to tell apart
  }
  if (!block) return results;
  const [begin, end] = block;
  const out = [];
  for (const result of results) {
    const first = result.startLine;
    const last = result.endLine ?? first;
    if (!isMemoryMd(result) || !Number.isInteger(first) || last < begin || first > end) {
      out.push(result);
      continue;
    }
    if (first >= begin && last <= end) continue; // all inside the block
    const lines = String(result.snippet ?? "").split("\n")
      .map((line, i) => [first + i, line]).filter(([at]) => at < begin || at > end);
    if (!lines.length || !lines.some(([, line]) => line.trim())) continue;
    const after = lines[lines.length - 1][0] > end; // the hit goes on past the block
    out.push({
      ...result,
      startLine: lines[0][0],
      endLine: after ? last : begin - 1,
      snippet: lines.map(([, line]) => line).join("\n"),
    });
  }
  return out;
}

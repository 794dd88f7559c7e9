"""MEMORY.md and ``memory/*.md`` cut into chunks of 10-20 lines (not MEMORY.md's generated
briefing block), scored with the log's entries on one scale."""

from __future__ import annotations

from ..errors import RefusedFile
from ..fsutil import read_bytes
from .english import terms

MEMORY_CHUNK_MIN, MEMORY_CHUNK_MAX = 10, 20


class Chunk:
    """A piece of a memory file: 1-based inclusive lines ``start``-``end``."""

    def __init__(self, path: str, start: int, end: int, text: str, tokens: list[str]):
        self.path, self.start, self.end, self.text, self.tokens = path, start, end, text, tokens


def chunk_lines(lines: list[str]) -> list[tuple[int, int]]:
    """(start, end) 1-based inclusive ranges of 10-20 lines, cut at headings or blank lines."""
    ranges = []
    start = 0
    for i, line in enumerate(lines):
        size = i - start
        boundary = not line.strip() or line.lstrip().startswith("#")
        if size >= MEMORY_CHUNK_MAX or (size >= MEMORY_CHUNK_MIN and boundary):
            ranges.append((start + 1, i))
            start = i
    if start < len(lines):
        ranges.append((start + 1, len(lines)))
    return ranges


def memory_chunks() -> list[Chunk]:
    from .. import memoryfiles

    chunks = []
    for name, path in memoryfiles.memory_files():
        try:  # not through a symlink, never waiting on a FIFO
            text = (read_bytes(path) or b"").decode("utf-8", errors="replace")
        except (OSError, RefusedFile):
            continue
        lines = text.splitlines()
        for start, end in _person_lines(name, text, lines):
            for first, last in chunk_lines(lines[start:end]):
                first, last = first + start, last + start
                body = "\n".join(lines[first - 1:last])
                tokens = terms(body)
                if tokens:
                    chunks.append(Chunk(name, first, last, body, tokens))
    return chunks


def _person_lines(name: str, text: str, lines: list[str]) -> list[tuple[int, int]]:
    """The 0-based ``[start, end)`` runs of ``lines`` that search indexes: all of them, but in
    MEMORY.md not the generated briefing block, markers included (it is derived from the log,
    whose entries search finds themselves: indexed twice, they would push real notes down)."""
    if name != "MEMORY.md":
        return [(0, len(lines))]
    from ..markers import generated_lines

    block = generated_lines(text)
    if block is None:  # no markers, or broken ones: nothing tells the block apart
        return [(0, len(lines))]
    return [(0, block[0]), (block[1] + 1, len(lines))]


def snippet(text: str, limit: int = 700) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[:limit].rstrip() + "…"


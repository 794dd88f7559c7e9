"""MEMORY.md: the generated block spliced between the markers, every other byte kept as it was.

The file is read without following a link, keeps its encoding (UTF-8, with or without a byte
order mark, or UTF-16) and its line endings, and is written by compare-and-swap so that a line
a person (or OpenClaw's dreaming) appends meanwhile is not lost.
"""

from __future__ import annotations

import os
import time

from ..errors import ZettelclawError
from ..markers import _BEGIN, _END, BEGIN_MARKER, END_MARKER, MarkerError, _fence, _locate, _scan

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from .options import Options

WRITE_TRIES = 20             # compare-and-swap attempts of one MEMORY.md write
_UTF16_BOMS = ((b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be"))


def _utf8(data: bytes):
    """``data`` as UTF-8 bytes, and the function that turns such bytes back into the file's
    own encoding. A UTF-16 file (with its byte order mark, LE or BE) is read and written as
    UTF-16, every byte outside the markers kept; one that is not valid UTF-16 is refused,
    unless its markers are there in UTF-8 (then its first bytes only look like a byte order
    mark, and it is bytes like any other file). A UTF-8 byte order mark is kept as it is."""
    for bom, codec in _UTF16_BOMS:
        if data.startswith(bom) and _BEGIN not in data and _END not in data:
            try:
                text = data[len(bom):].decode(codec)
            except UnicodeDecodeError:
                raise ZettelclawError(
                    "MEMORY.md starts with a UTF-16 byte order mark but is not valid UTF-16; "
                    "save it as UTF-8 or UTF-16 (nothing written)") from None
            return text.encode("utf-8"), lambda out, b=bom, c=codec: b + out.decode(
                "utf-8").encode(c)
    return data, lambda out: out


def _newline(data: bytes, at: int | None = None) -> bytes:
    """The line ending to write: the one right after ``at`` (a marker) when there is one,
    else the one the file ends with; ``\n`` otherwise."""
    if at is not None:
        if data.startswith(b"\r\n", at):
            return b"\r\n"
        if data.startswith(b"\n", at):
            return b"\n"
    return b"\r\n" if data.endswith(b"\r\n") else b"\n"


def splice(data: bytes, block: str) -> bytes:
    """``data`` (MEMORY.md's bytes) with ``block`` between the markers.

    Everything outside the markers is kept byte for byte. Without markers, they are appended
    (after a blank line) with the block between them. The block's lines get the file's line
    ending. Markers inside a fenced code block are examples, not markers. A UTF-16 file stays
    UTF-16. Raises MarkerError when the markers are broken.
    """
    data, back = _utf8(data)
    where = _locate(data)
    if where is None:
        nl = _newline(data)
        prefix = b"" if not data else (nl if data.endswith(b"\n") else nl + nl)
        closing = _scan(data)[2]
        if closing is not None:  # a code block left open would swallow the markers: close it
            prefix += closing + nl + nl
        body = _block_bytes(block, nl)
        return back(data + prefix + _BEGIN + nl + body + _END + nl)
    start, end = where
    nl = _newline(data, start)
    return back(data[:start] + nl + _block_bytes(block, nl) + data[end:])


def _block_bytes(block: str, nl: bytes) -> bytes:
    """The block's lines; one that would open a fenced code block (and so hide the END marker
    after it) is backslash-escaped: Markdown shows the same text, and it fences nothing."""
    if not block:
        return b""
    return nl.join(_unfenced(line.encode("utf-8")) for line in block.split("\n")) + nl


def _unfenced(line: bytes) -> bytes:
    if _fence(line) is None:
        return line
    indent = len(line) - len(line.lstrip(b" "))
    return line[:indent] + b"\\" + line[indent:]


def markers_state(memory: Path) -> str:
    """``ok`` (one BEGIN before one END), ``missing`` (neither, or no file) or ``broken``."""
    try:
        data = _read_existing(memory)
    except FileNotFoundError:
        return "missing"
    try:
        return "ok" if _locate(_utf8(data)[0]) else "missing"
    except ZettelclawError:
        return "broken"


def markers_problem(memory: Path) -> str | None:
    """Why :func:`add_markers` would refuse ``memory`` (unmatched markers, a file that cannot
    be read or is not UTF-8/UTF-16 text, a workspace that is not a directory), or None."""
    try:
        _markers_to_add(memory)
    except ZettelclawError as exc:
        return str(exc)
    return None


def add_markers(memory: Path) -> None:
    """Append the two markers when absent; every existing byte stays as it is."""
    from ..fsutil import atomic_write

    data = _markers_to_add(memory)
    if data is not None:
        atomic_write(memory, splice(data, ""), mode=None if data else 0o644)


def _markers_to_add(memory: Path) -> bytes | None:
    """MEMORY.md's bytes when the markers are to be added, None when they are there; raises
    when they cannot be added."""
    state = markers_state(memory)
    if state == "ok":
        return None
    if state == "broken":
        raise ZettelclawError(
            f"{memory} has unmatched briefing markers; keep one '{BEGIN_MARKER}' line "
            f"followed by one '{END_MARKER}' line and run `zettelclaw init` again")
    data = _read_memory(memory)
    if not memory.parent.is_dir():
        raise MissingWorkspace(memory.parent)
    return data


def remove_markers(memory: Path) -> None:
    """Remove the markers and the generated block between them; the rest stays byte for byte."""
    from ..fsutil import atomic_write

    if markers_state(memory) != "ok":
        return
    text, back = _utf8(_read_existing(memory))
    start, end = _locate(text)
    start -= len(_BEGIN)
    end += len(_END)
    if text[end:end + 2] == b"\r\n":
        end += 2
    elif text[end:end + 1] == b"\n":
        end += 1
    head = text[:start]
    if not text[end:]:  # the blank line add_markers put before the block
        if head.endswith(b"\r\n\r\n"):
            head = head[:-2]
        elif head.endswith(b"\n\n"):
            head = head[:-1]
    atomic_write(memory, back(head + text[end:]))


def _read_existing(memory: Path) -> bytes:
    """MEMORY.md's bytes; FileNotFoundError when missing. A symlink, FIFO or directory is
    refused (as ``get`` refuses it): the briefing never reads or writes through a link."""
    from ..fsutil import open_read

    with open_read(memory) as fh:
        return fh.read()


def _read_memory(memory: Path) -> bytes:
    try:
        return _read_existing(memory)
    except FileNotFoundError:
        return b""
    except OSError as exc:
        raise ZettelclawError(f"cannot read {memory}: {exc.strerror}") from None


def _memory_path(options: Options | None = None) -> Path:
    """MEMORY.md of the briefed agent's workspace (``--workspace`` / OPENCLAW_WORKSPACE_DIR
    for the default agent, or for any agent briefed alone)."""
    from pathlib import Path

    from .. import paths

    agent = options.agent if options is not None else None
    if agent is None or (options.single and os.environ.get("OPENCLAW_WORKSPACE_DIR")):
        memory = paths.memory_md_path()
    else:
        memory = Path(paths.agent_workspace(agent)) / paths.MEMORY_FILE
    return memory  # a symlink is refused where it is read and written, never followed


class MissingWorkspace(ZettelclawError):
    """MEMORY.md's workspace does not exist: zettelclaw never creates it (it is OpenClaw's,
    made at the agent's first turn); the first brief after that writes MEMORY.md."""

    def __init__(self, workspace):
        super().__init__(f"the workspace {workspace} does not exist yet (OpenClaw creates it "
                         "at the agent's first turn; the next brief writes MEMORY.md there), "
                         "or --workspace does not point at OpenClaw's workspace")


def _marker_error(memory: Path, exc: MarkerError) -> ZettelclawError:
    return MarkerError(f"{memory} has {exc}; keep one '{BEGIN_MARKER}' line followed by one "
                       f"'{END_MARKER}' line, then run `zettelclaw brief` again (nothing written)")


def check_markers(memory: Path, data: bytes) -> None:
    """Raise MarkerError (saying how to mend them) when MEMORY.md's markers are broken."""
    try:
        _locate(_utf8(data)[0])
    except MarkerError as exc:
        raise _marker_error(memory, exc) from None


def swap_in(memory: Path, block: str, before: bytes, after: bytes) -> bool:
    """Put ``block`` between MEMORY.md's markers by compare-and-swap; whether it changed.

    ``after`` is ``before`` (the bytes read when the block was built) with the block spliced in.
    The new file is spliced from a fresh read and renamed over MEMORY.md only if MEMORY.md
    still holds the bytes it was spliced from, checked right before the rename
    (:func:`fsutil.compare_and_swap`); bytes appended after them meanwhile are appended to the
    new file after the rename (they were after the END marker, and stay there). When MEMORY.md
    was changed any other way, the splice is redone from the new content, up to
    ``WRITE_TRIES`` times with a short backoff, then it gives up with one error, having written
    nothing. Raises MarkerError, changing nothing, when the markers were broken meanwhile.
    """
    from ..fsutil import compare_and_swap

    for attempt in range(WRITE_TRIES):
        current = _read_memory(memory)
        try:
            new = splice(current, block) if current != before else after
        except MarkerError as exc:
            raise _marker_error(memory, exc) from None
        if new == current:
            return False
        if not memory.parent.is_dir():  # never create directories for MEMORY.md
            raise MissingWorkspace(memory.parent)
        if compare_and_swap(memory, new, current,
                            mode=None if os.path.lexists(memory) else 0o644):
            return True
        time.sleep(0.002 * (attempt + 1))
    raise ZettelclawError(
        f"{memory} kept changing while the briefing was written ({WRITE_TRIES} tries); "
        "nothing written, run `zettelclaw brief` again")

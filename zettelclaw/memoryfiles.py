"""MEMORY.md and ``memory/*.md`` in the workspace: the only files ``get`` and search may read.

A path is accepted only when it names MEMORY.md or a ``.md`` file under ``memory/`` inside the
workspace, contains no ``..``, and neither it nor any directory on the way is a symlink.
"""

from __future__ import annotations

import os
import stat

from . import paths
from .errors import NotFoundError, UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

# pathlib is imported where a path is resolved: search reads the memory files without it

MEMORY_DIR = "memory"


def resolve(name: str) -> Path:
    """The safe absolute path for ``name`` (``MEMORY.md``, ``memory/x.md`` or absolute)."""
    from pathlib import Path, PurePosixPath

    workspace = paths.workspace_dir()
    raw = name.strip()
    if not raw:
        raise UsageError("empty path")
    candidate = Path(raw)
    if candidate.is_absolute():
        try:
            rel = PurePosixPath(os.path.normpath(raw)).relative_to(
                PurePosixPath(os.path.normpath(str(workspace))))
        except ValueError:
            raise UsageError(f"refused: {name} is outside the workspace {workspace}") from None
        if ".." in PurePosixPath(raw).parts:
            raise UsageError(f"refused: {name} contains '..'")
    else:
        rel = PurePosixPath(raw)
        if ".." in rel.parts:
            raise UsageError(f"refused: {name} contains '..'")
    parts = rel.parts
    allowed = parts == ("MEMORY.md",) or (
        len(parts) >= 2 and parts[0] == MEMORY_DIR and parts[-1].endswith(".md"))
    if not allowed:
        raise UsageError(f"refused: {name} is not MEMORY.md or memory/*.md in the workspace")
    path = workspace
    for part in parts:
        path = path / part
        try:
            mode = os.lstat(path).st_mode
        except FileNotFoundError:
            raise NotFoundError(f"{rel} does not exist in the workspace {workspace}") from None
        if stat.S_ISLNK(mode):
            raise UsageError(f"refused: {rel} is or passes through a symlink")
    if not stat.S_ISREG(os.lstat(path).st_mode):
        raise UsageError(f"refused: {rel} is not a regular file")
    return path


def read(name: str, start: int | None = None, count: int | None = None) -> dict:
    """Lines ``start`` (1-based) .. ``start+count-1`` of a memory file, as text."""
    path = resolve(name)
    if start is not None and start < 1:
        raise UsageError("--from must be 1 or more")
    if count is not None and count < 1:
        raise UsageError("--lines must be 1 or more")
    from .fsutil import read_bytes

    text = (read_bytes(path) or b"").decode("utf-8", errors="replace")
    lines = text.splitlines()
    first = start or 1
    chosen = lines[first - 1:first - 1 + count] if count else lines[first - 1:]
    rel = str(path.relative_to(paths.workspace_dir()))
    return {"path": rel, "from": first, "lines": len(chosen), "totalLines": len(lines),
            "text": "\n".join(chosen)}


def memory_files() -> Iterator[tuple[str, str]]:
    """(relative name, path) of MEMORY.md and memory/**/*.md, skipping symlinks (with
    ``os.path``: search runs this on every ``memory_search``)."""
    workspace = paths._workspace()
    memory = os.path.join(workspace, "MEMORY.md")
    if _is(memory, stat.S_ISREG):
        yield "MEMORY.md", memory
    folder = os.path.join(workspace, MEMORY_DIR)
    if _is(folder, stat.S_ISDIR):
        for root, dirs, files in os.walk(folder, followlinks=False):
            dirs[:] = sorted(d for d in dirs if not os.path.islink(os.path.join(root, d)))
            for name in sorted(files):
                full = os.path.join(root, name)
                if name.endswith(".md") and _is(full, stat.S_ISREG):
                    yield os.path.relpath(full, workspace), full


def _is(path: str, kind) -> bool:
    """Whether ``path`` is, itself (not through a symlink), a file of ``kind``."""
    try:
        return kind(os.lstat(path).st_mode)
    except (OSError, ValueError):
        return False

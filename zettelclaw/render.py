"""Output: data first. JSON Lines when piped or asked for, a rich table for people."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from contextlib import contextmanager


def want_json(as_json: bool | None) -> bool:
    """``--json`` forces JSON; otherwise JSON whenever stdout is not a terminal."""
    if as_json:
        return True
    return not sys.stdout.isatty()


def _dumps(obj) -> str:
    import orjson

    return orjson.dumps(obj).decode()


def emit_json_lines(items: Iterable[dict]) -> int:
    """One compact JSON object per line; bytes written in 64 KB chunks (a line at a time
    through the text layer cost a filtered search on the 1M log a fifth of its time)."""
    import orjson

    out = sys.stdout
    buffer = getattr(out, "buffer", None)
    if buffer is None:  # a text-only stream (a test's StringIO)
        count = 0
        for item in items:
            out.write(_dumps(item) + "\n")
            count += 1
        out.flush()
        return count
    out.flush()  # what was written before stays before
    dumps, newline = orjson.dumps, orjson.OPT_APPEND_NEWLINE
    chunk: list[bytes] = []
    size = count = 0
    for item in items:
        line = dumps(item, option=newline)
        chunk.append(line)
        size += len(line)
        count += 1
        if size >= 1 << 16:
            buffer.write(b"".join(chunk))
            chunk.clear()
            size = 0
    buffer.write(b"".join(chunk))
    buffer.flush()
    return count


def emit_json(obj) -> None:
    sys.stdout.write(_dumps(obj) + "\n")
    sys.stdout.flush()


@contextmanager
def reader_may_leave():
    """Output a reader may stop reading early (``doctor | head -1``): a closed pipe ends it
    quietly, and the command goes on to exit with the status of what it found."""
    try:
        yield
    except BrokenPipeError:
        import os

        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # nothing more reaches the pipe, even at exit


def console(stderr: bool = False):
    from rich.console import Console

    return Console(stderr=stderr, highlight=False, soft_wrap=False)


def cell(value, style: str = ""):
    """A table cell holding ``value`` literally: no Rich markup (``[/bold]``, ``[link=...]``)
    and no terminal control characters (see :mod:`zettelclaw.display`)."""
    from rich.text import Text

    from .display import printable

    return Text(printable(value if value is not None else ""), style=style)


def entries_table(entries: list[dict], *, title: str | None = None, show_score: bool = False):
    from rich.table import Table
    from rich.text import Text

    table = Table(title=title, show_lines=False, expand=False, header_style="bold")
    table.add_column("id", style="dim", no_wrap=True)
    table.add_column("date", no_wrap=True)
    table.add_column("type", no_wrap=True)
    table.add_column("subject", style="cyan", no_wrap=True)
    table.add_column("content", overflow="fold")
    if show_score:
        table.add_column("score", justify="right", no_wrap=True)
    for entry in entries:
        if entry.get("source") == "memory":
            row = [cell(""), cell(""), cell("memory"),
                   cell(f"{entry.get('path', '')}:{entry.get('startLine', '')}"),
                   cell(entry.get("snippet", ""))]
        else:
            kind = str(entry.get("type", ""))
            if entry.get("status"):
                kind += f" ({entry['status']})"
            content = cell(entry.get("content", ""))
            if entry.get("forgotten"):
                content = Text.assemble(cell(entry.get("content", ""), "strike"), " ",
                                        cell(f"(forgotten {str(entry['forgotten'])[:10]})",
                                             "dim"))
            elif entry.get("replacedBy"):
                content = Text.assemble(cell(entry.get("content", ""), "strike"), " ",
                                        cell(f"→ {entry['replacedBy']}", "dim"))
            from .people import mark

            marked = mark(entry)  # another person's, untrusted: said on the row
            if marked:
                content = Text.assemble(content, " ", cell(marked, "yellow"))
            row = [cell(entry.get("id", "")), cell(str(entry.get("timestamp") or "")[:10]),
                   cell(kind), cell(entry.get("subject") or ""), content]
        if show_score:
            row.append(cell(f"{entry.get('score', 0):.2f}"))
        table.add_row(*row)
    return table


def emit_entries(entries: Iterable[dict], as_json: bool | None = None, *,
                 show_score: bool = False, empty_message: str = "No entries.") -> int:
    """Print entries as JSON Lines or a table; returns how many."""
    if want_json(as_json):
        return emit_json_lines(entries)
    rows = list(entries)
    out = console()
    if not rows:  # plain text: a path in it is neither wrapped nor read as markup
        print(empty_message, file=sys.stderr)
        return 0
    out.print(entries_table(rows, show_score=show_score))
    return len(rows)

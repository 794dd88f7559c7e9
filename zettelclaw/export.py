"""Export: the current entries of one agent (or several) as JSON Lines, CSV or Markdown, for
people leaving or backing up.

The entries are read the way ``brief`` reads them: the agent's entries, then
:class:`zettelclaw.resolve.Resolution`'s ``current`` (``--all``: every version, replaced ones
too, in log order), so whatever the resolver hides, export hides.

* **JSON Lines**: the stored objects unchanged, one compact line each, in log order.
* **CSV** (RFC 4180): a header, then one row per entry in log order, the columns
  :data:`CSV_COLUMNS` whatever an entry holds (an empty cell for a missing field, JSON for a
  hand-edited value that is not a string), CRLF line ends, fields quoted when they hold a
  comma, a quote or a line break. Cells are the stored text: a cell starting with ``=`` is not
  defused, so Python's ``csv`` reader gives back exactly what was stored.
* **Markdown**: a title, then one section per subject (its display name from the registry,
  sections in alphabetical order, entries without a subject last), each entry a list item
  with its type, a task's status and the date of its conversation, oldest first. Control
  characters show as escapes (as in MEMORY.md), a line of an entry that Markdown would read
  as structure (a heading, a setext underline, a rule, a fence, a quote, a list item, a link
  reference definition) is backslash-escaped, and so is every ``<`` (no raw HTML).

``--output FILE`` is written atomically (:func:`zettelclaw.fsutil.atomic_write`, mode 0600 for
a new file), never over an existing file without ``force``, never inside the log directory (a
copy there would outlive a ``purge`` and show in a ``grep`` of the directory).
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
from collections.abc import Iterable
from pathlib import Path

from . import paths
from .errors import UsageError

FORMATS = ("jsonl", "csv", "md")
CSV_COLUMNS = ("id", "timestamp", "type", "subject", "status", "content", "detail", "replaces",
               "session", "agent", "person", "origin")
_SUFFIXES = {".jsonl": "jsonl", ".ndjson": "jsonl", ".csv": "csv", ".md": "md",
             ".markdown": "md"}
NO_SUBJECT = "No subject"


def entries(agents: frozenset[str] | None, default_agent: str, *,
            include_replaced: bool = False) -> list[dict]:
    """The entries to export, in log order: the agents' current ones (every version with
    ``include_replaced``), read as ``brief`` reads them."""
    from .log import Log
    from .resolve import Resolution, mark

    # with the records (forgets, their undos, purge tombstones), so what they hide stays hidden
    scoped = (e for e in Log().entries(records=True)
              if agents is None or paths.entry_agent(e, default_agent) in agents)
    resolution = Resolution.build(scoped)
    if not include_replaced:
        return list(resolution.current)
    out = []
    for entry in resolution.entries:  # every version, each hidden one marked as search --all
        by = resolution.replaced_by.get(entry["id"])
        if by is not None:
            entry = dict(entry)
            mark(entry, resolution.records.get(by) or resolution.by_id[by])
        out.append(entry)
    return out


def format_for(fmt: str | None, output: Path | None) -> str:
    """The format asked for, else the one ``output``'s suffix names, else JSON Lines."""
    if fmt is not None:
        fmt = fmt.lower()
        if fmt not in FORMATS:
            raise UsageError(f"unknown format {fmt!r}: jsonl, csv or md")
        return fmt
    if output is not None:
        return _SUFFIXES.get(output.suffix.lower(), "jsonl")
    return "jsonl"


def render(items: list[dict], fmt: str, *, title: str = "", now: str = "") -> bytes:
    if fmt == "jsonl":
        return as_jsonl(items)
    if fmt == "csv":
        return as_csv(items).encode("utf-8")
    return as_markdown(items, title=title, now=now).encode("utf-8")


def as_jsonl(items: Iterable[dict]) -> bytes:
    from .log import dumps

    return b"".join(dumps(entry) + b"\n" for entry in items)


def _cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def as_csv(items: Iterable[dict]) -> str:
    out = io.StringIO(newline="")
    writer = csv.writer(out, lineterminator="\r\n")  # RFC 4180: CRLF, minimal quoting
    writer.writerow(CSV_COLUMNS)
    for entry in items:
        writer.writerow([_cell(entry.get(column)) for column in CSV_COLUMNS])
    return out.getvalue()


# a line Markdown would read as structure: heading, quote, fence, list item, table, a setext
# underline (=== or --- under a line), a rule (***, ___), a link reference definition ([x]: url)
_BLOCK_START = re.compile(r"^(\s*)(#|>|```|~~~|[-+*](?=\s|$)|\d{1,9}[.)](?=\s|$)|\||=+\s*$"
                          r"|-+\s*$|\*(?:[ \t]*\*){2,}\s*$|_(?:[ \t]*_){2,}\s*$|\[)")


def _md_text(text, indent: str) -> str:
    """``text`` as Markdown inside a list item: control characters as escapes, each line
    after the first indented, a line that would open a block backslash-escaped."""
    from .display import printable

    lines = printable(_cell(text)).replace("\r\n", "\n").replace("\r", "\n").split("\n")
    lines = [_BLOCK_START.sub(r"\1\\\2", line.replace("<", "\\<")) for line in lines]  # no HTML
    return f"\n{indent}".join(line.rstrip() for line in lines)


def _md_line(text) -> str:
    """``text`` on one line (a heading, a label): whitespace runs as one space."""
    return _md_text(" ".join(_cell(text).split()), "")


def _subject_names() -> dict[str, str]:
    from .errors import ZettelclawError
    from .subjects import Registry

    try:
        registry = Registry.load()
    except (ZettelclawError, OSError, ValueError):  # a broken registry: slugs are names enough
        return {}
    names = {}
    for slug, record in registry.items():
        display = record.get("display") if isinstance(record, dict) else None
        if isinstance(display, str) and display.strip():
            names[slug] = display
    return names


def as_markdown(items: list[dict], *, title: str = "", now: str = "") -> str:
    from .subjects import display_name

    names = _subject_names()
    groups: dict[str | None, list[dict]] = {}
    for entry in items:
        subject = entry.get("subject")
        groups.setdefault(subject if isinstance(subject, str) and subject else None,
                          []).append(entry)

    def heading(slug: str | None) -> str:
        if slug is None:
            return NO_SUBJECT
        name = names.get(slug) or display_name(slug)
        return f"{name} ({slug})" if name != slug else slug

    count = len(items)
    out = [f"# {_md_line(title or 'zettelclaw memory')}", ""]
    out.append(f"{count} {'entry' if count == 1 else 'entries'}"
               + (f", exported {now}" if now else "") + ".")
    if not items:
        out += ["", "No entries."]
    order = sorted((s for s in groups if s is not None),
                   key=lambda s: (heading(s).casefold(), s))
    if None in groups:
        order.append(None)
    for slug in order:
        out += ["", f"## {_md_line(heading(slug))}", ""]
        dated = sorted(groups[slug], key=lambda e: _cell(e.get("timestamp")))
        for entry in dated:
            out.append(_md_item(entry))
    return "\n".join(out) + "\n"


def _md_item(entry: dict) -> str:
    kind = _md_line(entry.get("type"))
    status = entry.get("status")
    label = f"**{kind}**" + (f" ({_md_line(status)})" if status else "")
    date = _md_line(_cell(entry.get("timestamp"))[:10])
    head = f"- {label} · {date}" if date else f"- {label}"
    from .people import mark

    marked = mark(entry)  # another person's, or untrusted words (docs/people.md)
    if marked:
        head += f" · {_md_line(marked)}"
    item = f"{head} · {_md_text(entry.get('content'), '  ')}"
    if entry.get("detail"):
        item += f"\n  — {_md_text(entry['detail'], '  ')}"
    return item


def check_output(output: Path, *, force: bool) -> Path:
    """Where ``--output`` writes, refused when it exists (without ``force``), is a directory,
    lies in a directory that does not exist, or inside the log directory."""
    target = Path(os.path.abspath(output.expanduser()))
    parent = target.parent
    if not parent.is_dir():
        raise UsageError(f"{parent}: no such directory")
    if paths.inside_log_dir(parent):
        raise UsageError(f"{target} is inside the log directory {paths.log_dir()}: export "
                         "elsewhere (a copy there would outlive a purge)")
    if target.is_dir():
        raise UsageError(f"{target} is a directory")
    if os.path.lexists(target) and not force:
        raise UsageError(f"{target} exists; --force replaces it")
    return target


def write_output(data: bytes, output: Path, *, force: bool) -> Path:
    """``data`` into ``output``, atomically (checked first by :func:`check_output`)."""
    from .fsutil import atomic_write

    target = check_output(output, force=force)
    atomic_write(target, data)
    return target

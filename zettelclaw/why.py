"""``zettelclaw why``: what memory was put before the model, when, and why (the receipts).

For a turn or a session, what was injected and why, in order; for an entry id, every turn it
was put before the model. Each row is one entry of one receipt (:mod:`zettelclaw.receipts`),
a line the plugin wrote for what it reused from its cache (``repeats``) read as the entries of
the turn it repeats, with what the log says of the entry now (its type, subject and content;
``forgotten`` or ``purged`` instead of its text when it is gone).
"""

from __future__ import annotations

from . import receipts as R


def rows(*, entry: str | None = None, turn: str | None = None, session: str | None = None
         ) -> list[dict]:
    """The receipts' rows that answer the question, oldest first; without one, the last
    turn's."""
    R.prune()
    kept = R.read()
    by_turn: dict[str, list[dict]] = {}
    for receipt in kept:
        if receipt.get("by") != "plugin":
            by_turn.setdefault(receipt["turn"], []).append(receipt)
    if entry is None and turn is None and session is None and kept:
        turn = kept[-1]["turn"]
    out: list[dict] = []
    for receipt in kept:
        if turn is not None and receipt["turn"] != turn:
            continue
        if session is not None and not _of_session(receipt, session):
            continue
        for row in _expand(receipt, by_turn):
            if entry is None or row.get("id") == entry:
                out.append(row)
    _describe(out)
    return out


def _of_session(receipt: dict, session: str) -> bool:
    return session in (receipt.get("session"), receipt.get("session_key")) or (
        len(session) >= 4 and str(receipt.get("session") or "").startswith(session))


_HEAD = ("at", "turn", "by", "agent", "session", "session_key", "person", "call")


def _expand(receipt: dict, by_turn: dict[str, list[dict]]) -> list[dict]:
    """One row per entry the receipt put before the model."""
    head = {k: receipt[k] for k in _HEAD if receipt.get(k) is not None}
    if receipt.get("by") != "plugin":
        return [{**head, **item} for item in receipt.get("entries") or ()
                if isinstance(item, dict)]
    # the plugin's cache: the entries of that part as the repeated turn's run put them
    wanted = R.PARTS.get(receipt.get("part"), ())
    head["repeats"] = receipt.get("repeats")
    out = []
    for source in by_turn.get(receipt.get("repeats"), ()):
        head.setdefault("person", source.get("person"))
        out += [{**head, **item} for item in source.get("entries") or ()
                if isinstance(item, dict) and item.get("why") in wanted]
    if not out:  # the receipt it repeats is no longer kept
        out.append({**head, "why": receipt.get("part"), "expired": True})
    return out


def _describe(out: list[dict]) -> None:
    """Each row's entry as the log holds it now: type, subject, content; or gone."""
    ids = {row["id"] for row in out if row.get("id")}
    if not ids:
        return
    from . import paths
    from .log import Log
    from .resolve import Resolution, gone_kind

    resolution = Resolution.build(Log(paths.log_path()).entries(records=True))
    for row in out:
        entry_id = row.get("id")
        if not entry_id:
            continue
        found = resolution.by_id.get(entry_id) or resolution.records.get(entry_id)
        gone = resolution.gone(entry_id)
        kind = gone_kind(found) if found is not None else None
        if kind is None and gone is not None:
            kind = gone_kind(gone)
            found_gone = gone
        else:
            found_gone = found
        if found is None:
            row["missing"] = True
        elif kind == "purged":
            row["type"] = found.get("type")
            row["purged"] = found_gone.get("purged")
        elif kind == "forgotten":
            row["type"] = found.get("type")
            row["forgotten"] = found_gone.get("timestamp")
        else:
            for field in ("type", "subject", "status", "content"):
                if found.get(field) is not None:
                    row[field] = found[field]
            if resolution.is_replaced(entry_id):
                row["replacedBy"] = resolution.replaced_by[entry_id]


def reason(row: dict) -> str:
    """The why of a row, for a table: ``recall: backoff, intervals (3.02)``."""
    why = str(row.get("why") or "")
    if row.get("words"):
        why += ": " + ", ".join(map(str, row["words"]))
    if isinstance(row.get("score"), (int, float)):
        why += f" ({row['score']:.2f})"
    if row.get("repeats"):
        why += f" [as in turn {row['repeats']}]"
    return why


def table(found: list[dict]):
    from rich.table import Table

    from .render import cell

    out = Table(show_lines=False, expand=False, header_style="bold")
    out.add_column("when", no_wrap=True)
    out.add_column("turn", style="dim", overflow="fold")
    out.add_column("session", overflow="fold")
    out.add_column("why", overflow="fold")
    out.add_column("id", style="dim", no_wrap=True)
    out.add_column("entry", overflow="fold")
    for row in found:
        if row.get("forgotten"):
            what = f"({row.get('type')}, forgotten {str(row['forgotten'])[:10]})"
        elif row.get("purged"):
            what = f"({row.get('type')}, purged {str(row['purged'])[:10]})"
        elif row.get("missing"):
            what = "(not in the log)"
        elif row.get("expired"):
            what = "(the receipt it repeats is no longer kept)"
        elif row.get("file"):
            what = f"{row['file']}:{row.get('from', 1)}"
        else:
            what = f"[{row.get('type', '')}] {row.get('content', '')}"
        session = str(row.get("session") or row.get("session_key") or "")
        if row.get("person") not in (None, "owner"):
            session += f" ({row['person']})"
        if row.get("call"):
            session += f" {row.get('by')} {row['call']}"
        out.add_row(cell(str(row.get("at") or "").replace("T", " ").rstrip("Z")),
                    cell(row.get("turn")), cell(session), cell(reason(row)),
                    cell(row.get("id") or ""), cell(what))
    return out

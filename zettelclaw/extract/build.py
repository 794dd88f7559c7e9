"""Turning parsed objects into entries: validated, redacted, at most one handoff; a proposed
``replaces`` follows the correction rules (:mod:`zettelclaw.corrections`)."""

from __future__ import annotations

from ..clock import format_ts, now, parse_ts
from ..counts import count
from ..entries import TYPES, InvalidEntry, make_entry
from ..redact import redact

MAX_FIELD_CHARS = 4000
_DONE_WORDS = frozenset({"done", "completed", "complete", "closed", "finished", "resolved"})


def _text(value) -> str | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        return None
    value = value.strip()
    if len(value) > MAX_FIELD_CHARS:
        value = value[:MAX_FIELD_CHARS].rstrip() + " …"
    return value or None


def build_entries(items: list[dict], session_id: str, *, known_ids: set[str],
                  shown=None, agent: str | None = None,
                  allow_handoff: bool = True, timestamp: str | None = None,
                  resolution=None, person: str | None = None,
                  origins=None, touched=None, pool=None) -> tuple[list[dict], list[str], int]:
    """Validated, redacted entries (model order, at most one handoff, last) + warnings +
    how many objects were dropped.

    With ``shown`` (the ids of the entries the model was shown), a ``replaces`` naming
    another existing entry is not linked: the model cannot know it, it guessed (the entry is
    kept as a new one, a warning says why). A ``replaces`` whose target's type cannot be
    corrected by the entry's type (:func:`zettelclaw.corrections.can_replace`; the target is
    known from ``resolution``) is not linked either, nor one that an entry the model was not
    shown names more closely (:func:`zettelclaw.corrections.look_alike`: a look-alike; the
    entry is kept as a new one, its ``may_replace`` naming both, for review). A
    ``replaces`` naming one of several look-alikes, or an entry of another subject than the
    new one's, is linked only when the evidence picks one
    (:func:`zettelclaw.corrections.judge_link`: the new entry's subject, else the subjects
    the conversation names, ``touched``), perhaps another than the one named (a warning
    says so). The look-alikes: of the entries that could have been shown (``pool``, ids:
    the memory as it stood, whether shown or not; default ``shown``). Else the entry is
    kept as a new one whose ``may_replace`` names what it may close, the likeliest first
    (one id, or a list), for the person to confirm (`zettelclaw review`).

    With ``resolution`` (of the log as it stands) a proposed ``replaces`` follows the rules of
    :mod:`zettelclaw.corrections`: an id already replaced is redirected to its chain's current
    head (a warning says so), the correction inherits that head's subject (and a task's
    status) when it gives none, and a ``replaces`` whose head is dated after this
    conversation (``timestamp``) is dropped, the entry kept as a plain one: an older
    conversation swept late does not overwrite what a newer one established.

    ``person`` and ``origins`` (:class:`zettelclaw.extract.origin.Origins` of the
    conversation) mark whose memory each entry is and where its words came from; an
    ``untrusted`` entry never ``replaces`` one that is not untrusted (a web page or another
    person does not close or correct the owner's memory), nor another person's.
    """
    from ..subjects import is_slug, slugify

    stamp = timestamp or format_ts(now())
    made_here: dict[str, dict] = {}  # replaced id -> the entry of this batch replacing it
    entries: list[dict] = []
    handoffs: list[dict] = []
    warnings: list[str] = []
    dropped = 0
    for item in items:
        kind = item.get("type")
        kind = kind.strip().lower() if isinstance(kind, str) else None
        if kind not in TYPES:
            dropped += 1
            warnings.append(f"dropped an entry of unknown type {str(item.get('type'))[:40]!r}")
            continue
        content = _text(item.get("content"))
        if content is None:
            dropped += 1
            warnings.append(f"dropped a {kind} with no content")
            continue
        fields: dict = {"detail": _text(item.get("detail"))}
        if kind == "task":
            status = item.get("status")
            status = status.strip().lower() if isinstance(status, str) else ""
            fields["status"] = "done" if status in _DONE_WORDS else "open"
        subject = item.get("subject")
        if isinstance(subject, str) and subject.strip():
            slug = slugify(subject)
            # a secret named as the subject is dropped, not lower-cased into a slug
            if is_slug(slug) and redact(slug) == slug and redact(subject) == subject:
                fields["subject"] = slug
        replaces = item.get("replaces")
        if isinstance(replaces, str) and replaces.strip():
            replaces = replaces.strip()
            gone = (_gone(replaces, resolution, made_here)
                    if resolution is not None and replaces in known_ids else None)
            if gone is not None:  # never brought back by a correction, shown or not
                warnings.append(f"dropped replaces={replaces}: that entry was {gone}; kept as "
                                "a new entry")
            else:
                target = _target(replaces, kind, content, known_ids, shown, resolution,
                                 stamp, warnings, fields, pool)
                if target is not None and shown is not None and resolution is not None:
                    target = _judged(target, kind, content, fields,
                                     shown if pool is None else pool, touched, resolution,
                                     warnings)
                if target is not None:
                    fields["replaces"] = target
        origin = origins.of({"type": kind, "content": content, "detail": fields["detail"]}) \
            if origins is not None else None
        if resolution is not None and (fields.get("replaces") or fields.get("may_replace")):
            _keep_apart(fields, person, origin, resolution, warnings)
        if resolution is not None and fields.get("replaces"):
            _correct(fields, kind, item, stamp, resolution, made_here, warnings)
        try:
            entry = make_entry(kind, content, session_id, timestamp=stamp, agent=agent,
                               person=person, origin=origin, **fields)
        except InvalidEntry as exc:
            dropped += 1
            warnings.append(f"dropped a {kind}: {exc}")
            continue
        if entry.get("replaces"):
            made_here[entry["replaces"]] = entry
        (handoffs if kind == "handoff" else entries).append(entry)
    if handoffs and not allow_handoff:
        warnings.append(f"dropped {count(len(handoffs), 'handoff')} from a part before "
                        "the last")
        dropped += len(handoffs)
    elif len(handoffs) > 1:
        warnings.append(f"kept the last of {len(handoffs)} handoffs")
        dropped += len(handoffs) - 1
    if handoffs and allow_handoff:
        entries.append(handoffs[-1])
    return entries, [redact(w) for w in warnings], dropped


def _target(target: str, kind: str, content: str, known_ids: set[str], shown, resolution,
            stamp: str, warnings: list[str], fields: dict, pool=None) -> str | None:
    """``target`` if the model may name it in a ``replaces`` of a ``kind`` entry saying
    ``content``, else None (a warning says why; ``fields["may_replace"]`` set when an entry
    not shown says it more closely: the person is asked about both)."""
    from ..corrections import can_replace, look_alike

    if target not in known_ids:
        warnings.append(f"dropped replaces={target[:40]!r}: no such entry")
        return None
    if shown is not None and target not in shown:
        warnings.append(f"dropped replaces={target}: that entry was not among those shown to "
                        "the model; kept as a new entry")
        return None
    old = resolution.by_id.get(target) if resolution is not None else None
    if old is not None and not can_replace(old.get("type"), kind):
        warnings.append(f"dropped replaces={target}: a {kind} cannot replace a "
                        f"{old.get('type')}; kept as a new entry")
        return None
    if old is not None and shown is not None \
            and (closer := look_alike(old, content, shown, resolution, stamp,
                                      pool)) is not None:
        warnings.append(f"dropped replaces={target}: {closer['id']}, not shown to the model, "
                        "names what it says more closely (the named one is a look-alike); "
                        "kept as a new entry for review (`zettelclaw review`)")
        fields["may_replace"] = [closer["id"], target]
        return None
    return target


def _keep_apart(fields: dict, person: str | None, origin: str | None, resolution,
                warnings: list[str]) -> None:
    """Drop a ``replaces`` that crosses people, or by which untrusted words would close or
    correct an entry that is not untrusted (a warning says why)."""
    from ..people import OWNER, person_of, untrusted

    if fields.get("may_replace"):  # a link kept for review is never one these rules refuse
        from ..corrections import asked_of

        def refused(asked: dict) -> bool:
            return person_of(asked) != (person or OWNER) or (
                origin is not None and untrusted({"origin": origin}) and not untrusted(asked))

        kept = [i for i in asked_of(fields)
                if (asked := resolution.by_id.get(i)) is None or not refused(asked)]
        if kept:  # (one id or a list: the entry's schema stores one alone as a string)
            fields["may_replace"] = kept
        else:
            del fields["may_replace"]
    if not fields.get("replaces"):
        return
    target = resolution.by_id.get(fields["replaces"])
    if target is None:
        return
    if person_of(target) != (person or OWNER):
        warnings.append(f"dropped replaces={target['id']}: that entry is another person's "
                        "memory; kept as a new entry")
        del fields["replaces"]
    elif origin is not None and untrusted({"origin": origin}) and not untrusted(target):
        warnings.append(f"dropped replaces={target['id']}: untrusted words (another person, "
                        "a web page) do not correct or close it; kept as a new entry")
        del fields["replaces"]
def _judged(target: str, kind: str, content: str, fields: dict, pool, touched, resolution,
            warnings: list[str]) -> str | None:
    """The entry a ``replaces`` naming ``target`` links (see :func:`build_entries`): it, a
    look-alike the evidence picks, or None with ``fields["may_replace"]`` set."""
    from ..corrections import judge_link

    old = resolution.by_id.get(target)
    if old is None or resolution.is_replaced(target):
        return target  # (a chain's head is corrected instead: _correct)
    chosen, why, asked = judge_link(old, content, fields.get("subject"), pool, touched,
                                    resolution)
    if chosen is None:
        fields["may_replace"] = [e["id"] for e in asked] or [target]
        warnings.append(f"did not link replaces={target}: {why}; kept as a new {kind} for "
                        "review (`zettelclaw review`)")
        return None
    if chosen["id"] != target:
        warnings.append(f"replaces={target}: {chosen['id']} says it as well and is of "
                        f"{chosen.get('subject')}, as this {kind}; linked that one instead")
    return chosen["id"]


def _correct(fields: dict, kind: str, item: dict, stamp: str, resolution, made_here: dict,
             warnings: list[str]) -> None:
    """Apply the correction rules to ``fields["replaces"]`` (see :func:`build_entries`)."""
    from ..corrections import inherit

    target = fields["replaces"]
    head = _batch_head(target, resolution, made_here)
    if head is None:
        return
    if head["id"] != target:
        warnings.append(f"replaces={target}: already replaced; correcting its current "
                        f"version {head['id']} instead")
        fields["replaces"] = head["id"]
    given = item.get("status") if kind == "task" else None
    subject, status = inherit(head, kind, fields.get("subject"),
                              fields.get("status") if isinstance(given, str) and given.strip()
                              else None)
    fields["subject"] = subject
    if kind == "task" and status is not None:
        fields["status"] = status
    head_time, this_time = parse_ts(head.get("timestamp")), parse_ts(stamp)
    if head_time is not None and head_time > now():  # written while the clock ran ahead
        head_time = parse_ts(_dated(resolution, head["id"]))
    if head_time is not None and this_time is not None and head_time > this_time:
        warnings.append(f"dropped replaces={fields['replaces']}: that entry is dated "
                        f"{head.get('timestamp')}, after this conversation; kept as a new entry")
        del fields["replaces"]


def _dated(resolution, entry_id: str) -> str | None:
    """The time of ``entry_id`` as :class:`~zettelclaw.clock.Dating` has it, reading the log's
    entries in order up to it: for one dated after now, the latest time before it."""
    from ..clock import Dating, sort_key

    dating = Dating()
    for entry in resolution.entries:
        when = dating(sort_key(entry.get("timestamp")) or None)
        if entry["id"] == entry_id:
            return when
    return None


def _gone(target: str, resolution, made_here: dict) -> str | None:
    """``"forgotten"`` or ``"purged"`` when ``target``'s chain ends in a forget or a purge
    tombstone (or ``target`` is one), else None: such an entry is never a ``replaces``
    target, whatever showed it to the model."""
    from ..resolve import gone_kind

    if target in made_here:
        return None
    record = resolution.records.get(target)
    if record is not None:
        return gone_kind(record) or "forgotten"  # (an undo's own id: not an entry either)
    ended = resolution.gone(target)
    return gone_kind(ended) if ended is not None else None


def _batch_head(target: str, resolution, made_here: dict) -> dict | None:
    """The current head of ``target``'s chain, counting this batch's own corrections."""
    entry = resolution.by_id.get(target)
    for _ in range(len(made_here) + len(resolution.by_id) + 1):  # ends any cycle
        if entry is None:
            return None
        if entry["id"] in made_here:
            entry = made_here[entry["id"]]
        elif resolution.is_replaced(entry["id"]):
            entry = resolution.latest(entry["id"])
        else:
            break
    return entry

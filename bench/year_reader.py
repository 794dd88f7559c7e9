"""What a careful reader could settle: for each follow-up of a year (``bench/year_world.py``),
the open statements it could be about, read from its words and its conversation alone.

A reader knows the language and the world (that Postgres is a database, that "the cron job
thing" may be any cron job), not who said what where: a statement said without its subject
may be of any. A follow-up *could be about* an open statement of its target's kind (a task
not yet said done, a question not yet answered, a fact not yet corrected, said before it)
when the statement, followed up the way this one was (the same template, named or not,
paraphrased or not), could have been said in these very words. Then:

* ``unique``: one statement could be meant;
* ``conversation``: several, and of them exactly one is filed under a subject the
  conversation names (in any of its sentences): the target;
* ``misled``: the same, but that one is another than the target (the follow-up was said
  in a conversation about something else that has a look-alike of its own): a reader
  taking the conversation's word is wrong;
* ``ambiguous``: several, and the conversation does not single one out: no reader can
  tell, a memory can only ask.

The benchmark prints the right and wrong closes within each class, so a figure the words
cannot support is not read as a fault of the code (issue 31), nor an ambiguous one as
solved by a lucky tie.
"""

from __future__ import annotations

from functools import lru_cache

from year_world import (
    CHOICES,
    MEASURES,
    PARAPHRASED_ANSWER,
    PARAPHRASED_CORRECTION,
    PARAPHRASED_DONE,
    TASK_VERBS,
    Year,
    subject_of,
)

_UNITS = {thing: unit for thing, unit, _, _ in MEASURES}
_GERUND = dict(TASK_VERBS)


def _parts(key: str) -> tuple[str, str]:
    slug, _, rest = key.partition("|")
    return slug, rest


def _says(statement) -> str | None:
    """The subject a reader sees a statement filed under: the one its words name, else
    None (it may be of any)."""
    return subject_of(statement.text)


def _texts(kind: str, key: str, value: str, display: str | None) -> set[str]:
    """Every way a follow-up of ``kind`` about ``key`` (its value ``value``) may be said,
    the subject named as ``display`` or not at all."""
    _, rest = _parts(key)
    wheres = {""} | ({f" for {display}"} if display else set())
    out: set[str] = set()
    if kind == "done":
        verb = next((v for v, _ in TASK_VERBS if rest.startswith(v + " ")), None)
        if verb is None:
            return out
        thing = rest[len(verb) + 1:]
        tail = " ".join(thing.split()[-2:])
        for where in wheres:
            out.add(f"{_GERUND[verb]} the {thing}{where} is done.")
            out |= {t.format(tail=tail, where=where) for t in PARAPHRASED_DONE}
    elif kind == "answer":
        choice, _, thing = rest.partition(" for the ")
        if value not in CHOICES.get(choice, ()):
            return out  # Postgres is no payment provider
        tail = " ".join(thing.split()[-2:])
        for where in wheres:
            out.add(f"We went with {value} as the {choice} for the {thing}{where}.")
            out |= {t.format(option=value, tail=tail, where=where) for t in PARAPHRASED_ANSWER}
    elif kind == "correction":
        if rest == "VPN port":
            return {f"Actually, the VPN port{where} is {value}." for where in wheres}
        qualifier, _, thing = rest.partition(" ")
        unit = _UNITS.get(thing)
        if unit is None:
            return out
        tail = " ".join(thing.split()[-2:])
        for where in wheres:
            out.add(f"Actually, the {qualifier} {thing}{where} is {value} {unit}.")
            out |= {t.format(tail=tail, value=value, where=where)
                    for t in PARAPHRASED_CORRECTION}
    return out


def settle(year: Year) -> dict[int, str]:
    """Follow-up statement n -> ``unique``, ``conversation``, ``misled`` or ``ambiguous``
    (see above)."""
    by_n = {s.n: s for s in year.statements}
    closed_at: dict[int, int] = {}  # target n -> the n of the first follow-up of it
    for s in year.statements:
        if s.follow_up:
            closed_at.setdefault(s.target, s.n)
    kinds = {"done": "task", "answer": "question", "correction": "fact"}
    sessions: dict[str, set[str]] = {}
    for s in year.statements:
        named = subject_of(s.text)
        if named:
            sessions.setdefault(s.session, set()).add(named)
    out: dict[int, str] = {}
    open_of: dict[str, list] = {}
    for s in year.statements:  # in order said: the open ones of each kind as of each
        if s.kind in kinds.values() and not s.follow_up:
            open_of.setdefault(s.kind, []).append(s)
        if not s.follow_up:
            continue
        target = by_n[s.target]
        could = []
        for other in open_of.get(target.kind, []):
            if other.n >= s.n or closed_at.get(other.n, s.n) < s.n or other.key is None:
                continue
            rest = _parts(other.key)[1]
            if rest.split()[-1] not in s.text:
                continue  # (cheap: every way of saying it names the thing's last word)
            seen = _says(other)
            displays = [year.subjects[seen]] if seen else \
                list(_displays_in(s.text, year)) or [None]
            if any(s.text in _texts(s.kind, other.key, s.value or "", d) for d in displays):
                could.append(other)
        if target not in could:  # (the templates above no longer say what the world says)
            raise AssertionError(f"the reader cannot read {s.text!r} as about {target.text!r}")
        if len(could) == 1:
            out[s.n] = "unique"
            continue
        talked = sessions.get(s.session, set())
        filed = [o for o in could if _says(o) in talked]
        out[s.n] = ("ambiguous" if len(filed) != 1 else
                    "conversation" if filed[0] is target else "misled")
    return out


@lru_cache(maxsize=4096)
def _displays_cached(text: str, names: tuple) -> tuple:
    return tuple(d for d in names if d in text)


def _displays_in(text: str, year: Year) -> tuple:
    return _displays_cached(text, tuple(year.subjects.values()))

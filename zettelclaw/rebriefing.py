"""The briefings a forget or a review close owes (state.json ``rebriefing``).

Either appends lines that change what MEMORY.md's generated block lists (OpenClaw loads it
into every session), then rewrites that block. The debt is recorded under the directory lock,
before the append and in the same hold of it: a run killed between its append and the rewrite
leaves MEMORY.md listing what was forgotten or closed, and this record, which the next forget,
review close or brief settles and ``doctor`` names. A rewrite settles only the debts recorded
before it read the log (their tokens): one recorded meanwhile stays for the next run.
"""

from __future__ import annotations

from . import paths

# state.json: agent -> {"since", "token"}, the briefings a forget or a review close owes
# until MEMORY.md is rewritten (written before its lines are appended, in the same hold of the
# lock: a run killed after its append leaves the debt, which the next run settles)
REBRIEF = "rebriefing"
SETTLE = "zettelclaw brief --no-llm"  # settles it by hand (as does the next forget or review)


def owe(lines: list[dict]) -> None:
    """Record, under the caller's directory lock and before ``lines`` are appended, that the
    briefing of each agent they name must be rewritten: a run killed between its append and
    :func:`zettelclaw.forget.rebrief` leaves MEMORY.md listing what was forgotten or closed,
    and this record."""
    if not lines:
        return
    from .entries import new_id, now_iso
    from .state import State

    default = paths.default_agent()
    state = State.load()
    section = state.section(REBRIEF)
    stamp = now_iso()
    for agent in {paths.entry_agent(line, default) for line in lines}:
        before = section.get(agent)
        since = before.get("since") if isinstance(before, dict) else None
        section[agent] = {"since": since if isinstance(since, str) else stamp,
                          "token": new_id()}
    state.save()


def owed() -> dict[str, dict]:
    """agent -> {"since", "token"} of the briefings still owed ({} when none)."""
    from .state import State

    section = (State.load().__pydantic_extra__ or {}).get(REBRIEF)
    if not isinstance(section, dict):
        return {}
    return {a: r for a, r in section.items() if isinstance(a, str) and isinstance(r, dict)}


def settled(tokens: dict[str, str | None]) -> None:
    """The briefings of these agents were rewritten from a log read after the debts with these
    tokens were recorded: drop those debts (one recorded since, with another token, stays)."""
    gone = {a: t for a, t in tokens.items() if isinstance(t, str)}
    if not gone:
        return
    from .state import transaction

    with transaction() as state:
        section = (state.__pydantic_extra__ or {}).get(REBRIEF)
        if not isinstance(section, dict):
            return
        for agent, token in gone.items():
            record = section.get(agent)
            if isinstance(record, dict) and record.get("token") == token:
                del section[agent]
        if not section:
            del state.__pydantic_extra__[REBRIEF]



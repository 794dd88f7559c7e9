"""What init, ``--undo`` and doctor report: a plan of :class:`Step` (each already done, to
change, or left to the user; applied in order) and doctor's :class:`Check` results."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..errors import ZettelclawError


@dataclass
class Step:
    """One thing init makes true. ``done`` when it already holds; ``manual`` when the user must
    act (printed as a command to run); ``later`` when something else does it in its own time
    (said, nothing to do now); ``problem`` when it cannot be done as things are: init then
    stops before it changes anything."""

    what: str
    done: bool = False
    manual: str | None = None
    apply: Any = None  # callable, run when not done and not a dry run
    later: str | None = None
    problem: str | None = None

    @property
    def status(self) -> str:
        if self.problem:
            return "error"
        if self.done:
            return "ok"
        if self.later:
            return "later"
        return "manual" if self.manual else "change"

    @property
    def changes(self) -> bool:
        """Whether applying the plan runs this step."""
        return self.status == "change"

    def to_dict(self) -> dict:
        out = {"what": self.what, "status": self.status}
        for key in ("manual", "later", "problem"):
            if getattr(self, key):
                out["todo" if key == "manual" else key] = getattr(self, key)
        return out


@dataclass
class Report:
    steps: list[Step] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(self, step: Step) -> Step:
        self.steps.append(step)
        return step

    @property
    def problems(self) -> list[str]:
        """What stops the plan before it changes anything (init checks it all first)."""
        return [step.problem for step in self.steps if step.problem]


def apply(report: Report) -> None:
    if report.problems:  # checked before the first change, never half-way
        raise ZettelclawError(report.problems[0])
    for step in report.steps:
        if step.changes and step.apply is not None:
            step.apply()


def _nothing() -> None:
    pass


@dataclass
class Check:
    name: str
    status: str  # ok | warn | fail
    detail: str
    fix: str | None = None

    def to_dict(self) -> dict:
        out = {"name": self.name, "status": self.status, "detail": self.detail}
        if self.fix:
            out["fix"] = self.fix
        return out

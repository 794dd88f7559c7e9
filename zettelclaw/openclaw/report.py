"""What init, ``--undo`` and doctor report: a plan of :class:`Step` (each already done, to
change, or left to the user; applied in order) and doctor's :class:`Check` results."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Step:
    """One thing init makes true. ``done`` when it already holds; ``manual`` when the user must
    act (printed as a command to run)."""

    what: str
    done: bool = False
    manual: str | None = None
    apply: Any = None  # callable, run when not done and not a dry run

    def to_dict(self) -> dict:
        status = "ok" if self.done else ("manual" if self.manual else "change")
        out = {"what": self.what, "status": status}
        if self.manual:
            out["todo"] = self.manual
        return out


@dataclass
class Report:
    steps: list[Step] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(self, step: Step) -> Step:
        self.steps.append(step)
        return step


def apply(report: Report) -> None:
    for step in report.steps:
        if not step.done and not step.manual and step.apply is not None:
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

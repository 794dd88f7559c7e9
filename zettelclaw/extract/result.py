"""What one ``extract`` did for one session: :class:`Result`."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..model import Usage


@dataclass
class Result:
    """What one ``extract`` did for one session."""

    session_id: str
    status: str  # extracted | up-to-date | skipped | busy | failed | dry-run
    message: str
    entries: list[dict] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    segments: int = 0
    warnings: list[str] = field(default_factory=list)
    skipped_lines: int = 0
    duplicates: int = 0  # entries not appended: they restated a current one
    history: int = 0  # conversations from before the install left for `zettelclaw import`
    held: list[str] = field(default_factory=list)  # why each open conversation was left

    @property
    def ok(self) -> bool:
        return self.status != "failed"

    def as_dict(self) -> dict:
        return {"session": self.session_id, "status": self.status, "message": self.message,
                "entries": len(self.entries), "segments": self.segments,
                "tokens": self.usage.as_dict(), "warnings": self.warnings,
                "skippedLines": self.skipped_lines, "duplicates": self.duplicates}

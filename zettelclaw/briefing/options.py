"""The briefing's options: the plugin config's ``briefing`` section with the command's flags on
top."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from ..errors import UsageError, ZettelclawError

DEFAULTS = {"activeWindow": 14, "decisionWindow": 7, "staleThreshold": 30, "quietAfter": 30,
            "maxLines": 80, "foldAsksAfter": 14}
MAX_DAYS = 36500  # a window (or a line count) beyond a century is a typo, and overflows dates


@dataclass
class Options:
    active_window: int = DEFAULTS["activeWindow"]
    decision_window: int = DEFAULTS["decisionWindow"]
    stale_threshold: int = DEFAULTS["staleThreshold"]
    quiet_after: int = DEFAULTS["quietAfter"]
    max_lines: int = DEFAULTS["maxLines"]
    # a link to confirm older than this many days is folded into one counted line
    fold_asks_after: int = DEFAULTS["foldAsksAfter"]
    model: str | None = None
    use_model: bool = True
    now: datetime | None = None  # None: the real time; given: replay, later entries ignored
    # whose briefing: that agent's entries into that agent's MEMORY.md (None: the whole log
    # into the configured workspace's); entries without ``agent`` are ``default_agent``'s
    agent: str | None = None
    default_agent: str = "main"
    single: bool = True  # the only briefing of this run: --workspace applies to any agent
    keep_rows: bool = True  # keep the log's rows for the next brief (.rows; not after purge)

    @classmethod
    def resolve(cls, **flags) -> Options:
        """``plugins.entries.zettelclaw.config.briefing`` with ``flags`` (not None) on top."""
        from .. import paths

        config = paths.plugin_config().get("briefing")
        config = config if isinstance(config, dict) else {}
        values = {}
        for key, attr in (("activeWindow", "active_window"), ("decisionWindow", "decision_window"),
                          ("staleThreshold", "stale_threshold"), ("quietAfter", "quiet_after"),
                          ("maxLines", "max_lines"), ("foldAsksAfter", "fold_asks_after")):
            flag = flags.pop(attr, None)
            if flag is not None:
                if not 1 <= flag <= MAX_DAYS:
                    raise UsageError(f"--{_dashed(key)} must be between 1 and {MAX_DAYS}")
                values[attr] = flag
                continue
            value = config.get(key, DEFAULTS[key])
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_DAYS:
                raise ZettelclawError(
                    f"briefing.{key}={value!r} in the plugin config must be a whole number of "
                    f"{'lines' if key == 'maxLines' else 'days'}, 1 to {MAX_DAYS}")
            values[attr] = value
        model = flags.pop("model", None) or config.get("model")
        if model is not None and not isinstance(model, str):
            raise ZettelclawError(f"briefing.model={model!r} in the plugin config is not a name")
        return cls(**values, model=model, **{k: v for k, v in flags.items() if v is not None})


def _dashed(key: str) -> str:
    return re.sub(r"[A-Z]", lambda m: "-" + m.group(0).lower(), key)

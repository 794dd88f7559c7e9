"""The Obsidian view of the log (design §7): an optional read transformation.

``zettelclaw vault build`` renders each agent's current entries into its own vault
(``<vault.path>/<agent>/``): daily journals in ``03 Journal/`` and a topic page per subject in
``01 Notes/``, with frontmatter and ``[[wikilinks]]``. Append-only: a run adds lines for new
entries at the end of their sections and never rewrites a line that is there, so a person's
edits stay.

The package: :mod:`.build` (one pass over the log, the plan, the writes, state.json),
:mod:`.journal` and :mod:`.topics` (the lines of each kind of page), :mod:`.markdown` (a file's
sections and where new lines go), :mod:`.names` (safe file names, links, inert text),
:mod:`.layout` (where each agent's vault is, its §7.4 folders, the journals' time zone).
"""

from __future__ import annotations

from .build import STATE_SECTION, Outcome, build
from .layout import FOLDERS, agent_vault, configured_root, ensure_folders, root

__all__ = ["FOLDERS", "STATE_SECTION", "Outcome", "agent_vault", "build", "configured_root",
           "ensure_folders", "root"]

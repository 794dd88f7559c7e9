"""The nightly briefing (design §5): the generated half of MEMORY.md.

``zettelclaw brief`` rewrites what lies between ``<!-- BEGIN GENERATED BRIEFING -->`` and
``<!-- END GENERATED BRIEFING -->`` from the resolved log; every byte outside the markers stays
as it was. Sections, in the order of the design's example (Standing added after Open Questions):

* **Active**: subjects with entries in the last ``activeWindow`` days (14), busiest first, then
  most recent; each with its latest current entry as a one-line state.
* **Recent Decisions**: current decisions of the last ``decisionWindow`` days (7), newest first.
* **Pending**: open tasks, with their subject, what matters today first: a subject of a
  handoff of the last 7 days, then the busiest subjects of the active window, then the most
  recently touched (the loop's latest version, or any entry about its subject), then the newest;
  then spread over their subjects (each subject's first loop, then each one's second ...), so
  no subject takes every line while others have open loops.
* **Open Questions**: questions nobody replaced (by a decision, a fact or a newer question),
  ranked the same way. A loop untouched for more than ``quietAfter`` days (30) leaves both lists
  for one counted line that names ``zettelclaw review`` (decay by reading, §3.6).
* **Standing**: at most 10 current facts and decisions written before the decision window
  that are without a subject (the person's preferences and habits) or said again (they
  replace an earlier fact or decision: restated in more words, or a new value of one thing),
  the subjectless first, then those said again, then the oldest: what holds after a busy
  month, which no other section shows.
* **Stale**: subjects that came back in the last 7 days after a silence longer than
  ``staleThreshold`` days (30): the subject's first entry of those 7 days follows its previous
  entry by more than the threshold. This is the one reading of the design's rule ("most recent
  entry older than 30 days but appearing in entries of the last 7 days") that can be true: its
  most recent entry *before this week* is old. The entry that ended the silence is listed under
  Stale only, not again under Active, as in the design's example.
* **Contradictions**: at most 3 a night. Candidates are found in code: the same subject, an older
  current fact or decision from another conversation against a current fact or decision of the
  active window, about the same thing: the words both say, each weighed by how rare it is among
  the current facts and decisions (so "VPN port" counts, a template's "build timeout ...
  minutes" hardly), over the words either says; numbers and the subject's own name left out.
  Only the dozen best a night go to the model (``prompts/contradiction.md``); every pair it
  judges is remembered in state.json (``contradictions``) and never asked again. A flag
  stays in the briefing for 24 hours, so a second run the same night shows it again.

Activity (how busy a subject is, when it was last seen, its silences) counts every line of the
log, replaced ones included: a correction is activity. What is *shown* comes only from current
entries. A replacement without a ``subject`` inherits the subject of the entry it replaces.

At most ``maxLines`` (80) lines go between the markers. When there is more, sections give up
items from their tails (the least busy, the oldest), the longest section first, so every section
keeps a fair share; a last line says how many items of which kind were left out, in which
subjects ("+11 more in shop-relaunch") and which ``zettelclaw search`` lists them.

Without a model (``--no-llm``, or no key: see ``credentials.py``) everything but new
contradiction flags is the same: the sections never depend on the model.

The package: :mod:`.options` (the config and flags), :mod:`.sections` (one pass over the log),
:mod:`.rows` (the log's lines as the briefing reads them, kept between nights without text),
:mod:`.contradictions` (candidates, the model's verdicts, what state.json remembers),
:mod:`.layout` (the block fitted into ``maxLines``), :mod:`.memory_md` (MEMORY.md read and
written around the markers) and :mod:`.nightly` (``build`` then ``write``).
"""

from __future__ import annotations

from ..markers import (  # noqa: F401  (MEMORY.md's markers, here under their old names)
    _BEGIN,
    _END,
    BEGIN_MARKER,
    END_MARKER,
    MarkerError,
    _fence,
    _find_all,
    _locate,
    _scan,
    generated_block,
)
from .contradictions import (
    FLAG_SHOWN_FOR,
    MAX_CONTRADICTIONS,
    MAX_JUDGED,
    STATE_SECTION,
    Judgement,
    Pair,
    candidates,
    contradiction_request,
    judge,
    judge_new,
    parse_verdicts,
)
from .digest import read
from .layout import EMPTY, SECTIONS, Rendered, fit, render, search_hints
from .memory_md import (
    WRITE_TRIES,
    MissingWorkspace,
    add_markers,
    check_markers,
    markers_problem,
    markers_state,
    remove_markers,
    splice,
    swap_in,
)
from .nightly import Result, agents_with_entries, build, write
from .options import DEFAULTS, MAX_DAYS, Options
from .sections import RECENT_DAYS, Snapshot, name, one_line

__all__ = [
    "BEGIN_MARKER", "DEFAULTS", "EMPTY", "END_MARKER", "FLAG_SHOWN_FOR", "MAX_CONTRADICTIONS",
    "MAX_DAYS", "MAX_JUDGED", "RECENT_DAYS", "SECTIONS", "STATE_SECTION", "WRITE_TRIES",
    "Judgement", "MarkerError", "MissingWorkspace", "Options", "Pair", "Rendered", "Result",
    "Snapshot", "add_markers", "agents_with_entries", "build", "candidates", "check_markers",
    "contradiction_request", "fit", "generated_block", "judge", "judge_new", "markers_problem",
    "markers_state", "name", "one_line", "parse_verdicts", "read", "remove_markers", "render",
    "search_hints", "splice", "swap_in", "write",
]

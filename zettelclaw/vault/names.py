"""Safe file names and wikilinks for the vault (design §7.2).

A subject's display name is free text (``subjects add --display``, a hand-edited
subjects.json): it may hold ``/``, ``:``, ``#``, ``|``, ``[``, ``]``, ``^``, a leading dot, a
Windows device name or ``../``. :func:`file_stem` turns it into a name that is a valid file name
on Linux, macOS and Windows and a valid Obsidian link target; :func:`wikilink` writes the link
with the path from the vault's root, so it resolves to that very file and never to a person's
note of the same name elsewhere in the vault; :func:`text` makes an entry's words inert in
Markdown (no link, fence or comment can start inside them).
"""

from __future__ import annotations

import re
import unicodedata

# forbidden in a file name on some system (Windows: \ / : * ? " < > |) or in an Obsidian link
# target (# ^ [ ] |), and every control character
_FORBIDDEN = re.compile(r'[\\/:*?"<>|#^\[\]\x00-\x1f\x7f]')
_RUNS = re.compile(r"[\s-]*-[\s-]*")  # "a - / - b" -> "a-b"
_SPACES = re.compile(r"\s+")
_WINDOWS_DEVICES = {"CON", "PRN", "AUX", "NUL", *(f"COM{i}" for i in range(10)),
                    *(f"LPT{i}" for i in range(10))}
MAX_STEM_BYTES = 160  # room left for " Project", " (2)" and ".md" under 255 bytes
UNTITLED = "Untitled"


def file_stem(display: str, suffix: str = "") -> str:
    """``display`` (plus ``suffix``, e.g. " Project") as a file name without ``.md``."""
    text = unicodedata.normalize("NFC", str(display or ""))
    text = _FORBIDDEN.sub("-", text)
    text = re.sub(r"%{2,}", "%", text)  # "%%" opens an Obsidian comment, in a link target too
    text = _SPACES.sub(" ", text)
    text = _RUNS.sub("-", text)
    # no hidden file (leading dot), no "..", and Windows drops trailing dots and spaces
    text = text.strip(" .-")
    text = _cut(text, MAX_STEM_BYTES - len(suffix.encode("utf-8"))).rstrip(" .-") or UNTITLED
    if suffix and not text.casefold().endswith(suffix.casefold()):
        text += suffix
    if text.split(".")[0].upper() in _WINDOWS_DEVICES:
        text = f"{text}_"  # CON.md, nul.md, COM1.md are devices on Windows
    return text


def _cut(text: str, limit: int) -> str:
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    return data[:limit].decode("utf-8", "ignore")


def distinct(stem: str, taken: set[str]) -> str:
    """``stem``, or ``stem (2)``, ``stem (3)``... whichever no other page holds. Compared
    case-insensitively: macOS and Windows file systems are."""
    if stem.casefold() not in taken:
        return stem
    n = 2
    while f"{stem} ({n})".casefold() in taken:
        n += 1
    return f"{stem} ({n})"


def alias(display: str) -> str:
    """A display name as a link's shown text (no ``|``, ``[``, ``]`` or line break), inert:
    no ``%%`` comment or ``<!--`` can start in it and hide the rest of the page."""
    shown = _SPACES.sub(" ", re.sub(r"[\[\]|\x00-\x1f\x7f]", " ", str(display or ""))).strip()
    shown = re.sub(r"%(?=%)", "% ", shown).replace("<!--", "<! --")
    return shown or UNTITLED


def wikilink(folder: str, stem: str, shown: str | None = None) -> str:
    """``[[folder/stem|shown]]``: the path from the vault's root, so exactly that file."""
    return f"[[{folder}/{stem}|{alias(shown if shown is not None else stem)}]]"


_INERT = str.maketrans({"[": "\\[", "]": "\\]", "`": "\\`"})


def marked(entry: dict) -> str:
    """`` [untrusted, from session S]`` / `` [person: P]`` after an entry's words when it is
    not plainly the owner's (docs/people.md), else ""."""
    from ..people import mark

    said = mark(entry)
    return f" {text(said, 200)}" if said else ""


def text(value, limit: int = 1000) -> str:
    """An entry's words on one line, inert in Markdown: no ``[[link]]``, code fence, ``%%``
    comment or ``<!--`` can start inside them."""
    from ..display import printable

    one = printable(" ".join(str(value or "").split()))
    if len(one) > limit:
        one = one[:limit - 1].rstrip() + "…"
    one = one.translate(_INERT).replace("%%", "\\%\\%").replace("<!--", "&lt;!--")
    # a list item "- ---" would be a horizontal rule, "- # x" a heading
    return "\\" + one if one[:1] in ("-", "*", "_", "+", ">", "#", "=") else one

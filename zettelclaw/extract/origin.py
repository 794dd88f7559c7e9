"""Where an extracted entry's words came from, found by code from the conversation's messages,
never taken from the model (:mod:`zettelclaw.people` names the classes).

Each message of the conversation has an origin (:func:`settle`: from the transcript's own marks,
else from the session's person). An entry is matched against them by its terms (the ranker's
stems, stop words left out):

- a term the entry shares only with untrusted messages (another person's words, the assistant's
  words after a web page in that turn) makes it ``untrusted``: a claim of a web page restated
  by the model stays the web page's, whatever else it says;
- so does an entry that shares no term with any trusted message of a conversation holding
  untrusted ones (its origin cannot be established, and it is never ``owner``);
- otherwise ``owner`` when the owner's own messages hold at least half its terms and as many
  as the assistant's do, else ``agent`` (the assistant's words, or the model's summary: a
  handoff is always ``agent``).
"""

from __future__ import annotations

from collections.abc import Iterable

from ..people import AGENT, OWNER, SYSTEM, UNTRUSTED
from ..transcripts import USER, Message


def settle(messages: Iterable[Message], person: str) -> list[Message]:
    """The messages with every origin known, relative to ``person``, whose memory the
    conversation makes (docs/people.md: ``owner`` is the words of the person whose memory it
    is, ``agent`` the assistant's in that person's turns, ``untrusted`` words from the network
    or another person).

    In the owner's session, what the transcript does not say (2026.2 has no
    ``senderIsOwner``) follows the session: the user is the owner and the assistant's words are
    ``agent``. In another person's direct session, the user is that person (OpenClaw says she
    is not the owner, which is why the session is hers): her words are ``owner`` of her memory,
    the assistant's ``agent``, except after words from the network in the turn."""
    from dataclasses import replace

    out = []
    for message in messages:
        if person != OWNER:
            message = replace(message, origin=_theirs(message))
        elif message.origin is None:
            origin = OWNER if message.role == USER else AGENT
            message = replace(message, origin=origin)
        out.append(message)
    return out


def _theirs(message: Message) -> str:
    """A message's origin in another person's own session (see :func:`settle`)."""
    if message.origin == SYSTEM:
        return SYSTEM
    if message.role == USER:
        return OWNER
    return UNTRUSTED if message.tainted else AGENT


class Origins:
    """The terms of one conversation's messages, by origin; :meth:`of` classifies an entry."""

    def __init__(self, messages: Iterable[Message]):
        from ..rank.english import terms

        self.terms: dict[str, set[str]] = {OWNER: set(), AGENT: set(), UNTRUSTED: set()}
        for message in messages:
            origin = UNTRUSTED if message.origin in (UNTRUSTED, SYSTEM, None) \
                else message.origin
            self.terms[origin].update(terms(message.text))
        self._terms = terms

    def of(self, entry: dict) -> str:
        """The origin class of an entry made from this conversation."""
        words = set(self._terms(" ".join(str(entry.get(k) or "")
                                         for k in ("content", "detail"))))
        owner, agent, untrusted = (self.terms[OWNER], self.terms[AGENT],
                                   self.terms[UNTRUSTED])
        trusted = owner | agent
        if untrusted and (words & untrusted - trusted or not words & trusted):
            return UNTRUSTED
        if entry.get("type") == "handoff" or not words:
            return AGENT
        said = len(words & owner)
        if said * 2 >= len(words) and said >= len(words & agent):
            return OWNER
        return AGENT

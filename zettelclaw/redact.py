"""Secrets out: every string zettelclaw stores passes through :func:`redact` first.

API keys (Anthropic ``sk-ant-``, OpenAI-style ``sk-``), AWS access key ids and secret keys,
GitHub tokens, Slack tokens, Google API keys, Stripe keys, JWTs, ``Bearer``/``Basic``
credentials, ``-----BEGIN ... PRIVATE KEY-----`` blocks, passwords in URLs and
``password=`` / ``api_key: ...`` style assignments become ``[redacted]``.
"""

from __future__ import annotations

import re

REDACTED = "[redacted]"

# (pattern, replacement) in order: blocks first, then the most specific token shapes
_PATTERNS: list[tuple[re.Pattern, str]] = [
    # PEM private keys; an unterminated block is redacted to the end of the text
    (re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----.*?"
                r"(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\Z)", re.DOTALL),
     REDACTED),
    (re.compile(r"\bsk-ant-[A-Za-z0-9_\-]{8,}"), REDACTED),
    (re.compile(r"\bsk-(?:proj-|live-|test-)?[A-Za-z0-9_\-]{16,}"), REDACTED),
    (re.compile(r"\b(?:rk|pk|sk)_(?:live|test)_[A-Za-z0-9]{10,}"), REDACTED),  # Stripe
    (re.compile(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|AIPA)[A-Z0-9]{16}\b"), REDACTED),
    (re.compile(r"\bgh[pousr]_[A-Za-z0-9]{20,}"), REDACTED),
    (re.compile(r"\bgithub_pat_[A-Za-z0-9_]{20,}"), REDACTED),
    (re.compile(r"\bglpat-[A-Za-z0-9_\-]{20,}"), REDACTED),  # GitLab
    (re.compile(r"\bxox[abposr]-[A-Za-z0-9\-]{10,}"), REDACTED),
    (re.compile(r"\bxapp-[0-9]-[A-Za-z0-9\-]{10,}"), REDACTED),
    (re.compile(r"\bAIza[0-9A-Za-z_\-]{35}"), REDACTED),
    (re.compile(r"\bya29\.[0-9A-Za-z_\-]{20,}"), REDACTED),  # Google OAuth access token
    (re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),
     REDACTED),  # JWT
    (re.compile(r"\bhf_[A-Za-z0-9]{30,}"), REDACTED),  # Hugging Face
    (re.compile(r"\bnpm_[A-Za-z0-9]{36}\b"), REDACTED),
    # Authorization: Bearer <token> / Basic <b64>
    (re.compile(r"(?i)\b(Bearer|Basic|Token)(\s+)[A-Za-z0-9\-._~+/]{12,}=*"),
     r"\1\2" + REDACTED),
    # scheme://user:password@host
    (re.compile(r"(?i)\b([a-z][a-z0-9+.\-]*://[^\s:/@]+:)[^\s@/]+(@)"), r"\1" + REDACTED + r"\2"),
    # AWS secret access key assignments (40 chars of base64), password=..., api_key: ...
    (re.compile(r"(?i)\b(aws_secret_access_key|aws_session_token)(\s*[=:]\s*[\"']?)"
                r"[A-Za-z0-9/+=]{20,}"), r"\1\2" + REDACTED),
    (re.compile(r"(?i)([?&;]|\b)(password|passwd|pwd|secret|api[_-]?key|access[_-]?token|"
                r"auth[_-]?token|client[_-]?secret|private[_-]?key)(\s*[=:]\s*[\"']?)"
                r"(?!\[redacted\])[^\s\"'&;,]{6,}"), r"\1\2\3" + REDACTED),
]

# a 40-character base64 run next to the word "secret" or an AWS key id
_AWS_SECRET_NEAR = re.compile(
    r"(?i)(secret[^\n]{0,40}?|\[redacted\][^\n]{0,40}?)(?<![A-Za-z0-9/+=])"
    r"[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])")


def redact(text: str) -> str:
    """``text`` with every secret-shaped run replaced by ``[redacted]``."""
    if not text or not isinstance(text, str):
        return text
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return _AWS_SECRET_NEAR.sub(lambda m: m.group(1) + REDACTED, text)


def redact_entry(entry: dict) -> dict:
    """Every string field of an entry redacted (ids and slugs are never secret-shaped)."""
    return {k: redact(v) if isinstance(v, str) else v for k, v in entry.items()}


def contains_secret(text: str) -> bool:
    return redact(text) != text

"""Secrets out: every string zettelclaw stores passes through :func:`redact` first.

Three kinds of rules, each replacing only the secret (never the name before it) with
``[redacted]``, so "DB_PASSWORD=hunter2..." is stored as "DB_PASSWORD=[redacted]":

* token shapes that announce themselves: provider prefixes (Anthropic, OpenAI, AWS, GitHub,
  GitLab, Slack, Stripe, Google, Twilio, SendGrid, Azure, Telegram, Discord, npm, PyPI, ...),
  JWTs, PEM private key blocks, Slack and Discord webhook URLs. The provider shapes are
  modelled on gitleaks' rules (github.com/gitleaks/gitleaks, MIT), written for Python ``re``.
* a value after a name that says it is secret: ``*_PASSWORD=``, ``SECRET_KEY=``, ``TOKEN=``,
  ``"password": "..."``, ``api_key: ...``, ``AccountKey=`` and ``--password``/``--token``
  flags. Placeholders (``<your-api-key>``, ``${TOKEN}``, ``********``, ``changeme``) stay.
* credentials in commands and URLs: ``scheme://user:password@host``, ``curl -u user:pw``,
  ``mysql -pSECRET``, ``sshpass -p``, ``Authorization: Bearer/Basic``, netrc lines.
* payment card numbers: 13 to 19 digits, whole or in groups split by single spaces or dashes
  (``4111 1111 1111 1111``, ``4111-1111-1111-1111``, ``4111111111111111``), starting with 2-6
  (every card network's range) and passing the Luhn check every card number passes (which
  nine in ten other long numbers, an order or a phone number, do not).

Plain ``re`` only, compiled at first use: the per-turn commands (``handoff``, ``search``)
never redact and never import this module. tests/data/secrets/corpus.py measures the rules
(detect-secrets was measured on it too: with its default filters it missed half the shapes).
"""

from __future__ import annotations

import re

REDACTED = "[redacted]"

# names whose value is a secret: the name ends with one of these words
_SECRET_NAME = (r"(?:[A-Za-z0-9]+[_.-])*(?:[A-Za-z0-9]*(?:password|passwd|passphrase|pwd|secret|"
                r"token|api[_-]?key|apikey|access[_-]?key|secret[_-]?key|private[_-]?key|"
                r"auth[_-]?key|account[_-]?key|shared[_-]?access[_-]?key|credentials?|"
                r"client[_-]?secret|signing[_-]?key|encryption[_-]?key))")

# whole-match token shapes
_TOKENS = [
    r"\bsk-ant-[A-Za-z0-9_\-]{8,}",
    r"\bsk-(?:proj-|svcacct-|admin-|live-|test-)?[A-Za-z0-9_\-]{16,}",
    r"\b(?:rk|pk|sk)_(?:live|test)_[A-Za-z0-9]{10,}",  # Stripe
    r"\bwhsec_[A-Za-z0-9]{24,}",  # Stripe webhook secret
    r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|AIPA|ABIA|ACCA)[A-Z2-7]{16}\b",
    r"\bgh[pousr]_[A-Za-z0-9]{20,}",
    r"\bgithub_pat_[A-Za-z0-9_]{20,}",
    r"\bgl(?:pat|dt|ptt|rt|cbt|imt|agent|oas)-[A-Za-z0-9_\-]{20,}",  # GitLab
    r"\bxox[abposre]-[A-Za-z0-9\-]{10,}",
    r"\bxapp-[0-9]-[A-Za-z0-9\-]{10,}",
    r"\bAIza[0-9A-Za-z_\-]{35}",
    r"\bya29\.[0-9A-Za-z_\-]{20,}",  # Google OAuth access token
    r"\bGOCSPX-[A-Za-z0-9_\-]{20,}",  # Google OAuth client secret
    r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}",  # JWT
    r"\bhf_[A-Za-z0-9]{30,}",  # Hugging Face
    r"\bnpm_[A-Za-z0-9]{36}\b",
    r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{50,}",
    r"\bSK[0-9a-fA-F]{32}\b",  # Twilio API key
    r"\bSG\.[A-Za-z0-9_\-]{20,24}\.[A-Za-z0-9_\-]{40,50}\b",  # SendGrid
    # Azure AD client secret
    r"(?<![A-Za-z0-9_~.])[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.\-]{31,34}(?![A-Za-z0-9_~.\-])",
    r"\b\d{8,10}:AA[A-Za-z0-9_\-]{33}\b",  # Telegram bot
    r"\b[MNO][A-Za-z0-9_\-]{23,25}\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,38}\b",  # Discord bot
    r"\b[0-9a-f]{32}-us\d{1,2}\b",  # Mailchimp
    r"\bkey-[0-9a-f]{32}\b",  # Mailgun
    r"\bshp(?:at|ca|pa|ss)_[0-9a-fA-F]{32}\b",  # Shopify
    r"\bdo[opr]_v1_[0-9a-f]{64}\b",  # DigitalOcean
    r"\bsq0(?:atp|csp)-[0-9A-Za-z_\-]{22,}",  # Square
    r"\bdckr_pat_[A-Za-z0-9_\-]{27,}",  # Docker Hub
    r"\bhv[sbr]\.[A-Za-z0-9_\-]{24,}",  # HashiCorp Vault
    r"\bAGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}\b",
    r"\blin_api_[A-Za-z0-9]{40}\b",  # Linear
    r"\b(?:ntn_[A-Za-z0-9]{40,}|secret_[A-Za-z0-9]{43})\b",  # Notion
    r"\b(?:gsk_[A-Za-z0-9]{52}|xai-[A-Za-z0-9]{80}|r8_[A-Za-z0-9]{37}|pplx-[A-Za-z0-9]{48})\b",
]

# (pattern, group holding the secret); only that group is replaced
_VALUES = [
    # webhook URLs: the path is the credential
    (r"https://hooks\.slack\.com/(?:services|workflows|triggers)/(?P<v>[A-Za-z0-9/_+\-]{20,})",
     "v"),
    (r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/(?P<v>\d+/[A-Za-z0-9_\-]+)",
     "v"),
    # scheme://user:password@host (the user may be empty, the password may hold '/')
    (r"(?i)\b[a-z][a-z0-9+.\-]*://[^\s:/@]*:(?P<v>(?!\[redacted\])[^\s@]{1,200})@", "v"),
    # curl -u user:pw, --user user:pw
    (r"(?:\s|^)(?:-u|--user)\s*[^\s:]+:(?P<v>[^\s\"']+)", "v"),
    # mysql -pSECRET (no space: with a space mysql prompts)
    (r"\b(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n]*?\s-p(?P<v>[^\s\-]\S*)", "v"),
    (r"\bsshpass\s+-p\s*(?P<v>\S+)", "v"),
    # --password=x, --token x, --api-key x ...
    (r"(?i)--(?:password|passwd|pass|token|api-?key|secret|client-secret|auth-token|"
     r"access-token)(?:=|\s+)(?P<v>[^\s\-][^\s\"']{5,})", "v"),
    # netrc: machine h login u password p
    (r"(?i)\blogin\s+\S+\s+password\s+(?P<v>\S+)", "v"),
    # Authorization: Bearer <token> / Basic <b64>
    (r"(?i)\b(?:Bearer|Basic|Token)\s+(?P<v>(?=[A-Za-z0-9\-._~+/]*[0-9+/=])"
     r"[A-Za-z0-9\-._~+/]{12,}=*)", "v"),
    # "the password is X" in prose, when X has both letters and digits
    (r"(?i)\b(?:password|passphrase|passwd)\s+(?:is|was)\s+[`'\"]?"
     r"(?P<v>(?=\S*[0-9])(?=\S*[A-Za-z])[^\s`'\"]{6,})", "v"),
    # NAME=value, NAME: value, "name": "value", ?sig=...&
    (r"(?i)(?<![A-Za-z0-9])[\"']?" + _SECRET_NAME + r"[\"']?(?![A-Za-z0-9])\s*(?P<sep>[=:])\s*"
     r"(?:\"(?P<q>[^\"\n]{4,})\"|'(?P<s>[^'\n]{4,})'|(?P<v>[^\s\"'&;,]{6,}))", "qsv"),
    (r"(?i)[?&;](?:sig|signature|x-amz-signature|access_token|token|key)=(?P<v>[^\s&;\"']{16,})",
     "v"),
]

# an AWS secret (40 characters of base64) next to the word "secret" or a redacted key id
_AWS_SECRET_NEAR = (r"(?i)(?:secret[^\n]{0,40}?|\[redacted\][^\n]{0,40}?)(?<![A-Za-z0-9/+=])"
                    r"(?P<v>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])")

_PEM = (r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----.*?"
        r"(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\Z)")

# values that name a secret without being one
_PLACEHOLDER = re.compile(
    r"(?i)^(?:[<{$%*\[(]|\.\.\.|x{4,}$|(.)\1+$|(?:changeme|change-me|example|placeholder|"
    r"redacted|secret|password|none|null|true|false|your[_-]\S*|todo|tbd|\S*\.\.\.)$)")

# a payment card's shape: checked by :func:`_card` (13-19 digits, Luhn)
_CARD = r"(?<![\w.\-])[2-6](?:[ \-]?\d){12,18}(?![\w\-]|\.\d)"

_SENTENCE_GOES_ON = re.compile(r"[ \t]+[A-Za-z]")
_NAME_WORD = re.compile(r"(?i)pass|pwd|secret|token|key|credential")

_compiled: tuple | None = None


def _rules() -> tuple:
    global _compiled
    if _compiled is None:
        _compiled = (re.compile(_PEM, re.DOTALL),
                     # tried only where a word starts: far fewer places than every character
                     re.compile(r"(?=\b)(?:" + "|".join(f"(?:{p})" for p in _TOKENS) + ")"),
                     [(re.compile(p, re.MULTILINE), groups) for p, groups in _VALUES],
                     re.compile(_AWS_SECRET_NEAR), re.compile(_CARD))
    return _compiled


def _card(match: re.Match) -> str:
    """``[redacted]`` for a card number (13-19 digits passing the Luhn check), else as is."""
    digits = [int(c) for c in match.group(0) if c.isdigit()]
    if not 13 <= len(digits) <= 19:
        return match.group(0)
    total = sum(d if n % 2 == 0 else (d * 2 - 9 if d > 4 else d * 2)
                for n, d in enumerate(reversed(digits)))
    return REDACTED if total % 10 == 0 else match.group(0)


def _value_replacer(groups: str):
    def replace(match: re.Match) -> str:
        for name in groups:
            value = match.group(name)
            if value is None:
                continue
            if _PLACEHOLDER.match(value) or REDACTED in value:
                return match.group(0)
            if name == "v" and "sep" in match.re.groupindex and match.group("sep") == ":" \
                    and value.isalpha() and _SENTENCE_GOES_ON.match(match.string, match.end()):
                return match.group(0)  # "API_KEY: REPLAYING recorded output" is prose
            start, end = match.start(name) - match.start(), match.end(name) - match.start()
            whole = match.group(0)
            return whole[:start] + REDACTED + whole[end:]
        return match.group(0)
    return replace


def redact(text: str) -> str:
    """``text`` with every secret-shaped run replaced by ``[redacted]``."""
    if not text or not isinstance(text, str):
        return text
    pem, tokens, values, aws_near, card = _rules()
    text = pem.sub(REDACTED, text)
    text = tokens.sub(REDACTED, text)
    named = _NAME_WORD.search(text) is not None
    for pattern, groups in values:
        if groups == "qsv" and not named:
            continue  # the slow NAME=value rule only where a secret-ish name occurs
        text = pattern.sub(_value_replacer(groups), text)
    text = aws_near.sub(_value_replacer("v"), text)
    return card.sub(_card, text) if sum(c.isdigit() for c in text) >= 13 else text


def redact_data(value):
    """Every string inside a JSON-like value redacted (keys too: they may be error texts)."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {k if not isinstance(k, str) else redact(k): redact_data(v)
                for k, v in value.items()}
    if isinstance(value, list):
        return [redact_data(v) for v in value]
    return value


def contains_secret(text: str) -> bool:
    return redact(text) != text

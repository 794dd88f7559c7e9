"""The one seam to the model: the Anthropic Messages API through the ``anthropic`` SDK.

``anthropic`` is imported here and only when a call is made (it costs ~0.7 s to import).

Settings, first found wins:

* model: ``extraction.model`` in the plugin config, default ``claude-sonnet-4-6``
  (``anthropic/claude-sonnet-4-6`` is accepted: OpenClaw writes model ids with a provider);
* key: found by :mod:`zettelclaw.credentials` (the environment, OpenClaw's env file and config,
  OpenClaw's credential store), read in place each run; an API key goes to the SDK as
  ``api_key``, a token (``ANTHROPIC_AUTH_TOKEN``, a setup-token or OAuth profile) as a bearer
  ``auth_token``;
  none anywhere is a :class:`MissingKeyError` naming the fix;
* base URL: ``ANTHROPIC_BASE_URL``, then ``extraction.baseUrl``, then the SDK's default;
* timeout per attempt: ``ZETTELCLAW_MODEL_TIMEOUT``, ``extraction.timeoutSeconds``, 120 s;
* retries: ``ZETTELCLAW_MODEL_RETRIES``, ``extraction.maxRetries``, 4.

Retries are ours, not the SDK's (it runs with ``max_retries=0``): 408/409/429, every 5xx
(529 ``overloaded_error`` included), timeouts, dropped connections and unreadable bodies are
retried with exponential backoff and jitter (base ``ZETTELCLAW_RETRY_BASE`` seconds, default 1,
capped at 30 s); a ``retry-after`` header is honoured up to 60 s. Other 4xx fail at once.

Prompt caching: the stable prefix (the prompt, then the context such as the subjects registry)
goes in the system blocks, the last of which carries ``cache_control``; the varying part (the
transcript) is the user message.
"""

from __future__ import annotations

import os
import random
import time
from dataclasses import dataclass, field

from . import paths
from .counts import count
from .errors import ModelError

DEFAULT_MODEL = "claude-sonnet-4-6"
DEFAULT_TIMEOUT = 120.0
DEFAULT_RETRIES = 4
DEFAULT_MAX_TOKENS = 8192
BACKOFF_MAX = 30.0
RETRY_AFTER_MAX = 60.0
RETRYABLE_STATUS = frozenset({408, 409, 429})


class MissingKeyError(ModelError):
    """No key anywhere: a set-up problem, not the session's fault. The session waits for a key
    (``state.json`` ``waitingForKey``), never recorded as a failure."""


@dataclass
class Usage:
    """Tokens of one call (or a sum of calls)."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_creation: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(self.input + other.input, self.output + other.output,
                     self.cache_read + other.cache_read,
                     self.cache_creation + other.cache_creation)

    @property
    def total(self) -> int:
        return self.input + self.output + self.cache_read + self.cache_creation

    def as_dict(self) -> dict:
        return {"input": self.input, "output": self.output, "cacheRead": self.cache_read,
                "cacheCreation": self.cache_creation}

    @classmethod
    def from_dict(cls, data: dict | None) -> Usage:
        data = data if isinstance(data, dict) else {}

        def count(name: str) -> int:  # state.json is a file people can edit: 0 for non-counts
            value = data.get(name)
            return value if type(value) is int and value >= 0 else 0

        return cls(count("input"), count("output"), count("cacheRead"), count("cacheCreation"))

    @classmethod
    def from_api(cls, usage) -> Usage:
        def get(name: str) -> int:
            value = getattr(usage, name, None)
            return int(value) if isinstance(value, int) else 0

        return cls(get("input_tokens"), get("output_tokens"), get("cache_read_input_tokens"),
                   get("cache_creation_input_tokens"))


@dataclass
class Reply:
    text: str
    usage: Usage
    stop_reason: str | None = None
    model: str | None = None
    attempts: int = 1


def _setting(env: str, config: dict, key: str, default, cast):
    raw = os.environ.get(env)
    if raw not in (None, ""):
        try:
            return cast(raw)
        except ValueError:
            raise ModelError(f"{env}={raw!r} is not a valid number") from None
    value = config.get(key)
    if value is None:
        return default
    try:
        return cast(value)
    except (TypeError, ValueError):
        raise ModelError(f"extraction.{key}={value!r} in the plugin config is not valid") from None


def model_id(name: str | None) -> str:
    """``anthropic/claude-sonnet-4-6`` -> ``claude-sonnet-4-6``; other providers refused."""
    name = (name or DEFAULT_MODEL).strip()
    if "/" in name:
        provider, _, rest = name.partition("/")
        if provider != "anthropic" or not rest:
            raise ModelError(f"model {name!r}: zettelclaw talks to Anthropic models only "
                             "(set extraction.model to e.g. anthropic/claude-sonnet-4-6)")
        name = rest
    return name


@dataclass
class Settings:
    model: str = DEFAULT_MODEL
    api_key: str | None = field(default=None, repr=False)
    auth_token: str | None = field(default=None, repr=False)
    key_source: str | None = None  # where the key was found (never the key)
    key_notes: list = field(default_factory=list)
    base_url: str | None = None
    timeout: float = DEFAULT_TIMEOUT
    max_retries: int = DEFAULT_RETRIES
    backoff_base: float = 1.0
    max_tokens: int = DEFAULT_MAX_TOKENS
    extra: dict = field(default_factory=dict)

    @classmethod
    def resolve(cls, section: str = "extraction", **overrides) -> Settings:
        """Settings from the environment and ``plugins.entries.zettelclaw.config.<section>``."""
        config = paths.plugin_config().get(section)
        config = config if isinstance(config, dict) else {}
        from .credentials import lookup

        found = lookup()
        credential = found.credential
        settings = cls(
            model=model_id(config.get("model")),
            api_key=credential.value if credential and credential.kind == "api_key" else None,
            auth_token=credential.value if credential and credential.kind == "token" else None,
            key_source=str(credential) if credential else None,
            key_notes=found.notes,
            base_url=os.environ.get("ANTHROPIC_BASE_URL") or config.get("baseUrl") or None,
            timeout=_setting("ZETTELCLAW_MODEL_TIMEOUT", config, "timeoutSeconds",
                             DEFAULT_TIMEOUT, float),
            max_retries=_setting("ZETTELCLAW_MODEL_RETRIES", config, "maxRetries",
                                 DEFAULT_RETRIES, int),
            backoff_base=_setting("ZETTELCLAW_RETRY_BASE", {}, "", 1.0, float),
            max_tokens=_setting("ZETTELCLAW_MAX_TOKENS", config, "maxTokens",
                                DEFAULT_MAX_TOKENS, int),
            extra=config,
        )
        for key, value in overrides.items():
            if value is not None:
                setattr(settings, key, model_id(value) if key == "model" else value)
        return settings


class _Retryable(Exception):
    def __init__(self, message: str, retry_after: float | None = None):
        super().__init__(message)
        self.retry_after = retry_after


def _retry_after(headers) -> float | None:
    if headers is None:
        return None
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            seconds = float(value) * scale
        except ValueError:
            continue
        if seconds >= 0:
            return min(seconds, RETRY_AFTER_MAX)
    return None


def _error_message(exc) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict) and error.get("message"):
            kind = error.get("type")
            return f"{kind}: {error['message']}" if kind else str(error["message"])
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


class Client:
    """A blocking Messages client with our retry policy. Safe to share between threads."""

    def __init__(self, settings: Settings | None = None):
        self.settings = settings or Settings.resolve()
        if not self.settings.api_key and not self.settings.auth_token:
            from .credentials import fix_text

            notes = "".join(f" ({note})" for note in self.settings.key_notes[:2])
            raise MissingKeyError(f"no Anthropic key found: ANTHROPIC_API_KEY is not set, and "
                                  f"OpenClaw's env file and auth store hold none for anthropic"
                                  f"{notes}; {fix_text()}")
        import anthropic

        self._anthropic = anthropic
        self._sdk = anthropic.Anthropic(api_key=self.settings.api_key,
                                        auth_token=self.settings.auth_token,
                                        base_url=self.settings.base_url,
                                        timeout=self.settings.timeout, max_retries=0)

    def backoff(self, attempt: int, retry_after: float | None) -> float:
        """Seconds to wait before attempt ``attempt + 1`` (``attempt`` counts from 0)."""
        if retry_after is not None:
            return retry_after
        delay = min(BACKOFF_MAX, self.settings.backoff_base * (2 ** attempt))
        return delay * (0.5 + random.random() / 2)

    def complete(self, prompt: str, user: str, *, context: str | None = None,
                 max_tokens: int | None = None) -> Reply:
        """One message: ``prompt`` (+ ``context``) as the cached system prefix, ``user`` as the
        turn. Returns the text and token usage; raises ModelError once retries are spent."""
        system = [{"type": "text", "text": prompt}]
        if context:
            system.append({"type": "text", "text": context})
        system[-1]["cache_control"] = {"type": "ephemeral"}
        request = {"model": self.settings.model,
                   "max_tokens": max_tokens or self.settings.max_tokens,
                   "system": system,
                   "messages": [{"role": "user", "content": user}]}
        attempts = self.settings.max_retries + 1
        last = "no attempt made"
        for attempt in range(attempts):
            try:
                reply = self._once(request)
                reply.attempts = attempt + 1
                return reply
            except _Retryable as exc:
                last = str(exc)
                if attempt + 1 >= attempts:
                    break
                time.sleep(self.backoff(attempt, exc.retry_after))
        raise ModelError(f"model call failed after {count(attempts, 'attempt')}: {last}")

    def _once(self, request: dict) -> Reply:
        anthropic = self._anthropic
        try:
            message = self._sdk.messages.create(**request)
        except anthropic.APIStatusError as exc:
            status = exc.status_code
            text = f"HTTP {status} {_error_message(exc)}"
            if status in RETRYABLE_STATUS or status >= 500:
                raise _Retryable(text, _retry_after(exc.response.headers)) from None
            raise ModelError(f"model call refused: {text}") from None
        except anthropic.APITimeoutError:
            raise _Retryable(f"timed out after {self.settings.timeout:g} s") from None
        except anthropic.APIConnectionError as exc:
            raise _Retryable(f"connection failed: {_error_message(exc)}") from None
        except (anthropic.APIResponseValidationError, ValueError) as exc:
            raise _Retryable(f"unreadable response: {_error_message(exc)}") from None
        content = getattr(message, "content", None)
        if not isinstance(content, list):
            raise _Retryable("unreadable response: no content")
        text = "".join(getattr(block, "text", "") or "" for block in content
                       if getattr(block, "type", None) == "text")
        return Reply(text=text, usage=Usage.from_api(getattr(message, "usage", None)),
                     stop_reason=getattr(message, "stop_reason", None),
                     model=getattr(message, "model", None))

"""Secrets kept out of everything a person or a log collector sees.

The secrets are the operator's: the Kafka properties named in
`config.SECRET_KAFKA_KEYS` (MQK_KAFKA_CONFIG, MQK_KAFKA_<KEY>) and the password of every
Redis URL (MQK_REDIS_URL, MQK_REDIS_URL_<QMGR>). `redact(text)` replaces each known
secret value, and the password part of any URL or `password=` pair, by `***`; every
line `mqk stack env` prints, every MQCONN failure the engine logs and every handler
`adapter.logs.setup_logging` installs goes through it (`RedactingFilter`).

No library message is built from a secret in the first place (the Kafka and Redis
clients are handed their settings, never asked to print them); redaction is the second
line, for what a server or a client library might echo.
"""

from __future__ import annotations

import logging
import os
import re
from urllib.parse import parse_qs, unquote, urlsplit

from adapter import config

MASK = "***"
# scheme://user:password@  and  scheme://:password@  (the password up to the last '@').
_URL_PASSWORD = re.compile(r"(?P<head>[a-z][a-z0-9+.-]*://[^:/@\s]*:)(?P<pw>[^@\s]+)(?=@)", re.I)
# password=..., sasl.password=..., "password": '...' and the JAAS form password="...".
_PAIR = re.compile(
    r"(?P<head>(?:password|secret|passwd)[\"']?\s*[=:]\s*[\"']?)(?P<pw>[^\"'\s&;,]+)", re.I
)
_REDIS_URL_ENV = config.REDIS_URL_ENV


def secret_values(environ: dict[str, str] | None = None) -> set[str]:
    """Every secret the configuration holds (non-empty values only)."""
    env = dict(os.environ) if environ is None else environ
    found: set[str] = set()
    try:
        settings = config.kafka_settings(env)
    except (OSError, ValueError):
        settings = {}  # an unreadable file holds no secret we could show
    for key, value in settings.items():
        if key in config.SECRET_KAFKA_KEYS and value:
            found.add(value)
            if key == "sasl.jaas.config":
                found.update(m.group("pw") for m in _PAIR.finditer(value))
    for name, value in env.items():
        if name.startswith(_REDIS_URL_ENV):
            found.update(_url_secrets(value))
    return {s for s in found if s}


def _url_secrets(url: str) -> set[str]:
    try:
        parts = urlsplit(url)
    except ValueError:
        return set()
    found = set()
    if parts.password:
        found.update({parts.password, unquote(parts.password)})
    for key, values in parse_qs(parts.query).items():
        if "password" in key.lower():
            found.update(values)
    return found


def redact(text: str, secrets: set[str] | None = None) -> str:
    """`text` with every secret masked: the known values first (longest first, so a
    secret containing another is masked whole), then URL passwords and `password=`
    pairs whatever their value."""
    for value in sorted(secret_values() if secrets is None else secrets, key=len, reverse=True):
        text = text.replace(value, MASK)
    text = _URL_PASSWORD.sub(lambda m: m.group("head") + MASK, text)
    return _PAIR.sub(lambda m: m.group("head") + MASK, text)


class RedactingFilter(logging.Filter):
    """A handler filter: the record's formatted message (and its exception text)
    redacted in place, so no formatter downstream can show a secret."""

    def filter(self, record: logging.LogRecord) -> bool:
        secrets = secret_values()
        message = record.getMessage()
        clean = redact(message, secrets)
        if clean != message:
            record.msg, record.args = clean, None
        if record.exc_info and record.exc_info[1] is not None:
            text = logging.Formatter().formatException(record.exc_info)
            record.exc_text = redact(text, secrets)
        return True

"""A small Kafka client for one request: DescribeLogDirs v4 (KIP-827, Kafka 3.3+), the
size and usable bytes of every log directory of every broker, and which partitions
live in each. confluent-kafka 2.16's AdminClient has no describe_log_dirs, so this
speaks the wire protocol itself (shim/kafka_wire.py), to each broker the cluster
metadata names, with the client settings every other Kafka client of the library
uses (adapter/config.py kafka_settings, plus MQCSP's user on a SASL cluster):

- `security.protocol` PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL;
- TLS: `ssl.ca.location` (a file, a directory, or `probe`; unset: the system's CAs, as
  librdkafka), `ssl.ca.pem`, `ssl.certificate.location` + `ssl.key.location`
  (+ `ssl.key.password`) for mutual TLS, `ssl.cipher.suites`,
  `ssl.endpoint.identification.algorithm` (https by default: the broker's name is
  checked) and `enable.ssl.certificate.verification`;
- SASL: `sasl.mechanism(s)` PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512 with `sasl.username`
  / `sasl.password`, through SaslHandshake v1 and SaslAuthenticate v2 (shim/scram.py).

Any other TLS setting (a keystore, a certificate or key given as PEM text, an engine,
a CRL), another SASL mechanism (GSSAPI, librdkafka's default, or OAUTHBEARER), or a
principal without DESCRIBE on the cluster (the broker answers
CLUSTER_AUTHORIZATION_FAILED) raises log.LogDirsOffError, naming the setting, never its
value: the disk guard then switches itself off (shim/diskguard.py). A broker that does
not answer in time is reported as such, and asked again only after a pause, so one
dead broker cannot hold up the pump that calls this.
"""

from __future__ import annotations

import logging
import os
import socket
import ssl
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from adapter.redact import redact
from adapter.shim import kafka_wire as wire
from adapter.shim.log import LogDir, LogDirsOffError
from adapter.shim.scram import MECHANISMS, SaslError, ScramClient, plain_message

log = logging.getLogger("mqk.shim.logdirs")

CLIENT_ID = "mqk-diskguard"
SOFTWARE = ("mqk-diskguard", "1")
_MAX_RESPONSE = 64 * 1024 * 1024
# A broker that failed is asked again after this pause (its directories are reported
# unanswered meanwhile).
RETRY_AFTER_S = 10.0
# The brokers' addresses are read again this often, and whenever one fails.
METADATA_EVERY_S = 30.0

# TLS settings this client applies; any other ssl.* setting switches the guard off.
_SSL_HONOURED = frozenset(
    {
        "ssl.ca.location",
        "ssl.ca.pem",
        "ssl.certificate.location",
        "ssl.key.location",
        "ssl.key.password",
        "ssl.cipher.suites",
        "ssl.endpoint.identification.algorithm",
        "ssl.ca.certificate.stores",  # Windows only: librdkafka ignores it elsewhere too
    }
)
_FALSE = ("false", "0", "no", "off")


@dataclass(frozen=True)
class Settings:
    """How to reach a broker: TLS (a context, or None) and SASL (a mechanism, or None)."""

    tls: ssl.SSLContext | None = None
    mechanism: str | None = None
    user: str = ""
    password: str = field(default="", repr=False)


def client_settings(conf: Mapping[str, Any]) -> Settings:
    """The Settings for librdkafka-named client properties `conf`; LogDirsOffError for a
    setting this client cannot honour."""
    protocol = str(conf.get("security.protocol", "plaintext")).lower()
    if protocol not in ("plaintext", "ssl", "sasl_plaintext", "sasl_ssl"):
        raise LogDirsOffError(f"security.protocol {protocol!r} is not one the disk guard speaks")
    tls = _tls_context(conf) if protocol in ("ssl", "sasl_ssl") else None
    if not protocol.startswith("sasl"):
        return Settings(tls)
    mechanism = str(conf.get("sasl.mechanisms") or conf.get("sasl.mechanism") or "GSSAPI")
    mechanism = mechanism.upper()
    if mechanism != "PLAIN" and mechanism not in MECHANISMS:
        raise LogDirsOffError(
            f"sasl.mechanism {mechanism}: the disk guard's own client speaks PLAIN and "
            "SCRAM-SHA-256/512 only"
        )
    user, password = conf.get("sasl.username"), conf.get("sasl.password")
    if not user or password is None:
        raise LogDirsOffError(f"sasl.mechanism {mechanism} without sasl.username / sasl.password")
    return Settings(tls, mechanism, str(user), str(password))


def _tls_context(conf: Mapping[str, Any]) -> ssl.SSLContext:
    unknown = sorted(k for k in conf if k.startswith("ssl.") and k not in _SSL_HONOURED)
    if unknown:
        raise LogDirsOffError(f"{', '.join(unknown)}: a TLS setting the disk guard cannot honour")
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    verify = str(conf.get("enable.ssl.certificate.verification", "true")).lower() not in _FALSE
    endpoint = str(conf.get("ssl.endpoint.identification.algorithm", "https")).lower()
    ctx.check_hostname = verify and endpoint == "https"
    ctx.verify_mode = ssl.CERT_REQUIRED if verify else ssl.CERT_NONE
    try:
        ca = conf.get("ssl.ca.location")
        if ca and ca != "probe":
            if os.path.isdir(ca):
                ctx.load_verify_locations(capath=ca)
            else:
                ctx.load_verify_locations(cafile=ca)
        elif conf.get("ssl.ca.pem"):
            ctx.load_verify_locations(cadata=str(conf["ssl.ca.pem"]))
        else:
            ctx.set_default_verify_paths()
        if conf.get("ssl.certificate.location") or conf.get("ssl.key.location"):
            ctx.load_cert_chain(
                conf.get("ssl.certificate.location"),
                conf.get("ssl.key.location"),
                conf.get("ssl.key.password"),
            )
        if conf.get("ssl.cipher.suites"):
            ctx.set_ciphers(str(conf["ssl.cipher.suites"]))
    except (OSError, ssl.SSLError) as exc:  # the text names files, never the key's password
        raise LogDirsOffError(f"the TLS settings do not load: {redact(str(exc))}") from None
    return ctx


class _Link:
    """One connection to one broker: TLS and SASL done, DescribeLogDirs v4 checked."""

    def __init__(self, host: str, port: int, settings: Settings, timeout: float) -> None:
        self._corr = 0
        self.expires = float("inf")
        sock = socket.create_connection((host, port), timeout=timeout)
        try:
            if settings.tls is not None:
                sock = settings.tls.wrap_socket(sock, server_hostname=host)
            self.sock = sock
            self._versions()
            if settings.mechanism is not None:
                self._authenticate(settings)
        except BaseException:
            sock.close()
            raise

    def call(self, api_key: int, version: int, body: bytes, *, flexible: bool) -> wire.Reader:
        """Send one request and read its response (header v1 when `flexible`, except for
        ApiVersions, whose response header is always v0)."""
        self._corr += 1
        self.sock.sendall(wire.request(api_key, version, self._corr, CLIENT_ID, body,
                                       flexible=flexible))  # fmt: skip
        size = wire.frame_size(self._read(4))
        if size > _MAX_RESPONSE:
            raise wire.WireError(f"a response of {size} bytes")
        header_v1 = flexible and api_key != wire.API_VERSIONS
        return wire.response_body(self._read(size), self._corr, flexible=header_v1)

    def _read(self, n: int) -> bytes:
        chunks, left = [], n
        while left:
            chunk = self.sock.recv(left)
            if not chunk:
                raise ConnectionError("the broker closed the connection")
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)

    def _versions(self) -> None:
        r = self.call(wire.API_VERSIONS, wire.API_VERSIONS_VERSION,
                      wire.api_versions_request(*SOFTWARE), flexible=True)  # fmt: skip
        error, keys = wire.api_versions_response(r)
        low, high = keys.get(wire.DESCRIBE_LOG_DIRS, (0, -1))
        if error != wire.NONE or not low <= wire.DESCRIBE_LOG_DIRS_VERSION <= high:
            raise LogDirsOffError(
                f"the broker answers DescribeLogDirs versions {low}-{high} (error {error}): "
                "the disk guard needs version 4 (Kafka 3.3+)"
            )

    def _authenticate(self, settings: Settings) -> None:
        mechanism = settings.mechanism or ""
        r = self.call(wire.SASL_HANDSHAKE, wire.SASL_HANDSHAKE_VERSION,
                      wire.sasl_handshake_request(mechanism), flexible=False)  # fmt: skip
        error, enabled = wire.sasl_handshake_response(r)
        if error != wire.NONE:
            raise LogDirsOffError(f"the broker enables SASL {enabled}, not {mechanism}")
        if mechanism == "PLAIN":
            self._sasl_round(plain_message(settings.user, settings.password))
            return
        scram = ScramClient(mechanism, settings.user, settings.password)
        try:
            server_first = self._sasl_round(scram.first())
            scram.verify(self._sasl_round(scram.final(server_first)))
        except SaslError as exc:
            raise LogDirsOffError(f"SASL {mechanism}: {redact(str(exc))}") from None

    def _sasl_round(self, message: bytes) -> bytes:
        r = self.call(wire.SASL_AUTHENTICATE, wire.SASL_AUTHENTICATE_VERSION,
                      wire.sasl_authenticate_request(message), flexible=True)  # fmt: skip
        got = wire.sasl_authenticate_response(r)
        if got.error != wire.NONE:
            # The broker's message names the mechanism and the failure, not the password;
            # redacted anyway.
            raise LogDirsOffError(
                f"the broker refused the SASL credentials (error {got.error}: "
                f"{redact(got.message or '')})"
            )
        if got.session_lifetime_ms > 0:  # KIP-368: reconnect before the broker cuts us off
            self.expires = time.monotonic() + got.session_lifetime_ms / 2000
        return got.auth_bytes

    def describe(self, topics: dict[str, list[int]]) -> wire.LogDirsResponse:
        r = self.call(wire.DESCRIBE_LOG_DIRS, wire.DESCRIBE_LOG_DIRS_VERSION,
                      wire.describe_log_dirs_request(topics), flexible=True)  # fmt: skip
        return wire.describe_log_dirs_response(r)

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass


# The brokers of the cluster by id: (host, port) as their metadata advertises them.
Brokers = Callable[[list[str]], dict[int, tuple[str, int]]]


class LogDirsClient:
    """DescribeLogDirs v4 to every broker of one cluster, connections kept between calls
    (the disk guard asks every few seconds). Used from one thread (the pump's)."""

    def __init__(self, conf: Mapping[str, Any], brokers: Brokers) -> None:
        self._conf = dict(conf)
        self._settings: Settings | None = None
        self._brokers_of = brokers
        self._brokers: dict[int, tuple[str, int]] = {}
        self._brokers_at = -1e9
        self._links: dict[int, _Link] = {}
        self._retry_at: dict[int, float] = {}

    def describe(self, topics: dict[str, int], timeout_s: float) -> tuple[list[LogDir], set[int]]:
        """Every answering broker's directories, with the partitions of `topics` (name
        -> partition count) in each; and the brokers that did not answer."""
        if self._settings is None:
            self._settings = client_settings(self._conf)  # LogDirsOffError: never works
        now = time.monotonic()
        if now - self._brokers_at > METADATA_EVERY_S or not self._brokers:
            self._brokers = self._brokers_of(sorted(topics)[:1])
            self._brokers_at = now
        asked = {name: list(range(n)) for name, n in topics.items()}
        dirs: list[LogDir] = []
        silent: set[int] = set()
        for broker, (host, port) in sorted(self._brokers.items()):
            if self._retry_at.get(broker, 0.0) > now:
                silent.add(broker)
                continue
            try:
                got = self._link(broker, host, port, timeout_s).describe(asked)
            except LogDirsOffError:
                self.close()
                raise
            except (OSError, wire.WireError) as exc:
                self._failed(broker, host, port, exc)
                silent.add(broker)
                continue
            if got.error == wire.CLUSTER_AUTHORIZATION_FAILED:
                self.close()
                raise LogDirsOffError(
                    "the principal may not DESCRIBE the cluster (CLUSTER_AUTHORIZATION_FAILED), "
                    "which DescribeLogDirs needs"
                )
            if got.error != wire.NONE:
                self._failed(broker, host, port, wire.WireError(f"error {got.error}"))
                silent.add(broker)
                continue
            self._retry_at.pop(broker, None)
            dirs.extend(
                LogDir(
                    broker, d.path, d.total_bytes, d.usable_bytes, d.error, frozenset(d.partitions)
                )  # fmt: skip
                for d in got.results
            )
        return dirs, silent

    def _link(self, broker: int, host: str, port: int, timeout_s: float) -> _Link:
        link = self._links.get(broker)
        if link is not None and link.expires < time.monotonic():
            link.close()
            link = None
        if link is None:
            assert self._settings is not None
            try:
                link = _Link(host, port, self._settings, timeout_s)
            except ssl.SSLCertVerificationError as exc:
                why = exc.verify_message
                raise LogDirsOffError(f"the broker's certificate does not verify: {why}") from None
            self._links[broker] = link
        link.sock.settimeout(timeout_s)
        return link

    def _failed(self, broker: int, host: str, port: int, exc: Exception) -> None:
        link = self._links.pop(broker, None)
        if link is not None:
            link.close()
        if broker not in self._retry_at:  # once per outage, not once per attempt
            log.info("broker %d (%s:%d) did not describe its log directories: %s",
                     broker, host, port, redact(str(exc)))  # fmt: skip
        self._retry_at[broker] = time.monotonic() + RETRY_AFTER_S
        self._brokers_at = -1e9  # its address may have changed

    def close(self) -> None:
        for link in self._links.values():
            link.close()
        self._links.clear()

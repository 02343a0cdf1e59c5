"""The few Kafka wire-protocol messages the disk guard sends (shim/logdirs.py), encoded
and decoded by hand: confluent-kafka 2.16's AdminClient has no DescribeLogDirs.

Written from Kafka's own message definitions
(clients/src/main/resources/common/message/*.json in apache/kafka, and the protocol
guide https://kafka.apache.org/protocol): every request is a 4-byte size, then the
request header, then the body; every response a 4-byte size, the response header, the
body. Pure: bytes in, values out, no I/O.

- Request header v1 (non-flexible requests): ApiKey int16, ApiVersion int16,
  CorrelationId int32, ClientId as a nullable STRING (int16 length). Version 2 (flexible
  requests) adds the header's tagged fields after it; the ClientId keeps its int16
  length ("flexibleVersions": "none" on that field, RequestHeader.json).
- Response header v0: CorrelationId int32; v1 (flexible responses) adds tagged fields.
  ApiVersionsResponse is always read with header v0, whatever its version (a client
  must read it before it knows what the broker speaks).
- Flexible versions: COMPACT_STRING / COMPACT_ARRAY / COMPACT_BYTES carry an unsigned
  varint of length + 1 (0: null), and every structure ends with its tagged fields
  (an unsigned varint count, then tag, size, data each), which a reader skips unless
  it knows the tag.

The messages: ApiVersions v3 (key 18), SaslHandshake v1 (17, not flexible),
SaslAuthenticate v2 (36), DescribeLogDirs v4 (35: KIP-827, Kafka 3.3+, the first
version with each directory's TotalBytes and UsableBytes).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

API_VERSIONS = 18
SASL_HANDSHAKE = 17
SASL_AUTHENTICATE = 36
DESCRIBE_LOG_DIRS = 35

API_VERSIONS_VERSION = 3
SASL_HANDSHAKE_VERSION = 1
SASL_AUTHENTICATE_VERSION = 2
DESCRIBE_LOG_DIRS_VERSION = 4  # TotalBytes / UsableBytes (KIP-827)

# Kafka error codes the guard acts on (org.apache.kafka.common.protocol.Errors).
NONE = 0
UNSUPPORTED_VERSION = 35
CLUSTER_AUTHORIZATION_FAILED = 31
SASL_AUTHENTICATION_FAILED = 58
ILLEGAL_SASL_STATE = 34
UNSUPPORTED_SASL_MECHANISM = 33
KAFKA_STORAGE_ERROR = 56


class WireError(ValueError):
    """Bytes that are not the message they should be (truncated, a wrong length)."""


# ---------------------------------------------------------------------------- writing
class Writer:
    """Appends Kafka's primitive types to a buffer."""

    __slots__ = ("buf",)

    def __init__(self) -> None:
        self.buf = bytearray()

    def int8(self, v: int) -> Writer:
        self.buf += struct.pack(">b", v)
        return self

    def int16(self, v: int) -> Writer:
        self.buf += struct.pack(">h", v)
        return self

    def int32(self, v: int) -> Writer:
        self.buf += struct.pack(">i", v)
        return self

    def int64(self, v: int) -> Writer:
        self.buf += struct.pack(">q", v)
        return self

    def uvarint(self, v: int) -> Writer:
        if v < 0:
            raise ValueError("an unsigned varint cannot be negative")
        while v >= 0x80:
            self.buf.append((v & 0x7F) | 0x80)
            v >>= 7
        self.buf.append(v)
        return self

    def string(self, s: str | None) -> Writer:
        """STRING / NULLABLE_STRING: int16 length (-1: null), UTF-8."""
        if s is None:
            return self.int16(-1)
        data = s.encode()
        self.int16(len(data))
        self.buf += data
        return self

    def compact_string(self, s: str | None) -> Writer:
        if s is None:
            return self.uvarint(0)
        data = s.encode()
        self.uvarint(len(data) + 1)
        self.buf += data
        return self

    def compact_bytes(self, b: bytes | None) -> Writer:
        if b is None:
            return self.uvarint(0)
        self.uvarint(len(b) + 1)
        self.buf += b
        return self

    def compact_array_length(self, n: int | None) -> Writer:
        return self.uvarint(0 if n is None else n + 1)

    def no_tags(self) -> Writer:
        """An empty tagged-field section."""
        return self.uvarint(0)

    def bytes(self) -> bytes:
        return bytes(self.buf)


# ---------------------------------------------------------------------------- reading
class Reader:
    """Reads Kafka's primitive types from a response body."""

    __slots__ = ("data", "pos")

    def __init__(self, data: bytes, pos: int = 0) -> None:
        self.data = data
        self.pos = pos

    def _take(self, n: int) -> bytes:
        if n < 0 or self.pos + n > len(self.data):
            raise WireError(f"{n} bytes wanted at {self.pos} of {len(self.data)}")
        out = self.data[self.pos : self.pos + n]
        self.pos += n
        return out

    def int8(self) -> int:
        return struct.unpack(">b", self._take(1))[0]

    def int16(self) -> int:
        return struct.unpack(">h", self._take(2))[0]

    def int32(self) -> int:
        return struct.unpack(">i", self._take(4))[0]

    def int64(self) -> int:
        return struct.unpack(">q", self._take(8))[0]

    def boolean(self) -> bool:
        return self._take(1) != b"\x00"

    def uvarint(self) -> int:
        value = shift = 0
        while True:
            b = self._take(1)[0]
            value |= (b & 0x7F) << shift
            if not b & 0x80:
                return value
            shift += 7
            if shift > 35:  # an int32's varint is at most 5 bytes
                raise WireError("varint too long")

    def string(self) -> str | None:
        n = self.int16()
        return None if n < 0 else self._take(n).decode()

    def compact_string(self) -> str | None:
        n = self.uvarint()
        return None if n == 0 else self._take(n - 1).decode()

    def compact_bytes(self) -> bytes | None:
        n = self.uvarint()
        return None if n == 0 else self._take(n - 1)

    def array_length(self) -> int:
        """ARRAY: int32 count (-1: null, read as empty)."""
        return max(self.int32(), 0)

    def compact_array_length(self) -> int:
        """COMPACT_ARRAY: count + 1 (0: null, read as empty)."""
        return max(self.uvarint() - 1, 0)

    def skip_tags(self) -> None:
        for _ in range(self.uvarint()):
            self.uvarint()  # tag
            self._take(self.uvarint())

    def done(self) -> None:
        if self.pos != len(self.data):
            raise WireError(f"{len(self.data) - self.pos} bytes left over")


# ---------------------------------------------------------------------------- framing
def request(
    api_key: int,
    version: int,
    correlation_id: int,
    client_id: str | None,
    body: bytes,
    *,
    flexible: bool,
) -> bytes:
    """One request on the wire: size, header (v2 when `flexible`, else v1), body."""
    header = Writer().int16(api_key).int16(version).int32(correlation_id).string(client_id)
    if flexible:
        header.no_tags()
    payload = header.bytes() + body
    return struct.pack(">i", len(payload)) + payload


def frame_size(prefix: bytes) -> int:
    """The size a response's 4-byte prefix announces."""
    if len(prefix) != 4:
        raise WireError("a size prefix is 4 bytes")
    size = struct.unpack(">i", prefix)[0]
    if size < 4:
        raise WireError(f"a response of {size} bytes")
    return size


def response_body(frame: bytes, correlation_id: int, *, flexible: bool) -> Reader:
    """A response (without its size prefix) positioned at its body, after checking it
    answers `correlation_id`; `flexible`: header v1 (tagged fields), else v0."""
    r = Reader(frame)
    got = r.int32()
    if got != correlation_id:
        raise WireError(f"response to request {got}, expected {correlation_id}")
    if flexible:
        r.skip_tags()
    return r


# ---------------------------------------------------------------------------- ApiVersions
def api_versions_request(software: str, version: str) -> bytes:
    """ApiVersionsRequest v3: ClientSoftwareName, ClientSoftwareVersion (the broker
    wants them to match [a-zA-Z0-9](?:[a-zA-Z0-9\\-.]*[a-zA-Z0-9])?)."""
    return Writer().compact_string(software).compact_string(version).no_tags().bytes()


def api_versions_response(r: Reader) -> tuple[int, dict[int, tuple[int, int]]]:
    """(ErrorCode, {ApiKey: (MinVersion, MaxVersion)}) of ApiVersionsResponse v3."""
    error = r.int16()
    if error == UNSUPPORTED_VERSION:
        # The broker answers an unknown version with a v0 body: error and its own keys.
        keys = {}
        for _ in range(r.array_length()):
            key, low, high = r.int16(), r.int16(), r.int16()
            keys[key] = (low, high)
        return error, keys
    keys = {}
    for _ in range(r.compact_array_length()):
        key, low, high = r.int16(), r.int16(), r.int16()
        r.skip_tags()
        keys[key] = (low, high)
    r.int32()  # ThrottleTimeMs
    r.skip_tags()  # SupportedFeatures, FinalizedFeatures, ...
    r.done()
    return error, keys


# ---------------------------------------------------------------------------- SASL
def sasl_handshake_request(mechanism: str) -> bytes:
    """SaslHandshakeRequest v1 (not flexible): Mechanism."""
    return Writer().string(mechanism).bytes()


def sasl_handshake_response(r: Reader) -> tuple[int, list[str]]:
    """(ErrorCode, the mechanisms the broker enables)."""
    error = r.int16()
    mechanisms = [r.string() or "" for _ in range(r.array_length())]
    r.done()
    return error, mechanisms


def sasl_authenticate_request(auth_bytes: bytes) -> bytes:
    """SaslAuthenticateRequest v2: AuthBytes."""
    return Writer().compact_bytes(auth_bytes).no_tags().bytes()


@dataclass(frozen=True)
class SaslAuthenticated:
    error: int
    message: str | None
    auth_bytes: bytes
    session_lifetime_ms: int


def sasl_authenticate_response(r: Reader) -> SaslAuthenticated:
    error = r.int16()
    message = r.compact_string()
    auth = r.compact_bytes() or b""
    lifetime = r.int64()
    r.skip_tags()
    r.done()
    return SaslAuthenticated(error, message, auth, lifetime)


# ---------------------------------------------------------------------------- DescribeLogDirs
def describe_log_dirs_request(topics: dict[str, list[int]] | None) -> bytes:
    """DescribeLogDirsRequest v4: the partitions to place (topic -> indexes); an empty
    dict asks for the directories alone, None for every partition the broker holds."""
    w = Writer()
    if topics is None:
        w.compact_array_length(None)
    else:
        w.compact_array_length(len(topics))
        for name, partitions in topics.items():
            w.compact_string(name).compact_array_length(len(partitions))
            for p in partitions:
                w.int32(p)
            w.no_tags()
    return w.no_tags().bytes()


@dataclass(frozen=True)
class DirResult:
    """One log directory of one broker as DescribeLogDirs v4 describes it."""

    error: int
    path: str
    total_bytes: int  # -1: unknown
    usable_bytes: int  # -1: unknown
    # (topic, partition) -> size in bytes, of the partitions asked about that live here
    # (a future replica being moved here by AlterReplicaLogDirs included).
    partitions: dict[tuple[str, int], int] = field(default_factory=dict)


@dataclass(frozen=True)
class LogDirsResponse:
    throttle_ms: int
    error: int
    results: list[DirResult]


def describe_log_dirs_response(r: Reader) -> LogDirsResponse:
    throttle = r.int32()
    error = r.int16()
    results = []
    for _ in range(r.compact_array_length()):
        dir_error = r.int16()
        path = r.compact_string() or ""
        placed: dict[tuple[str, int], int] = {}
        for _ in range(r.compact_array_length()):
            name = r.compact_string() or ""
            for _ in range(r.compact_array_length()):
                index, size = r.int32(), r.int64()
                r.int64()  # OffsetLag
                r.boolean()  # IsFutureKey
                r.skip_tags()
                placed[(name, index)] = size
            r.skip_tags()
        total, usable = r.int64(), r.int64()
        r.skip_tags()
        results.append(DirResult(dir_error, path, total, usable, placed))
    r.skip_tags()
    r.done()
    return LogDirsResponse(throttle, error, results)

"""The disk guard's DescribeLogDirs client (adapter/shim/logdirs.py) against a fake broker
on loopback that speaks the same wire messages (ApiVersions v3, SaslHandshake v1,
SaslAuthenticate v2 with a SCRAM-SHA-512 server written from RFC 5802, DescribeLogDirs
v4), over plain TCP and TLS with certificates made for the test (ops/certs.py). What
the client does with the settings of adapter/config.py: which it honours, which switch
the guard off (log.LogDirsOffError, naming the setting, never a secret), an ACL refusal, a
broker too old, a broker that does not answer. The real broker's bytes are checked in
test_kafka_wire.py, the real secured broker in tests/integration/test_logdirs.py."""

from __future__ import annotations

import socket
import ssl
import struct
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from adapter.shim import kafka_wire as w
from adapter.shim import logdirs
from adapter.shim.log import LogDirsOffError
from adapter.shim.logdirs import LogDirsClient, client_settings
from ops import certs
from tests.unit.test_scram import _Server as ScramServer

SECRET = "s3cret-Pa55word"
FLEXIBLE = {(18, 3), (36, 2), (35, 4)}


class FakeBroker:
    """One broker: answers the client's requests, remembers what it was asked."""

    def __init__(
        self,
        *,
        tls: ssl.SSLContext | None = None,
        sasl: dict[str, str] | None = None,  # user -> password (SCRAM-SHA-512 and PLAIN)
        describe_versions: tuple[int, int] = (1, 5),
        dirs: list[tuple[str, int, int, list[tuple[str, int]]]] | None = None,
        describe_error: int = 0,
    ) -> None:
        self.tls, self.sasl = tls, sasl
        self.describe_versions = describe_versions
        self.dirs = dirs if dirs is not None else [("/data", 1000, 400, [])]
        self.describe_error = describe_error
        self.asked: list[dict[str, list[int]]] = []
        self.accepted = 0
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._serve, daemon=True).start()

    def close(self) -> None:
        self.listener.close()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            self.accepted += 1
            threading.Thread(target=self._session, args=(conn,), daemon=True).start()

    def _session(self, conn: socket.socket) -> None:
        try:
            if self.tls is not None:
                conn = self.tls.wrap_socket(conn, server_side=True)
            authenticated, mechanism, scram = self.sasl is None, "", None
            while True:
                size = struct.unpack(">i", _recv(conn, 4))[0]
                r = w.Reader(_recv(conn, size))
                key, version, corr = r.int16(), r.int16(), r.int32()
                r.string()  # client id
                if (key, version) in FLEXIBLE:
                    r.skip_tags()
                out = w.Writer().int32(corr)
                if (key, version) in FLEXIBLE and key != w.API_VERSIONS:
                    out.no_tags()  # response header v1
                if key == w.API_VERSIONS:
                    keys = [(18, 0, 4), (17, 0, 1), (36, 0, 2), (35, *self.describe_versions)]
                    out.int16(0).compact_array_length(len(keys))
                    for k, lo, hi in keys:
                        out.int16(k).int16(lo).int16(hi).no_tags()
                    out.int32(0).no_tags()
                elif key == w.SASL_HANDSHAKE:
                    mechanism = r.string() or ""
                    enabled = ["SCRAM-SHA-512", "PLAIN"]
                    out.int16(0 if mechanism in enabled else 33).int32(len(enabled))
                    for m in enabled:
                        out.string(m)
                elif key == w.SASL_AUTHENTICATE:
                    token = r.compact_bytes() or b""
                    error, answer = 0, b""
                    if mechanism == "PLAIN":
                        _authz, user, password = token.decode().split("\0")
                        authenticated = self.sasl.get(user) == password  # type: ignore[union-attr]
                        error = 0 if authenticated else 58
                    elif scram is None:
                        user = token.decode()[3:].split(",")[0][2:]
                        scram = ScramServer(self.sasl.get(user, "?unknown"))  # type: ignore[union-attr]
                        answer = scram.first(token)
                    else:
                        answer = scram.final(token)
                        authenticated = answer.startswith(b"v=")
                        error = 0 if authenticated else 58
                    message = None if error == 0 else "Authentication failed: invalid credentials"
                    out.int16(error).compact_string(message).compact_bytes(answer)
                    out.int64(0).no_tags()
                elif key == w.DESCRIBE_LOG_DIRS:
                    assert authenticated, "DescribeLogDirs before SASL"
                    asked = {}
                    for _ in range(r.compact_array_length()):
                        name = r.compact_string() or ""
                        asked[name] = [r.int32() for _ in range(r.compact_array_length())]
                        r.skip_tags()
                    self.asked.append(asked)
                    out.int32(0).int16(self.describe_error)
                    dirs = [] if self.describe_error else self.dirs
                    out.compact_array_length(len(dirs))
                    for path, total, usable, parts in dirs:
                        held = [(t, p) for t, p in parts if p in asked.get(t, [])]
                        out.int16(0).compact_string(path).compact_array_length(len(held))
                        for t, p in held:
                            out.compact_string(t).compact_array_length(1)
                            out.int32(p).int64(10).int64(0).int8(0).no_tags().no_tags()
                        out.int64(total).int64(usable).no_tags()
                    out.no_tags()
                body = out.bytes()
                conn.sendall(struct.pack(">i", len(body)) + body)
        except (OSError, struct.error, AssertionError):
            conn.close()


def _recv(conn: socket.socket, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = conn.recv(n - len(data))
        if not chunk:
            raise ConnectionError
        data += chunk
    return data


def _client(conf: dict, brokers: dict[int, FakeBroker]) -> LogDirsClient:
    return LogDirsClient(conf, lambda _t: {i: ("127.0.0.1", b.port) for i, b in brokers.items()})


@pytest.fixture(scope="module")
def pki(tmp_path_factory) -> certs.Certs:
    try:
        return certs.make(tmp_path_factory.mktemp("pki"), ["app"], "p12-pass")
    except certs.CertError as exc:
        pytest.skip(str(exc))


def _server_tls(pki: certs.Certs, require_client: bool = False) -> ssl.SSLContext:
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(pki.server_cert, pki.server_key)
    if require_client:
        ctx.verify_mode = ssl.CERT_REQUIRED
        ctx.load_verify_locations(pki.ca)
    return ctx


@pytest.fixture
def brokers() -> Iterator[list[FakeBroker]]:
    made: list[FakeBroker] = []
    yield made
    for b in made:
        b.close()


def test_plaintext_describes_every_broker_with_the_partitions_it_holds(brokers) -> None:
    one = FakeBroker(dirs=[("/a", 1000, 50, [("t.p0", 0), ("t.p1", 1)]), ("/b", 2000, 1500, [])])
    two = FakeBroker(dirs=[("/c", 3000, 10, [("t.p1", 0)])])
    brokers += [one, two]
    client = _client({}, {1: one, 2: two})
    dirs, silent = client.describe({"t.p0": 1, "t.p1": 2}, 2.0)
    assert silent == set()
    assert one.asked == [{"t.p0": [0], "t.p1": [0, 1]}]
    assert {(d.broker, d.path, d.total_bytes, d.usable_bytes, d.partitions) for d in dirs} == {
        (1, "/a", 1000, 50, frozenset({("t.p0", 0), ("t.p1", 1)})),
        (1, "/b", 2000, 1500, frozenset()),
        (2, "/c", 3000, 10, frozenset({("t.p1", 0)})),
    }
    client.describe({"t.p0": 1}, 2.0)
    assert (one.accepted, two.accepted) == (1, 1)  # connections kept between checks
    client.close()


def test_sasl_ssl_scram_sha_512_with_the_run_ca(brokers, pki) -> None:
    b = FakeBroker(tls=_server_tls(pki), sasl={"app": SECRET})
    brokers.append(b)
    conf = {
        "security.protocol": "SASL_SSL",
        "sasl.mechanism": "SCRAM-SHA-512",
        "sasl.username": "app",
        "sasl.password": SECRET,
        "ssl.ca.location": str(pki.ca),
    }
    dirs, silent = _client(conf, {1: b}).describe({"q": 1}, 2.0)
    assert (silent, [d.path for d in dirs]) == (set(), ["/data"])


def test_sasl_plaintext_plain(brokers) -> None:
    b = FakeBroker(sasl={"app": SECRET})
    brokers.append(b)
    conf = {"security.protocol": "sasl_plaintext", "sasl.mechanisms": "PLAIN",
            "sasl.username": "app", "sasl.password": SECRET}  # fmt: skip
    assert _client(conf, {1: b}).describe({"q": 1}, 2.0)[1] == set()


@pytest.mark.parametrize("mechanism", ["SCRAM-SHA-512", "PLAIN"])
def test_refused_credentials_switch_the_guard_off_without_showing_them(brokers, mechanism) -> None:
    b = FakeBroker(sasl={"app": "the-real-one"})
    brokers.append(b)
    conf = {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": mechanism,
            "sasl.username": "app", "sasl.password": SECRET}  # fmt: skip
    with pytest.raises(LogDirsOffError, match="refused the SASL credentials") as err:
        _client(conf, {1: b}).describe({"q": 1}, 2.0)
    assert SECRET not in str(err.value) and "the-real-one" not in str(err.value)


def test_mutual_tls_presents_the_client_certificate(brokers, pki) -> None:
    b = FakeBroker(tls=_server_tls(pki, require_client=True))
    brokers.append(b)
    app = pki.client("app")
    conf = {
        "security.protocol": "SSL",
        "ssl.ca.location": str(pki.ca),
        "ssl.certificate.location": str(app.cert),
        "ssl.key.location": str(app.key),
    }
    assert _client(conf, {1: b}).describe({"q": 1}, 2.0)[1] == set()


def test_a_broker_certificate_the_ca_does_not_sign_switches_the_guard_off(brokers, pki) -> None:
    b = FakeBroker(tls=_server_tls(pki))
    brokers.append(b)
    conf = {"security.protocol": "SSL", "ssl.ca.location": "/etc/ssl/certs/ca-certificates.crt"}
    if not Path(conf["ssl.ca.location"]).exists():
        pytest.skip("no system CA bundle here")
    with pytest.raises(LogDirsOffError, match="does not verify"):
        _client(conf, {1: b}).describe({"q": 1}, 2.0)
    # Told not to verify (as librdkafka's enable.ssl.certificate.verification=false):
    loose = {**conf, "enable.ssl.certificate.verification": "false"}
    assert _client(loose, {1: b}).describe({"q": 1}, 2.0)[1] == set()


def test_a_principal_without_describe_on_the_cluster_switches_the_guard_off(brokers) -> None:
    b = FakeBroker(describe_error=w.CLUSTER_AUTHORIZATION_FAILED)
    brokers.append(b)
    with pytest.raises(LogDirsOffError, match="may not DESCRIBE the cluster"):
        _client({}, {1: b}).describe({"q": 1}, 2.0)


def test_a_broker_older_than_kafka_3_3_switches_the_guard_off(brokers) -> None:
    b = FakeBroker(describe_versions=(0, 3))
    brokers.append(b)
    with pytest.raises(LogDirsOffError, match="version 4"):
        _client({}, {1: b}).describe({"q": 1}, 2.0)


def test_a_broker_that_does_not_answer_is_left_out_and_asked_again_later(
    brokers, monkeypatch
) -> None:
    up = FakeBroker()
    brokers.append(up)
    with socket.create_server(("127.0.0.1", 0)) as s:
        dead_port = s.getsockname()[1]  # closed again: nothing listens there
    addresses = {1: ("127.0.0.1", up.port), 2: ("127.0.0.1", dead_port)}
    client = LogDirsClient({}, lambda _t: addresses)
    dirs, silent = client.describe({"q": 1}, 1.0)
    assert (silent, {d.broker for d in dirs}) == ({2}, {1})
    clock = [1000.0]
    monkeypatch.setattr(logdirs.time, "monotonic", lambda: clock[0])
    client._retry_at[2] = clock[0] + 5
    assert client.describe({"q": 1}, 1.0)[1] == {2}  # paused: not even tried
    revived = FakeBroker()
    brokers.append(revived)
    addresses[2] = ("127.0.0.1", revived.port)
    clock[0] += 6
    assert client.describe({"q": 1}, 1.0)[1] == set()
    assert revived.accepted == 1


@pytest.mark.parametrize(
    "conf,named",
    [
        ({"security.protocol": "SASL_SSL", "sasl.mechanism": "OAUTHBEARER"}, "OAUTHBEARER"),
        (
            {"security.protocol": "SASL_PLAINTEXT", "sasl.username": "u", "sasl.password": SECRET},
            "GSSAPI",
        ),  # librdkafka's default mechanism  # fmt: skip
        (
            {
                "security.protocol": "SASL_SSL",
                "sasl.mechanism": "SCRAM-SHA-256",
                "sasl.username": "u",
            },
            "without sasl.username / sasl.password",
        ),  # fmt: skip
        (
            {
                "security.protocol": "SSL",
                "ssl.keystore.location": "/k.p12",
                "ssl.keystore.password": SECRET,
            },
            "ssl.keystore.location, ssl.keystore.password",
        ),
        ({"security.protocol": "SSL", "ssl.key.pem": SECRET}, "ssl.key.pem"),
        ({"security.protocol": "SSL", "ssl.ca.location": "/no/such/ca.pem"}, "do not load"),
        ({"security.protocol": "kerberos"}, "security.protocol"),
    ],
)
def test_settings_it_cannot_honour_switch_it_off_naming_the_setting(conf, named) -> None:
    with pytest.raises(LogDirsOffError) as err:
        client_settings(conf)
    assert named in str(err.value)
    assert SECRET not in str(err.value)


def test_settings_it_honours() -> None:
    assert client_settings({}).tls is None and client_settings({}).mechanism is None
    s = client_settings({"security.protocol": "SASL_SSL", "sasl.mechanism": "scram-sha-256",
                         "sasl.username": "u", "sasl.password": SECRET,
                         "ssl.endpoint.identification.algorithm": "none"})  # fmt: skip
    assert (s.mechanism, s.user, s.tls.check_hostname) == ("SCRAM-SHA-256", "u", False)
    assert SECRET not in repr(s)
    # Settings for other mechanisms are librdkafka's to ignore, and so are they here.
    client_settings({"security.protocol": "SASL_SSL", "sasl.mechanism": "PLAIN",
                     "sasl.username": "u", "sasl.password": "p",
                     "sasl.kerberos.service.name": "kafka"})  # fmt: skip

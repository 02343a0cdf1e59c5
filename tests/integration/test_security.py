"""MQI over the secure stack (ops/secure.py): Kafka over SASL_SSL (SCRAM-SHA-512) and
over mTLS, Redis over TLS with an ACL user (and with a client certificate it requires);
wrong passwords and ACL denials answer MQRC_NOT_AUTHORIZED (2035), a refused TLS
handshake MQRC_SSL_INITIALIZATION_ERROR (2393); no secret in any log line, exception or
`mqk stack env`.

The module starts the secure stack itself (MQK_SECURE_PORT, default 19300..19303;
MQK_SECURE_DIR, default a temporary folder) unless one already runs there, and stops
what it started.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import time
import traceback
from collections.abc import Iterator

import pytest

import adapter.pymqi as pymqi
from adapter import config
from adapter.cli import main as mqk
from adapter.testing.servers import purge_queue_manager, unique_qmgr_name
from ops import certs, secure
from tests.integration.conftest import mqerror
from tests.securekit import client_env as _client_env
from tests.securekit import secure_stack_fixture  # noqa: F401 (the module's stack)

pytestmark = [pytest.mark.integration, pytest.mark.secure]
C = pymqi.CMQC
NOSYNC_PUT = pymqi.PMO(Options=C.MQPMO_NO_SYNCPOINT)


@pytest.fixture
def secure_env(secure_stack, monkeypatch) -> secure.SecureStack:
    for name in [n for n in os.environ if n.startswith("MQK_KAFKA_") or n == "MQK_REDIS_URL"]:
        monkeypatch.delenv(name)
    for name, value in _client_env(secure_stack).items():
        monkeypatch.setenv(name, value)
    return secure_stack


@pytest.fixture
def qmgr_name(secure_env) -> Iterator[str]:
    name = unique_qmgr_name()
    yield name
    purge_queue_manager(config.endpoints(), name)


def _secrets(st: secure.SecureStack) -> list[str]:
    return [st.secret(user) for user in secure.USERS]


def _assert_hidden(secrets: list[str], *texts: str) -> None:
    for text in texts:
        for secret in secrets:
            assert secret not in text


def _exception_text(exc: BaseException) -> str:
    return "".join(traceback.format_exception(exc)) + repr(exc)


def test_mqi_over_sasl_ssl_and_redis_tls(secure_env, qmgr_name: str, caplog) -> None:
    """MQPUT / MQGET, a unit of work backed out then committed, MQINQ; the passwords
    appear in no log line (DEBUG and up, librdkafka's included)."""
    caplog.set_level(logging.DEBUG)
    logging.getLogger("mqk.kafka").setLevel(logging.DEBUG)
    try:
        qm = pymqi.connect(qmgr_name)
        qm.define_queue("SEC.Q")
        q = pymqi.Queue(qm, "SEC.Q", C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT | C.MQOO_INQUIRE)
        q.put(b"plain", pymqi.MD(), NOSYNC_PUT)
        assert q.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_NO_SYNCPOINT)) == b"plain"
        q.put(b"backed out", pymqi.MD(), pymqi.PMO(Options=C.MQPMO_SYNCPOINT))
        qm.backout()
        q.put(b"committed", pymqi.MD(), pymqi.PMO(Options=C.MQPMO_SYNCPOINT))
        qm.commit()
        assert q.inquire(C.MQIA_CURRENT_Q_DEPTH) == 1
        gmo = pymqi.GMO(Options=C.MQGMO_SYNCPOINT | C.MQGMO_WAIT, WaitInterval=5000)
        assert q.get(None, pymqi.MD(), gmo) == b"committed"
        qm.commit()
        assert q.inquire(C.MQIA_CURRENT_Q_DEPTH) == 0
        q.close()
        qm.disconnect()
    finally:
        logging.getLogger("mqk.kafka").setLevel(logging.WARNING)
    assert caplog.records  # the check below saw the library's lines
    _assert_hidden(_secrets(secure_env), caplog.text)


def test_mqi_over_mtls(secure_stack, monkeypatch) -> None:
    for name, value in _client_env(secure_stack, "mtls").items():
        monkeypatch.setenv(name, value)
    name = unique_qmgr_name()
    qm = pymqi.connect(name)
    try:
        qm.define_queue("MTLS.Q")
        q = pymqi.Queue(qm, "MTLS.Q", C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT)
        q.put(b"over mtls", pymqi.MD(), NOSYNC_PUT)
        assert q.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_NO_SYNCPOINT)) == b"over mtls"
        q.close()
    finally:
        qm.disconnect()
        purge_queue_manager(config.endpoints(), name)


@pytest.mark.parametrize("server", ["kafka", "redis"])
def test_wrong_password_is_2035_at_mqconn(secure_env, monkeypatch, caplog, server) -> None:
    wrong = "Wrong-Pw-" + server
    if server == "kafka":
        monkeypatch.setenv("MQK_KAFKA_SASL_PASSWORD", wrong)
    else:
        url = secure_env.redis_url().replace(secure_env.secret("app"), wrong)
        monkeypatch.setenv(config.REDIS_URL_ENV, url)
    caplog.set_level(logging.DEBUG)
    start = time.monotonic()
    with pytest.raises(pymqi.MQMIError) as exc:
        pymqi.connect(unique_qmgr_name())
    took = time.monotonic() - start
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_NOT_AUTHORIZED)
    assert took < config.BROKEN_AFTER_S  # answered, not retried until the timeout
    _assert_hidden([*_secrets(secure_env), wrong], caplog.text, _exception_text(exc.value))


def test_stack_env_names_files_not_secrets(secure_stack) -> None:
    env = {
        **os.environ,
        "MQK_SECURE_DIR": secure_stack.folder,
        "MQK_SECURE_PORT": str(secure_stack.port),
    }
    out = subprocess.run(
        [sys.executable, "-m", "adapter.cli", "stack", "env", "--secure"],
        capture_output=True, text=True, env=env, check=True,
    ).stdout  # fmt: skip
    assert f"MQK_KAFKA_CONFIG={secure_stack.client_properties('sasl')}" in out
    assert "redis.url" in out
    _assert_hidden(_secrets(secure_stack), out)
    # The exports work: a shell that evals them reaches the servers.
    check = (
        f'eval "$({sys.executable} -m adapter.cli stack env --secure)"; '
        f"{sys.executable} -c \"import adapter.pymqi as p; p.connect('QMENV').disconnect()\""
    )
    subprocess.run(["bash", "-c", check], env=env, check=True, timeout=60)


def _as_admin(secure_stack, monkeypatch) -> None:
    monkeypatch.setenv(config.KAFKA_CONFIG_ENV, str(secure_stack.harness_properties()))


def _harness_redis_url(st: secure.SecureStack) -> str:
    return st.harness_redis_url_file().read_text().strip()


def test_put_only_user_gets_2035_on_mqopen_for_input(secure_env, qmgr_name, monkeypatch):
    """setmqaut +connect, +put for bob (applied as Kafka ACLs); bob connects with his
    MQCSP (a wrong password: 2035): his MQPUT works, his MQOPEN for input (and browse)
    is MQRC_NOT_AUTHORIZED; once +get is granted too it opens and gets the message."""
    qm = pymqi.connect(qmgr_name)
    qm.define_queue("AUTH.Q")
    qm.disconnect()
    bob_pw = "Bob-Pw-" + qmgr_name
    secure.add_scram_user(secure_env, "bob", bob_pw)
    _as_admin(secure_env, monkeypatch)
    assert mqk(["setmqaut", "-m", qmgr_name, "-t", "qmgr", "-p", "bob", "+connect"]) == 0
    base = ["setmqaut", "-m", qmgr_name, "-n", "AUTH.Q", "-t", "queue", "-p", "bob"]
    assert mqk([*base, "+put", "--apply"]) == 0
    monkeypatch.setenv(config.KAFKA_CONFIG_ENV, str(secure_env.client_properties("sasl")))
    # bob's credentials come in his MQCSP (MQCONNX), as an MQ application gives them.
    with pytest.raises(pymqi.MQMIError) as exc:
        pymqi.QueueManager(None).connect_with_options(
            qmgr_name, csp=pymqi.CSP(CSPUserId="bob", CSPPassword="not-" + bob_pw)
        )
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_NOT_AUTHORIZED)
    bob = pymqi.QueueManager(None)
    bob.connect_with_options(qmgr_name, csp=pymqi.CSP(CSPUserId="bob", CSPPassword=bob_pw))
    try:
        out = pymqi.Queue(bob, "AUTH.Q", C.MQOO_OUTPUT)
        out.put(b"for bob", pymqi.MD(), NOSYNC_PUT)
        for options in (C.MQOO_INPUT_SHARED, C.MQOO_BROWSE):
            with pytest.raises(pymqi.MQMIError) as exc:
                pymqi.Queue(bob, "AUTH.Q", options)
            assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_NOT_AUTHORIZED)
        _as_admin(secure_env, monkeypatch)
        assert mqk([*base, "+get", "--apply"]) == 0
        deadline = time.monotonic() + 10  # ACLs reach the broker's authorizer in a moment
        while True:
            try:
                q = pymqi.Queue(bob, "AUTH.Q", C.MQOO_INPUT_SHARED)
                break
            except pymqi.MQMIError as err:
                if err.reason != C.MQRC_NOT_AUTHORIZED or time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        gmo = pymqi.GMO(Options=C.MQGMO_NO_SYNCPOINT | C.MQGMO_WAIT, WaitInterval=5000)
        assert q.get(None, pymqi.MD(), gmo) == b"for bob"
    finally:
        bob.disconnect()


def test_redis_acl_denial_is_2035(secure_env, monkeypatch) -> None:
    """A Redis ACL user allowed PING but no mqk key: NOPERM is MQRC_NOT_AUTHORIZED."""
    import redis

    client = redis.Redis.from_url(_harness_redis_url(secure_env))
    client.acl_setuser("nokeys", enabled=True, passwords=["+Nokeys-Pw-1"],
                       keys=["other:*"], channels=["*"], commands=["+@all"])  # fmt: skip
    client.close()
    url = secure_env.redis_url().replace(f"app:{secure_env.secret('app')}@", "nokeys:Nokeys-Pw-1@")
    monkeypatch.setenv(config.REDIS_URL_ENV, url)
    with pytest.raises(pymqi.MQMIError) as exc:
        pymqi.connect(unique_qmgr_name())
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_NOT_AUTHORIZED)


@pytest.fixture(scope="module")
def foreign_ca(tmp_path_factory) -> certs.Certs:
    """Certificates of another CA: the secure stack's servers are not signed by it."""
    return certs.make(tmp_path_factory.mktemp("foreign-ca"), [], "Foreign-Pw-1")


@pytest.mark.parametrize("case", ["kafka-foreign-ca", "kafka-no-client-cert", "redis-foreign-ca"])
def test_tls_handshake_refused_is_2393_at_mqconn(
    secure_env, monkeypatch, caplog, tmp_path, foreign_ca, case
) -> None:
    """A CA that did not sign the server's certificate, or no client certificate for the
    mTLS listener: the handshake fails, and MQCONN answers MQRC_SSL_INITIALIZATION_ERROR
    at once (not 2538 after the retries: the host answered, and no retry mends a
    certificate)."""
    ca = str(secure_env.path / "certs" / "ca.crt")
    if case == "kafka-foreign-ca":
        monkeypatch.setenv("MQK_KAFKA_SSL_CA_LOCATION", str(foreign_ca.ca))
    elif case == "kafka-no-client-cert":
        no_cert = tmp_path / "no-cert.properties"
        no_cert.write_text(f"security.protocol=SSL\nssl.ca.location={ca}\n")
        monkeypatch.setenv(config.KAFKA_BOOTSTRAP_ENV, secure_env.mtls_bootstrap)
        monkeypatch.setenv(config.KAFKA_CONFIG_ENV, str(no_cert))
    else:
        url = secure_env.redis_url().replace(ca, str(foreign_ca.ca))
        monkeypatch.setenv(config.REDIS_URL_ENV, url)
    caplog.set_level(logging.DEBUG)
    start = time.monotonic()
    with pytest.raises(pymqi.MQMIError) as exc:
        pymqi.connect(unique_qmgr_name())
    took = time.monotonic() - start
    assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_SSL_INITIALIZATION_ERROR)
    assert took < config.BROKEN_AFTER_S
    assert "TLS handshake" in caplog.text
    _assert_hidden(_secrets(secure_env), caplog.text, _exception_text(exc.value))


def _without_client_cert(url: str) -> str:
    return "&".join(
        part for part in url.split("&") if not part.startswith(("ssl_certfile=", "ssl_keyfile="))
    )


def test_redis_requiring_client_certificates(secure_env, monkeypatch) -> None:
    """Redis with `tls-auth-clients yes` (`mqk stack up --secure --redis-client-certs`,
    ops/run-secure-tests.sh's stack; set here for the test on a stack without it): the
    URL's ssl_certfile / ssl_keyfile reach it and MQI works; the same URL without them
    is refused in the handshake, 2393 at MQCONN."""
    import redis

    admin = redis.Redis.from_url(_harness_redis_url(secure_env))
    before = admin.config_get("tls-auth-clients")["tls-auth-clients"]
    assert before == ("yes" if secure_env.redis_client_certs else "optional")
    admin.config_set("tls-auth-clients", "yes")
    name = unique_qmgr_name()
    try:
        url = secure_env.redis_url()
        assert "ssl_certfile=" in url and "ssl_keyfile=" in url
        monkeypatch.setenv(config.REDIS_URL_ENV, _without_client_cert(url))
        start = time.monotonic()
        with pytest.raises(pymqi.MQMIError) as exc:
            pymqi.connect(name)
        assert mqerror(exc) == (C.MQCC_FAILED, C.MQRC_SSL_INITIALIZATION_ERROR)
        assert time.monotonic() - start < config.BROKEN_AFTER_S  # answered, not retried
        monkeypatch.setenv(config.REDIS_URL_ENV, url)
        qm = pymqi.connect(name)
        try:
            qm.define_queue("MTLS.REDIS.Q")
            q = pymqi.Queue(qm, "MTLS.REDIS.Q", C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT)
            q.put(b"client certificate", pymqi.MD(), NOSYNC_PUT)
            gmo = pymqi.GMO(Options=C.MQGMO_NO_SYNCPOINT)
            assert q.get(None, pymqi.MD(), gmo) == b"client certificate"
            q.close()
        finally:
            qm.disconnect()
    finally:
        monkeypatch.setenv(config.REDIS_URL_ENV, secure_env.redis_url())
        admin.config_set("tls-auth-clients", before)
        admin.close()
        purge_queue_manager(config.endpoints(), name)

"""The secure local stack (`mqk stack up|down|status|env --secure`): one KRaft node with a
SASL_SSL listener (SCRAM-SHA-512) and an SSL listener requiring client certificates
(mTLS), Kafka's StandardAuthorizer with ACLs, and a redis-server on TLS with an ACL user
(the default user off). Certificates and passwords are made for the run (ops/certs.py);
they live in the run folder, never in the checkout.

Ports from BASE (MQK_SECURE_PORT, default 19300): BASE SASL_SSL, BASE+1 SSL (mTLS),
BASE+2 the controller (PLAINTEXT on loopback, not advertised), BASE+3 Redis TLS. The
folder is MQK_SECURE_DIR, default <MQK_HOME>/run/secure.

Principals: `admin` (SCRAM; the inter-broker user and a super user), `app` (SCRAM, and
the CN of the mTLS client certificate: `ssl.principal.mapping.rules` makes both
`User:app`), granted every operation on every topic, group and transactional id and the
cluster through ACLs, not as a super user. The controller listener's connections are
`User:ANONYMOUS`, a super user so the node's broker half can talk to its controller half;
that listener is bound to loopback and never advertised. `harness` is the test
harness's own administrator (a Kafka super user, a Redis ACL user with every command):
what tests need that the application's user is refused on purpose (FLUSHALL to
simulate a Redis loss) goes through it, so `app` keeps its narrow rights.

Redis asks for a client certificate (`tls-auth-clients optional`); with
`redis_client_certs` (`mqk stack up --secure --redis-client-certs`) it requires one
(`tls-auth-clients yes`, mTLS). The URLs carry the user's certificate either way
(`ssl_certfile` / `ssl_keyfile`).

What a client needs is written to files: `client-sasl.properties`,
`client-mtls.properties` (librdkafka's names, for MQK_KAFKA_CONFIG) and `redis.url`
(redis-py's `rediss://app:<password>@...?ssl_ca_certs=...&ssl_certfile=...`); the
harness's `harness.properties` and `redis-harness.url`; `env_lines` points at them and
never prints a secret. Kafka: https://kafka.apache.org/documentation/#security_sasl_scram
(KRaft: SCRAM users at format time, `kafka-storage format --add-scram`),
https://kafka.apache.org/documentation/#security_authz (StandardAuthorizer); Redis:
https://redis.io/docs/latest/operate/oss_and_stack/management/security/encryption/ and
https://redis.io/docs/latest/operate/oss_and_stack/management/security/acl/
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
from dataclasses import asdict, dataclass
from pathlib import Path

from adapter import config
from ops import certs, kafka, procs, redis

USERS = ("admin", "app", "harness")
# Users with an mTLS client certificate (CN = the user, also presented to Redis).
CERT_USERS = ["app", "harness"]

SCRAM = "SCRAM-SHA-512"


def base_port() -> int:
    return int(os.environ.get("MQK_SECURE_PORT", "19300"))


def secure_dir() -> Path:
    return Path(os.environ.get("MQK_SECURE_DIR", config.mqk_home() / "run" / "secure"))


@dataclass
class SecureStack:
    folder: str
    port: int
    kafka_pid: int | None = None
    redis_pid: int | None = None
    redis_client_certs: bool = False  # Redis requires a client certificate (mTLS)

    @property
    def sasl_bootstrap(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def mtls_bootstrap(self) -> str:
        return f"127.0.0.1:{self.port + 1}"

    @property
    def controller_port(self) -> int:
        return self.port + 2

    @property
    def redis_port(self) -> int:
        return self.port + 3

    @property
    def path(self) -> Path:
        return Path(self.folder)

    def secret(self, name: str) -> str:
        return json.loads((self.path / "secrets.json").read_text())[name]

    def client_properties(self, kind: str = "sasl") -> Path:
        return self.path / f"client-{kind}.properties"

    def admin_settings(self) -> dict[str, str]:
        return config.read_properties(self.path / "admin.properties")

    def redis_url(self) -> str:
        return (self.path / "redis.url").read_text().strip()

    def harness_properties(self) -> Path:
        return self.path / "harness.properties"

    def harness_redis_url_file(self) -> Path:
        return self.path / "redis-harness.url"

    def alive(self) -> bool:
        return procs.alive(self.kafka_pid, kafka.MARKER) and procs.alive(
            self.redis_pid, redis.MARKER
        )


def _private(path: Path, text: str) -> Path:
    """A file only this user may read (it holds a secret)."""
    path.touch(mode=0o600, exist_ok=True)
    os.chmod(path, 0o600)
    path.write_text(text)
    return path


def _properties(values: dict[str, str]) -> str:
    return "".join(f"{k}={v}\n" for k, v in values.items())


def _jaas(user: str, password: str) -> str:
    return (
        "org.apache.kafka.common.security.scram.ScramLoginModule required "
        f'username="{user}" password="{password}";'
    )


def server_properties(st: SecureStack, c: certs.Certs, admin_password: str) -> str:
    data = st.path / "kafka" / "kafka-data"  # where ops/kafka.start formats it
    base = kafka.server_properties(data, st.port, st.controller_port)
    # The plaintext listener lines of the plain node give way to the secure ones.
    keep = [
        line
        for line in base.splitlines()
        if not line.startswith(
            (
                "listeners=",
                "advertised.listeners=",
                "inter.broker.listener.name=",
                "listener.security.protocol.map=",
            )
        )  # fmt: skip
    ]
    secure = {
        "listeners": f"SASL_SSL://127.0.0.1:{st.port},SSL://127.0.0.1:{st.port + 1},"
        f"CONTROLLER://127.0.0.1:{st.controller_port}",
        "advertised.listeners": f"SASL_SSL://127.0.0.1:{st.port},SSL://127.0.0.1:{st.port + 1}",
        "listener.security.protocol.map": "SASL_SSL:SASL_SSL,SSL:SSL,CONTROLLER:PLAINTEXT",
        "inter.broker.listener.name": "SASL_SSL",
        "sasl.enabled.mechanisms": SCRAM,
        "sasl.mechanism.inter.broker.protocol": SCRAM,
        f"listener.name.sasl_ssl.{SCRAM.lower()}.sasl.jaas.config": _jaas("admin", admin_password),
        "listener.name.ssl.ssl.client.auth": "required",
        "ssl.keystore.type": "PKCS12",
        "ssl.keystore.location": str(c.server_p12),
        "ssl.keystore.password": c.p12_password,
        "ssl.truststore.type": "PEM",
        "ssl.truststore.location": str(c.ca),
        # CN=app,... -> User:app, the same principal as the SCRAM user app.
        "ssl.principal.mapping.rules": "RULE:^CN=([^,]+).*$/$1/,DEFAULT",
        "authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
        "super.users": "User:admin;User:harness;User:ANONYMOUS",
        "allow.everyone.if.no.acl.found": "false",
    }
    return "\n".join(keep) + "\n" + _properties(secure)


def redis_conf(st: SecureStack, c: certs.Certs, passwords: dict[str, str]) -> str:
    data = st.path / "redis-data"
    data.mkdir(parents=True, exist_ok=True)
    return (
        "bind 127.0.0.1\nport 0\n"
        f"tls-port {st.redis_port}\n"
        f"tls-cert-file {c.server_cert}\ntls-key-file {c.server_key}\n"
        f"tls-ca-cert-file {c.ca}\n"
        f"tls-auth-clients {'yes' if st.redis_client_certs else 'optional'}\n"
        f'dir {data}\nsave ""\nappendonly no\ndaemonize no\n'
        "user default off\n"
        f"user admin on >{passwords['admin']} ~* &* +@all\n"
        f"user harness on >{passwords['harness']} ~* &* +@all\n"
        f"user app on >{passwords['app']} ~mqk:* &* +@all -@dangerous +info +client\n"
    )


def _redis_url(st: SecureStack, c: certs.Certs, user: str, password: str) -> str:
    """redis-py's URL for `user` over TLS, with the user's client certificate (needed
    when Redis requires one; presented anyway otherwise)."""
    cert = c.client(user)
    return (
        f"rediss://{user}:{password}@127.0.0.1:{st.redis_port}/0"
        f"?ssl_ca_certs={c.ca}&ssl_cert_reqs=required"
        f"&ssl_certfile={cert.cert}&ssl_keyfile={cert.key}\n"
    )


def _write_client_files(st: SecureStack, c: certs.Certs, passwords: dict[str, str]) -> None:
    tls = {"ssl.ca.location": str(c.ca)}
    names = {"app": "client-sasl", "admin": "admin", "harness": "harness"}
    for user in USERS:
        _private(
            st.path / f"{names[user]}.properties",
            _properties(
                {
                    "security.protocol": "SASL_SSL",
                    "sasl.mechanism": SCRAM,
                    "sasl.username": user,
                    "sasl.password": passwords[user],
                    **tls,
                }
            ),
        )
    app = c.client("app")
    _private(
        st.client_properties("mtls"),
        _properties(
            {
                "security.protocol": "SSL",
                "ssl.certificate.location": str(app.cert),
                "ssl.key.location": str(app.key),
                **tls,
            }
        ),
    )
    _private(st.path / "redis.url", _redis_url(st, c, "app", passwords["app"]))
    _private(st.harness_redis_url_file(), _redis_url(st, c, "harness", passwords["harness"]))


def _grant_app(st: SecureStack) -> None:
    """Every operation on every topic, group, transactional id and the cluster for
    User:app, as ACL bindings (what an administrator of a real cluster would grant)."""
    from confluent_kafka.admin import (
        AclBinding,
        AclOperation,
        AclPermissionType,
        AdminClient,
        ResourcePatternType,
        ResourceType,
    )

    admin = AdminClient({"bootstrap.servers": st.sasl_bootstrap, **st.admin_settings()})
    bindings = [
        AclBinding(
            kind,
            name,
            ResourcePatternType.LITERAL,
            "User:app",
            "*",
            AclOperation.ALL,
            AclPermissionType.ALLOW,
        )  # fmt: skip
        for kind, name in (
            (ResourceType.TOPIC, "*"),
            (ResourceType.GROUP, "*"),
            (ResourceType.TRANSACTIONAL_ID, "*"),
            (ResourceType.BROKER, "kafka-cluster"),
        )
    ]
    for fut in admin.create_acls(bindings, request_timeout=30).values():
        fut.result(30)


def add_scram_user(st: SecureStack, user: str, password: str) -> None:
    """A SCRAM-SHA-512 user more (as `kafka-configs --alter --add-config
    SCRAM-SHA-512=[password=...]` would), with no ACLs: `mqk setmqaut --apply` grants."""
    from confluent_kafka.admin import (
        AdminClient,
        ScramCredentialInfo,
        ScramMechanism,
        UserScramCredentialUpsertion,
    )

    admin = AdminClient({"bootstrap.servers": st.sasl_bootstrap, **st.admin_settings()})
    info = ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096)
    upsert = UserScramCredentialUpsertion(user, info, password.encode(), secrets.token_bytes(16))
    for fut in admin.alter_user_scram_credentials([upsert], request_timeout=30).values():
        fut.result(30)


def _state_file(folder: Path) -> Path:
    return folder / "secure.json"


def load(folder: Path | None = None) -> SecureStack | None:
    path = _state_file(folder or secure_dir())
    if not path.exists():
        return None
    return SecureStack(**json.loads(path.read_text()))


def up(
    folder: Path | None = None, port: int | None = None, *, redis_client_certs: bool = False
) -> SecureStack:
    """Start the secure stack (or return the running one, whatever its Redis mode).
    `redis_client_certs`: Redis requires a client certificate (`tls-auth-clients yes`)."""
    folder = folder or secure_dir()
    running = load(folder)
    if running is not None and running.alive():
        return running
    if running is not None:
        down(folder)
    st = SecureStack(str(folder), port or base_port(), redis_client_certs=redis_client_certs)
    # Every run has new passwords and certificates: an old run's broker data holds the
    # SCRAM users of its own passwords (KRaft takes them only at format time), so the
    # data of a stopped run goes too. The secure stack is for tests and trials.
    for old in ("kafka", "kafka-data", "redis-data", "certs"):
        shutil.rmtree(folder / old, ignore_errors=True)
    folder.mkdir(parents=True, exist_ok=True)
    os.chmod(folder, 0o700)
    passwords = {u: secrets.token_urlsafe(18) for u in USERS}
    _private(folder / "secrets.json", json.dumps(passwords))
    c = certs.make(folder / "certs", CERT_USERS, secrets.token_urlsafe(12))
    _write_client_files(st, c, passwords)
    scram = tuple(
        arg for u in USERS for arg in ("--add-scram", f"{SCRAM}=[name={u},password={passwords[u]}]")
    )
    try:
        st.kafka_pid = kafka.start(
            folder / "kafka",
            st.port,
            st.controller_port,
            kafka.HEAP_MB // 2,
            properties=server_properties(st, c, passwords["admin"]),
            format_args=scram,
        )
        os.chmod(folder / "kafka" / "server.properties", 0o600)
        conf = _private(folder / "redis.conf", redis_conf(st, c, passwords))
        st.redis_pid = procs.start_detached(
            [redis.ensure_installed(), str(conf)], folder / "redis.log"
        )
        _state_file(folder).write_text(json.dumps(asdict(st)))
        kafka.wait_ready(
            st.sasl_bootstrap, st.kafka_pid, folder / "kafka" / "kafka.log",
            client=st.admin_settings(),
        )  # fmt: skip
        redis.wait_ready(st.redis_url(), st.redis_pid, folder / "redis.log")
        _grant_app(st)
    except BaseException:
        down(folder)
        raise
    return st


def down(folder: Path | None = None, wipe: bool = False) -> bool:
    """Stop both servers; whether anything ran. The folder (certificates, passwords,
    data) stays until the next `up` replaces it, or goes with `wipe`."""
    folder = folder or secure_dir()
    st = load(folder)
    if st is None:
        if wipe:
            shutil.rmtree(folder, ignore_errors=True)
        return False
    ran = False
    for pid, marker in ((st.kafka_pid, kafka.MARKER), (st.redis_pid, redis.MARKER)):
        if procs.alive(pid, marker):
            procs.stop(pid, marker)
            ran = True
    _state_file(st.path).unlink(missing_ok=True)
    if wipe:
        shutil.rmtree(folder, ignore_errors=True)
    return ran


def env_lines(
    folder: Path | None = None, kind: str = "sasl", *, harness: bool = False
) -> list[str]:
    """Exports for a client of the running secure stack (`kind` "sasl" or "mtls"),
    for `eval "$(mqk stack env --secure)"`: the secrets stay in the files named.
    `harness`: also the test harness's administrator files (MQK_TEST_ADMIN_*)."""
    st = load(folder or secure_dir())
    if st is None or not st.alive():
        return []
    bootstrap = st.sasl_bootstrap if kind == "sasl" else st.mtls_bootstrap
    lines = [
        f"export {config.KAFKA_BOOTSTRAP_ENV}={bootstrap}",
        f"export {config.KAFKA_CONFIG_ENV}={st.client_properties(kind)}",
        f'export {config.REDIS_URL_ENV}="$(cat {st.path / "redis.url"})"',
    ]
    if harness:
        lines += [
            f"export {config.TEST_ADMIN_KAFKA_CONFIG_ENV}={st.harness_properties()}",
            f"export {config.TEST_ADMIN_REDIS_URL_FILE_ENV}={st.harness_redis_url_file()}",
        ]
    return lines

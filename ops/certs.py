"""Certificates for one run of the secure local stack (ops/secure.py), made with openssl.

A CA of the run, a server certificate for 127.0.0.1 / localhost (the Kafka broker and
Redis share it) and a client certificate per mTLS user (CN = the user name, which the
broker's `ssl.principal.mapping.rules` turns into `User:<name>`). Everything lands in
one folder of the run directory, keys readable by this user only; nothing here is ever
committed (the run directory is outside the checkout).

Forms each consumer reads: PEM files for librdkafka (`ssl.ca.location`,
`ssl.certificate.location`, `ssl.key.location`) and redis-py (`ssl_ca_certs`); a
PKCS#12 keystore for the broker (`ssl.keystore.type=PKCS12`) and a PEM truststore
(`ssl.truststore.type=PEM`, Kafka 2.7+: KIP-651); for Java clients (the Spark job) a
PEM keystore file holding the client's PKCS#8 key and its certificate.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

DAYS = "30"


class CertError(RuntimeError):
    pass


@dataclass(frozen=True)
class ClientCert:
    cert: Path
    key: Path
    java_pem: Path  # key + certificate in one file (ssl.keystore.type=PEM)


@dataclass(frozen=True)
class Certs:
    folder: Path
    ca: Path
    server_cert: Path
    server_key: Path
    server_p12: Path
    p12_password: str

    def client(self, user: str) -> ClientCert:
        return ClientCert(
            self.folder / f"{user}.crt", self.folder / f"{user}.key", self.folder / f"{user}.pem"
        )


def _openssl(*args: str, cwd: Path) -> None:
    exe = shutil.which("openssl")
    if exe is None:
        raise CertError("openssl is not installed: apt-get install openssl")
    proc = subprocess.run([exe, *args], cwd=cwd, capture_output=True, text=True)
    if proc.returncode != 0:
        # openssl's stderr names files and subjects, never a password (given by -passout)
        raise CertError(f"openssl {args[0]} failed: {proc.stderr.strip()[-800:]}")


def _key(folder: Path, name: str) -> None:
    _openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256",
             "-out", name, cwd=folder)  # fmt: skip
    os.chmod(folder / name, 0o600)


def _signed(folder: Path, name: str, subject: str, ext: str) -> None:
    """`name`.key and `name`.crt signed by the run's CA with extensions `ext`."""
    _key(folder, f"{name}.key")
    (folder / f"{name}.ext").write_text(ext)
    _openssl("req", "-new", "-key", f"{name}.key", "-subj", subject, "-out", f"{name}.csr",
             cwd=folder)  # fmt: skip
    _openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.crt", "-CAkey", "ca.key",
             "-CAcreateserial", "-days", DAYS, "-sha256", "-extfile", f"{name}.ext",
             "-out", f"{name}.crt", cwd=folder)  # fmt: skip


def make(folder: Path, users: list[str], p12_password: str) -> Certs:
    """A new CA, the server's certificate and one client certificate per user."""
    folder.mkdir(parents=True, exist_ok=True)
    os.chmod(folder, 0o700)
    _key(folder, "ca.key")
    _openssl("req", "-x509", "-new", "-key", "ca.key", "-subj", "/CN=mqk local stack CA",
             "-days", DAYS, "-sha256", "-out", "ca.crt", cwd=folder)  # fmt: skip
    server_ext = (
        "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth\n"
    )
    _signed(folder, "server", "/CN=localhost", server_ext)
    _openssl("pkcs12", "-export", "-in", "server.crt", "-inkey", "server.key",
             "-certfile", "ca.crt", "-name", "server", "-out", "server.p12",
             "-passout", f"pass:{p12_password}", cwd=folder)  # fmt: skip
    os.chmod(folder / "server.p12", 0o600)
    for user in users:
        _signed(folder, user, f"/CN={user}", "extendedKeyUsage=clientAuth\n")
        # PKCS#8 key then the certificate: Java's PEM keystore form.
        _openssl("pkcs8", "-topk8", "-nocrypt", "-in", f"{user}.key", "-out", f"{user}.p8",
                 cwd=folder)  # fmt: skip
        pem = folder / f"{user}.pem"
        pem.write_text((folder / f"{user}.p8").read_text() + (folder / f"{user}.crt").read_text())
        os.chmod(pem, 0o600)
    return Certs(
        folder,
        folder / "ca.crt",
        folder / "server.crt",
        folder / "server.key",
        folder / "server.p12",
        p12_password,
    )

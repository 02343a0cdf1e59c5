"""The client side of the SASL mechanisms Kafka clients of the library may be set to
use and the disk guard's own connections can speak (shim/logdirs.py): PLAIN and
SCRAM-SHA-256 / SCRAM-SHA-512. Pure: messages in, messages out.

PLAIN (RFC 4616): one message, `authzid NUL authcid NUL password` (no authzid).

SCRAM (RFC 5802, with SHA-256 as RFC 7677 names it; Kafka's KIP-84): the client sends
`n,,n=<user>,r=<client nonce>`; the server answers `r=<nonce>,s=<salt>,i=<iterations>`;
the client proves it knows the password with `c=biws,r=<nonce>,p=<proof>` and checks the
server's `v=<signature>` (or fails on `e=<error>`). The user name escapes `=` and `,`
as `=3D` and `=2C`; Kafka's own client sends the password's UTF-8 bytes as they are
(no SASLprep), and so does this one.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

MECHANISMS = {"SCRAM-SHA-256": "sha256", "SCRAM-SHA-512": "sha512"}
_GS2_HEADER = "n,,"


class SaslError(Exception):
    """The server's SCRAM messages do not check out (never carries the password)."""


def plain_message(user: str, password: str) -> bytes:
    return b"\0" + user.encode() + b"\0" + password.encode()


def _saslname(user: str) -> str:
    return user.replace("=", "=3D").replace(",", "=2C")


def _fields(message: str) -> dict[str, str]:
    out = {}
    for part in message.split(","):
        if len(part) < 2 or part[1] != "=":
            raise SaslError("a SCRAM server message that is not key=value pairs")
        out[part[0]] = part[2:]
    return out


class ScramClient:
    """One SCRAM exchange: `first()`, `final(server_first)`, `verify(server_final)`."""

    def __init__(self, mechanism: str, user: str, password: str, nonce: str | None = None):
        if mechanism not in MECHANISMS:
            raise ValueError(f"not a SCRAM mechanism: {mechanism}")
        self._hash = MECHANISMS[mechanism]
        self._user = user
        self._password = password
        self._nonce = nonce or secrets.token_urlsafe(24)
        self._first_bare = f"n={_saslname(user)},r={self._nonce}"
        self._server_signature: bytes | None = None

    def _hmac(self, key: bytes, msg: bytes) -> bytes:
        return hmac.new(key, msg, self._hash).digest()

    def first(self) -> bytes:
        return (_GS2_HEADER + self._first_bare).encode()

    def final(self, server_first: bytes) -> bytes:
        text = server_first.decode()
        got = _fields(text)
        if "e" in got:
            raise SaslError(f"the server refused the exchange: {got['e']}")
        nonce, salt, rounds = got.get("r", ""), got.get("s"), got.get("i", "")
        if not nonce.startswith(self._nonce) or nonce == self._nonce:
            raise SaslError("the server's nonce does not extend the client's")
        if salt is None or not rounds.isdigit() or int(rounds) < 1:
            raise SaslError("the server's salt or iteration count is missing")
        salted = hashlib.pbkdf2_hmac(
            self._hash, self._password.encode(), base64.b64decode(salt), int(rounds)
        )
        client_key = self._hmac(salted, b"Client Key")
        stored_key = hashlib.new(self._hash, client_key).digest()
        without_proof = "c=" + base64.b64encode(_GS2_HEADER.encode()).decode() + ",r=" + nonce
        auth_message = f"{self._first_bare},{text},{without_proof}".encode()
        signature = self._hmac(stored_key, auth_message)
        proof = bytes(a ^ b for a, b in zip(client_key, signature, strict=True))
        server_key = self._hmac(salted, b"Server Key")
        self._server_signature = self._hmac(server_key, auth_message)
        return (without_proof + ",p=" + base64.b64encode(proof).decode()).encode()

    def verify(self, server_final: bytes) -> None:
        got = _fields(server_final.decode())
        if "e" in got:
            raise SaslError(f"the server refused the proof: {got['e']}")
        if self._server_signature is None:
            raise SaslError("the server's final message came before the client's")
        if not hmac.compare_digest(base64.b64decode(got.get("v", "")), self._server_signature):
            raise SaslError("the server's signature does not match: not the server we know")

"""The disk guard's SASL client messages (adapter/shim/scram.py): RFC 7677's SCRAM-SHA-256
example exchange byte for byte, and SCRAM-SHA-512 checked the way a broker checks a
proof (RFC 5802 section 3: the server recovers ClientKey from the proof and compares
H(ClientKey) with the StoredKey it keeps)."""

from __future__ import annotations

import base64
import hashlib
import hmac

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adapter.shim.scram import SaslError, ScramClient, plain_message


def test_rfc_7677_example_exchange() -> None:
    c = ScramClient("SCRAM-SHA-256", "user", "pencil", nonce="rOprNGfwEbeRWgbNEkqO")
    assert c.first() == b"n,,n=user,r=rOprNGfwEbeRWgbNEkqO"
    server_first = (
        b"r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"
    )
    assert c.final(server_first) == (
        b"c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
        b"p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="
    )
    c.verify(b"v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=")


class _Server:
    """The broker's side of SCRAM-SHA-512 for one user, from RFC 5802."""

    def __init__(self, password: str, salt: bytes = b"salt-1234", rounds: int = 4096) -> None:
        salted = hashlib.pbkdf2_hmac("sha512", password.encode(), salt, rounds)
        self.stored = hashlib.sha512(self._hmac(salted, b"Client Key")).digest()
        self.server_key = self._hmac(salted, b"Server Key")
        self.salt, self.rounds = salt, rounds

    @staticmethod
    def _hmac(key: bytes, msg: bytes) -> bytes:
        return hmac.new(key, msg, "sha512").digest()

    def first(self, client_first: bytes) -> bytes:
        assert client_first.startswith(b"n,,")
        self.client_first_bare = client_first[3:].decode()
        nonce = dict(p.split("=", 1) for p in self.client_first_bare.split(","))["r"]
        salt = base64.b64encode(self.salt).decode()
        self.server_first = f"r={nonce}SERVER,s={salt},i={self.rounds}"
        return self.server_first.encode()

    def final(self, client_final: bytes, *, check: bool = True) -> bytes:
        text = client_final.decode()
        without_proof, proof = text.rsplit(",p=", 1)
        auth = f"{self.client_first_bare},{self.server_first},{without_proof}".encode()
        client_key = bytes(
            a ^ b
            for a, b in zip(base64.b64decode(proof), self._hmac(self.stored, auth), strict=True)
        )
        if check and hashlib.sha512(client_key).digest() != self.stored:
            return b"e=invalid-proof"
        return b"v=" + base64.b64encode(self._hmac(self.server_key, auth))


@settings(max_examples=20, deadline=None)
@given(
    st.text(min_size=1, max_size=12).filter(lambda s: "\0" not in s),
    st.text(max_size=12),
)
def test_scram_sha_512_proves_the_password_to_a_server_and_checks_the_server(user, password):
    server = _Server(password)
    c = ScramClient("SCRAM-SHA-512", user, password)
    first = c.first()
    # The user name is escaped, so a ',' or '=' in it cannot forge another attribute.
    assert first.decode()[3:].split(",r=")[0] == "n=" + user.replace("=", "=3D").replace(",", "=2C")
    c.verify(server.final(c.final(server.first(first))))


def test_a_wrong_password_fails_at_the_server_and_the_client_sees_its_error() -> None:
    server = _Server("right")
    c = ScramClient("SCRAM-SHA-512", "app", "wrong")
    answer = server.final(c.final(server.first(c.first())))
    assert answer == b"e=invalid-proof"
    with pytest.raises(SaslError, match="invalid-proof") as err:
        c.verify(answer)
    assert "wrong" not in str(err.value)


def test_a_server_that_does_not_know_the_password_is_caught() -> None:
    impostor = _Server("guessed")  # answers as the server, without the real keys
    c = ScramClient("SCRAM-SHA-512", "app", "right")
    answer = impostor.final(c.final(impostor.first(c.first())), check=False)
    assert answer.startswith(b"v=")
    with pytest.raises(SaslError, match="signature"):
        c.verify(answer)


@pytest.mark.parametrize(
    "server_first,why",
    [
        (b"r=someone-elses-nonce,s=c2FsdA==,i=4096", "nonce"),
        (b"r={nonce},s=c2FsdA==,i=4096", "nonce"),  # not extended by the server
        (b"r={nonce}X,i=4096", "salt"),
        (b"r={nonce}X,s=c2FsdA==,i=0", "salt"),
        (b"e=unknown-user", "refused"),
        (b"garbage", "key=value"),
    ],
)
def test_a_malformed_server_first_message_is_refused(server_first: bytes, why: str) -> None:
    c = ScramClient("SCRAM-SHA-256", "u", "p", nonce="abc")
    with pytest.raises(SaslError, match=why):
        c.final(server_first.replace(b"{nonce}", b"abc"))


def test_plain_message_and_unknown_mechanisms() -> None:
    assert plain_message("app", "pw") == b"\0app\0pw"
    with pytest.raises(ValueError):
        ScramClient("SCRAM-SHA-1", "u", "p")

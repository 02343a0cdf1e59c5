"""The secure stack for tests (ops/secure.py): the module-scoped fixture `secure_stack`
(import `secure_stack_fixture` into a test module) and a listener's client environment.

It reuses a secure stack `mqk stack up --secure` started (ops/run-secure-tests.sh, CI),
else starts one (MQK_SECURE_PORT, default 19300..19303; MQK_SECURE_DIR, default a
temporary folder) and stops it after the module."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from adapter import config
from ops import secure


@pytest.fixture(scope="module", name="secure_stack")
def secure_stack_fixture(tmp_path_factory) -> Iterator[secure.SecureStack]:
    running = secure.load(secure.secure_dir())
    if running is not None and running.alive():  # `mqk stack up --secure` (the CI slice)
        yield running
        return
    folder = Path(os.environ.get("MQK_SECURE_DIR") or tmp_path_factory.mktemp("secure"))
    st = secure.up(folder, secure.base_port())
    yield st
    secure.down(folder, wipe="MQK_SECURE_DIR" not in os.environ)


def client_env(st: secure.SecureStack, kind: str = "sasl") -> dict[str, str]:
    return {
        config.KAFKA_BOOTSTRAP_ENV: st.sasl_bootstrap if kind == "sasl" else st.mtls_bootstrap,
        config.KAFKA_CONFIG_ENV: str(st.client_properties(kind)),
        config.REDIS_URL_ENV: st.redis_url(),
    }

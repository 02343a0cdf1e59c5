"""The delivery-failure scenarios of tests/integration/test_pubsub_delivery.py on the
in-memory backends (tests/unit/conftest.py)."""

from __future__ import annotations

from tests.integration.test_pubsub_delivery import *  # noqa: F403

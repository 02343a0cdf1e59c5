"""The ALTER SUB / Change / Copy Subscription scenarios of
tests/integration/test_pubsub_subalter.py on the in-memory backends
(tests/unit/conftest.py)."""

from __future__ import annotations

from tests.integration.test_pubsub_subalter import *  # noqa: F403

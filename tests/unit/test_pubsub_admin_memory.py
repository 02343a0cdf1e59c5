"""The topic-attribute scenarios of tests/integration/test_pubsub_admin.py on the
in-memory backends (tests/unit/conftest.py)."""

from __future__ import annotations

from tests.integration.test_pubsub_admin import *  # noqa: F403

"""The administered-subscription scenarios of tests/integration/test_pubsub_subadmin.py
on the in-memory backends (tests/unit/conftest.py)."""

from __future__ import annotations

from tests.integration.test_pubsub_subadmin import *  # noqa: F403

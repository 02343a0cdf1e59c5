"""The PCF topic scenarios of tests/integration/test_pcf_topic.py on the in-memory
backends (tests/unit/conftest.py)."""

from __future__ import annotations

from tests.integration.test_pcf_topic import *  # noqa: F403

"""The PCF subscription scenarios of tests/integration/test_pcf_sub.py on the in-memory
backends (tests/unit/conftest.py)."""

from __future__ import annotations

from tests.integration.test_pcf_sub import *  # noqa: F403

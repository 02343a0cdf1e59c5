"""pymqi-compatible constants module ``CMQXC`` (``adapter.pymqi.CMQXC.MQ...``).

A facade over :mod:`adapter.core.cmqxc`; it re-exports every public name of that module
and defines nothing itself.
"""

from adapter.core.cmqxc import *  # noqa: F403

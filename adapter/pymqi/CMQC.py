"""pymqi-compatible constants module, so that ``adapter.pymqi.CMQC.MQGMO_WAIT`` works.

A facade over :mod:`adapter.core.cmqc` (cmqc.h names and values); it re-exports every
public name of that module and defines nothing itself.
"""

from adapter.core.cmqc import *  # noqa: F403

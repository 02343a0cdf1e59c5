"""pymqi-compatible constants module ``CMQCFC`` (``adapter.pymqi.CMQCFC.MQ...``).

A facade over :mod:`adapter.core.cmqcfc`; it re-exports every public name of that module
and defines nothing itself.
"""

from adapter.core.cmqcfc import *  # noqa: F403

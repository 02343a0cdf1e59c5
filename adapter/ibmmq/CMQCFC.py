"""ibmmq-compatible constants module ``CMQCFC`` (``adapter.ibmmq.CMQCFC.MQ...``): a facade over
:mod:`adapter.core.cmqcfc`, re-exporting every public name; it defines nothing itself.
"""

from adapter.core.cmqcfc import *  # noqa: F403

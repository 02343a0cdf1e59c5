"""ibmmq-compatible constants module ``CMQC`` (``adapter.ibmmq.CMQC.MQ...``): a facade over
:mod:`adapter.core.cmqc`, re-exporting every public name; it defines nothing itself.
"""

from adapter.core.cmqc import *  # noqa: F403

"""ibmmq-compatible constants module ``CMQXC`` (``adapter.ibmmq.CMQXC.MQ...``): a facade over
:mod:`adapter.core.cmqxc`, re-exporting every public name; it defines nothing itself.
"""

from adapter.core.cmqxc import *  # noqa: F403

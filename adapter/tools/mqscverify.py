"""runmqsc -v: "Specifies that the commands entered are to be verified without
performing the action" (runmqsc, https://www.ibm.com/docs/SSFKSJ_9.4.0/refadmin/q083460_.html;
"Verify MQSC commands but do not run them. An output report is generated indicating the
success or failure of each command").

mqk verifies with the same processor that runs the commands (adapter/tools/mqscrun.py),
on a stand-in for the connection: every check that needs no queue manager (the parse,
the keywords each command takes, enumerated values, the attribute values' domain) runs
as usual, and the first call that would read or change the queue manager stops the
command there as verified. So -v reports exactly the syntax errors a real run would,
and performs nothing.
"""

from __future__ import annotations

from typing import Any, NoReturn


class Verified(Exception):  # noqa: N818 - a signal, not an error
    """The command reached the queue manager's part: verified, not performed."""


class VerifyOnly:
    """The stand-in connection: any use of it ends the command as verified."""

    def __getattr__(self, name: str) -> Any:
        def stop(*_args: Any, **_kwargs: Any) -> NoReturn:
            raise Verified(name)

        return stop

"""The alias side of a queue handle opened through an alias queue, or through a local
definition of a remote queue (QREMOTE: the handle works on its transmission queue, and
the definition plays the alias's part: its defaults, its PUT(DISABLED), its open count,
MQINQ of its attributes; its resolution is RNAME, RQMNAME and XMITQ).

MQOPEN of an alias resolves it to its target once (Connection.open); the handle then
works on the target's messages with the attributes catalog.through_alias gives it. This
binding keeps what the alias adds:

- a registration in the alias's own `opens` (kind 'alias', never exclusive), so DELETE
  QALIAS is refused while the alias is open and ALTER of its TARGET needs FORCE (IBM,
  DELETE queues: "If an application has this queue open, or has open a queue that
  eventually resolves to this queue, the command fails"
  <https://ibm.com/docs/SSFKSJ_9.3.0/refadmin/q085890_.html>; the registration on the
  target keeps the target's DELETE out too);
- the alias's current definition, read on each call through its definition mark (no
  round trip while unchanged): an ALTER of its defaults or GET/PUT applies to the next
  call; a change of the resolution made at MQOPEN (a forced TARGET change, the alias
  deleted and defined anew) is MQRC_OBJECT_CHANGED (core/resolution.py). MQINQ is
  stricter: once the alias's attributes changed at all since MQOPEN it fails with
  MQRC_OBJECT_CHANGED (`changed`; "Some cases where the MQINQ call fails"
  <https://www.ibm.com/docs/en/SSFKSJ_9.2.0/develop/q026770_.html>: "The call also fails
  if the attributes of the alias queue object are changed").
"""

from __future__ import annotations

import logging

from adapter import config
from adapter.core import cmqc as C
from adapter.core.errors import fail
from adapter.core.resolution import target_changed_error
from adapter.shim.catalog import Catalog, QueueDef
from adapter.shim.store import QueueDeletedError, StateStore

log = logging.getLogger("mqk.shim.alias")

ALIAS_KIND = "alias"


class AliasBinding:
    def __init__(self, catalog: Catalog, store: StateStore, alias: QueueDef, handle_id: str):
        self.catalog = catalog
        self.qdef = alias
        self.name = alias.name
        self.target = _resolution(alias)  # the resolution made at MQOPEN
        self.state = store.queue(alias.name)
        self.handle_id = handle_id
        self._mark = catalog.mark_of(alias.name)
        self.changed = False  # the alias's attributes changed since MQOPEN

    def register(self) -> None:
        """Count the handle as an open of the alias (MQRC_UNKNOWN_OBJECT_NAME when the
        alias is being deleted or was, since the lookup)."""
        try:
            self.state.register_open(self.handle_id, ALIAS_KIND, config.OPEN_LEASE_MS)
        except QueueDeletedError:
            raise fail(C.MQRC_UNKNOWN_OBJECT_NAME) from None

    def renew(self) -> None:
        try:
            self.state.register_open(self.handle_id, ALIAS_KIND, config.OPEN_LEASE_MS)
        except QueueDeletedError:
            # Only a forced delete gets here; the next call's refresh says so.
            log.info("alias %s: not renewed, it is being deleted or was", self.name)

    def unregister(self) -> None:
        self.state.unregister_open(self.handle_id)

    def refresh(self) -> bool:
        """True when the alias's attributes changed since the last call (self.qdef is
        the new definition); MQRC_OBJECT_CHANGED when its resolution did. Asked by
        QueueHandle.current, after the call's run-state check."""
        mark = self.state.definition(in_call=True)
        if mark == self._mark:
            return False
        alias = self.catalog.lookup(self.name, refresh=True)
        same = (
            alias is not None
            and alias.queue_type == self.qdef.queue_type
            and alias.incarnation == self.qdef.incarnation
        )
        reason = target_changed_error(self.target, _resolution(alias) if same else None)
        if reason is not None:
            raise fail(reason)
        self.qdef, self._mark = alias, self.catalog.mark_of(self.name)
        self.changed = True
        return True


def _resolution(definition: QueueDef) -> str:
    """What MQOPEN resolved through the definition: an alias's TARGET; a remote queue's
    RNAME, RQMNAME and XMITQ."""
    if definition.is_remote:
        return "\0".join(
            (definition.remote_q_name, definition.remote_q_mgr_name, definition.xmit_q_name)
        )
    return definition.target

"""Message channels (SDR / RCVR): the channel agent that moves messages from a
transmission queue to another queue manager's queues (agent.py), its sync records on
SYSTEM.CHANNEL.SYNCQ (syncq.py), its status (status.py) and the operator's commands
(control.py). A face-level component: an MQ application on the pymqi face."""

from adapter.channel.agent import Agent, ChannelError, run_channel

__all__ = ["Agent", "ChannelError", "run_channel"]

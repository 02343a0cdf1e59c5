"""`mqk demo`: the main job on the embedded local stack.

Starts the local stack unless MQK_KAFKA_BOOTSTRAP / MQK_REDIS_URL point elsewhere, puts
the example of IBM's 'Logical and physical ordering' (A, group Y with a segmented third
message, group Z with message 2 overtaking message 1, B) and a larger generated workload
in scrambled physical order, runs the Spark reassembly job, and prints the physical
order, the logical order, the reassembled messages and the expiry reports.
"""

from __future__ import annotations


def run(out=print) -> int:
    from streaming import demo

    return demo.run(out=out)

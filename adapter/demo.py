"""`mqk demo`: the main job on the embedded local stack.

Starts the local stack unless MQK_KAFKA_BOOTSTRAP / MQK_REDIS_URL point elsewhere, puts
the example of IBM's 'Logical and physical ordering' (A, group Y with a segmented third
message, group Z with message 2 overtaking message 1, B) and a larger generated workload
in scrambled physical order, runs the Spark reassembly job, and prints the physical
order, the logical order, the reassembled messages and the expiry reports.

Its output is its own lines; `verbose` adds Spark's warnings, librdkafka's log and the
job's per-batch progress.
"""

from __future__ import annotations


def run(out=print, *, verbose: bool = False) -> int:
    from adapter.logs import setup_logging
    from streaming import demo  # optional: the demo is the Spark job (pyspark, ops' stack)

    setup_logging(verbose, level="INFO" if verbose else "WARNING")
    return demo.run(out=out, verbose=verbose)

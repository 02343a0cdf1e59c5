"""`mqk bench`: the shim measured side by side with raw confluent-kafka on the same stack.

One module per benchmark pair (puts, gets, logical order, the 64 MiB message, units of
work, latency, the Spark job, Kafka's Java tools); `suite` runs them, `report` prints
the table and writes docs/benchmarks.md with plots, `profiling` profiles the hot paths.
"""

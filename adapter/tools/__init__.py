"""Command-line tools MQ people know, built on the pymqi face: `mqk put`, `mqk get` and
`mqk browse` (IBM's amqsput, amqsget and amqsbcg samples). They are `mqk` commands
through the `mqk.commands` entry-point group; nothing in the library imports them."""

"""The first stage: bytes and text to decoded records. ``binary`` (record batches, the metadata frame, every record
schema), ``text`` (``kafka-dump-log`` output, JSON lines, ``server.properties``), ``files`` (one input file, whatever
its kind, to rows of bronze tables or quarantine rows), ``redaction`` (secrets replaced at ingest) and ``excerpts``
(the bounded, redacted snippets a quarantine row shows)."""

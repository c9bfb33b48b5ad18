"""Pure-Python codec for KRaft ``__cluster_metadata`` files (log segments and snapshots).

``decode.decode_file`` turns a file's bytes into ``DecodedRecord`` / ``QuarantineItem``; ``encode`` writes
records, batches, segments and snapshots. Both are driven by the schema table in ``schemas.record_schemas``.
"""

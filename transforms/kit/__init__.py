"""Small pieces every stage shares: release and level ranks, the metadata.version parser, timestamp and size bounds,
local frames, the ``Keep`` protocol through which a transform names the frames a job may hold, finding rows, the
audit's scope filters and the pause of Python's cycle collector around allocation-heavy loops."""

"""The ingest as steps: ``hashing`` (which files are new), ``history`` (what earlier ingests recorded), ``load``
(decode and write the bronze tables); ``settings`` says what an ingest is asked. ``jobs.ingest`` runs them in order."""

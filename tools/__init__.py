"""Maintenance tools run by hand (never by tests or CI against real inputs); see each package's docstring."""

"""kraft-audit jobs."""

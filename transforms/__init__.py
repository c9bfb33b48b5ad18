"""kraft-audit transforms."""

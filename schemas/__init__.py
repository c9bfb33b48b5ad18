"""kraft-audit schemas."""

"""The HTML report of ``kraft-audit report``: its data (small aggregates of the run tables), its SVG charts, its
markup and its assets, in one self-contained page."""

"""ferry's Python package: `ferry report` (HTML with plots) and `ferry compare`
(regression ratios) over ferry's results JSON."""
__version__ = "0.1.0"

"""Marginalia: a research workspace that keeps its sources in the loop."""

__version__ = "0.1.0"

"""Benchmarks of osac-fulfillment (see docs/benchmarks.md). Run one with ``python -m bench.<name>``."""

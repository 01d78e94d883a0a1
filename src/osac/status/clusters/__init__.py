"""Granular cluster status (cluster-status.md), derived from HyperShift signals."""

"""Reconcilers of the networking kinds, their shared provisioning shape, topology lookups, metrics and the orphan sweep."""

"""The simulated HyperShift: cluster plans, rendering, faults, credentials."""

"""The simulated KubeVirt: VM plans and shapes."""

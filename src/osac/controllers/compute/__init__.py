"""The ComputeInstance reconciler: VM spec, inputs, teardown."""

"""VMaaS kinds: ComputeInstance, its templates and instance types, restarts."""

"""ComputeInstance status derived from KubeVirt observations (compute.md §2)."""

"""What the workload reconcilers share: one pass's status write, owning tenant, auto-cleanup, metrics."""

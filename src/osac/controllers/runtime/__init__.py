"""The reconcile runtime: the manager (queue, backoff, leases, resync), the object reconciler base, waiters, notices, metrics."""

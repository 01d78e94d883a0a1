"""The Tenant reconciler: DEFAULT_NETWORKING_READY and tenant teardown."""

"""The BareMetalInstance reconciler: gated provisioning, power, teardown, settings."""

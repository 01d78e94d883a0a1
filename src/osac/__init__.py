"""OSAC fulfillment: a multi-tenant cloud self-service control plane."""

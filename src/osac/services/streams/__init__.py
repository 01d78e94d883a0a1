"""The change stream (Watch) and lifecycle events, read-only views over the outbox."""

"""What the three workload kinds share: network attachments, their addresses, initial status, teardown restarts."""

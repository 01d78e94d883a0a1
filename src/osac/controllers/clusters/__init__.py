"""The Cluster reconciler: hosted cluster and node pools, hosts for bare-metal node sets, metrics."""

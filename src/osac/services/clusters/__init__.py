"""CaaS kinds: Cluster and ClusterTemplate, node sets, parameters, addresses, failures."""

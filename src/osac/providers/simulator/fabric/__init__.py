"""The simulated network fabric and k8s network manager, with reachability."""

"""Address management owned by the service (networking.md §5): subnet workload ranges, subnet
VIP ranges and external pools. Every allocation happens inside the caller's transaction and is
guarded by unique constraints, so no address is ever handed out twice."""

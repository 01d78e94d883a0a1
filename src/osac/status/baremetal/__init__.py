"""BareMetalInstance status derived from Metal3-shaped hosts (compute.md §3)."""

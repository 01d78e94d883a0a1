"""BMaaS kinds: BareMetalInstance and HostType, interfaces of a host type."""

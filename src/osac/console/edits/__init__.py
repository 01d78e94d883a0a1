"""The console's edit forms of objects that exist: a security group's rules, the provider's
catalogue. Each is an Update through the same service as the API, with an update mask."""

"""How the CLI reaches the server: the target (address, token, TLS), the gRPC channel and the
generic calls on it, the saved login, development tokens, cluster credentials and the console's
sign-in link."""

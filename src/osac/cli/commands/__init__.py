"""The commands of ``osac``, one module per group; ``osac.cli.main`` registers them.

A command module imports only Typer and the declarations of its options at the top: what a
command does is imported inside it, so ``osac --help`` loads no gRPC, API types, server or status
rules.
"""

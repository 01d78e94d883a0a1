"""Primitives of every status derivation: condition views, their messages, strict readers of provider dicts."""

"""Tenants and their default networking."""

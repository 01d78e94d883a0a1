"""What the CLI prints: the output formats, the per-kind table columns, cells and tables, JSON and
YAML, the generic describe view and what a write prints."""

"""The generic service every kind shares: KindService, behaviours, field paths, errors, the caller's context."""

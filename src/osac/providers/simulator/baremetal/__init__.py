"""The simulated bare-metal inventory: host plans and shapes."""

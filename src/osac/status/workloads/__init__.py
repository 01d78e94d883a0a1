"""What the compute-instance and bare-metal derivations share."""

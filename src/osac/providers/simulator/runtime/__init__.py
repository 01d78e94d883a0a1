"""What every simulated provider shares: the context (database, clock, speed), plans and steps, change feed, fault records, the simulator's tables."""

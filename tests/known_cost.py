"""A virtual clock that only an op moves: a case whose cost per call is known exactly."""

COST = 1.5e-6  # virtual seconds per call
now = 0.0


def clock() -> float:
    return now


def tick() -> None:
    global now
    now += COST

"""A separate allocating process for the multi-process test.

    python -m tests.ipam.allocation_worker URL SUBNET_ID TAG ALLOCATORS

Prints ``ready``, waits for a line on stdin (so that two processes start together), then runs
ALLOCATORS concurrent allocators, each allocating one workload address per transaction until the
range is exhausted, and prints the addresses it got as one JSON list.
"""

from __future__ import annotations

import asyncio
import json
import sys
from datetime import UTC, datetime

from osac.clock import FakeClock
from osac.ipam import allocator
from osac.ipam.errors import AddressesExhausted
from osac.store.engine import create_engines
from osac.store.objects import Store


async def fill(url: str, subnet: str, tag: str, allocators: int) -> list[str]:
    engines = create_engines(url)
    store = Store(engines, FakeClock(datetime(2026, 1, 1, tzinfo=UTC)))
    got: list[str] = []

    async def run(number: int) -> None:
        index = 0
        while True:
            try:
                async with store.write() as tx:
                    address = await allocator.allocate(
                        tx, scope=subnet, kind=allocator.WORKLOAD, owner_type="compute_instance",
                        owner_id=f"{tag}-{number}-{index}", purpose="nic",
                    )
            except AddressesExhausted:
                return
            got.append(address)
            index += 1

    try:
        await asyncio.gather(*(run(number) for number in range(allocators)))
    finally:
        await engines.dispose()
    return got


def main(argv: list[str]) -> None:
    url, subnet, tag, allocators = argv[0], argv[1], argv[2], int(argv[3])
    print("ready", flush=True)
    sys.stdin.readline()
    print(json.dumps(asyncio.run(fill(url, subnet, tag, allocators))), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])

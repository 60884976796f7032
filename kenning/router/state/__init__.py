"""What the router records and shares between processes: state, slot leases, events, metrics.

Read `state` first: `ResilientState` holds which set each GPU holds, the announced leases and
the swap locks, mirrored to Redis by `redis_state` and kept locally while Redis is
unreachable. `slot_store` keeps the GPU slot leases every process shares (sorted sets in
Redis, each change one Lua script); `events` fans router events out to subscribers;
`metrics` is the Prometheus registry of one router. Nothing here imports the rest of the
router: the other rooms build on it.
"""

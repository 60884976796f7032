"""Scheduling: which backend a model request runs on, in what order, and what gives way.

Read `scheduler` first (`Scheduler.lease` gives a request its `Lease` on a backend), then
`policy`, the pure rules it applies. `backends` is the pool (each backend's queue, running
leases, set held and health), `backend_queue` one backend's priority queue, `slots` a GPU's
slots shared by every process through Redis, `model_sets` the swaps between the orchestrator
and the background set, `leases` and `sessions` the announced sessions and priority-0 traffic
that keep a GPU on the orchestrator set.

How a priority-0 call takes the GPU, and background work falls back to the CPU:

1. `policy.decide_priority` reads the call's priority (header, model rule, else background).
   The relay (`kenning.router.relay`) renews the caller's client's traffic lease while the
   call runs (`leases.SessionLeases.critical_request`).
2. `Scheduler.lease` asks `policy.place` for a backend: priority 0 gets a GPU (with two or
   more, the first, kept for it) and a claim.
3. The claim (`Router._claim_critical` in `kenning.router.router`): `slots.SharedSlots.claim`
   marks the GPU in Redis so no process starts background work on it;
   `Scheduler.preempt_background` cancels the background leases running there
   (`policy.preemption_victims`, `backends.Lease.preempt`), sends its background waiters back
   to placement (`backend_queue.BackendQueue.reroute`) and tells every other process to do
   the same (`slots.SharedSlots.announce_preemption`); `model_sets.ModelSets.ensure` then
   swaps the GPU to the orchestrator set (cancel, unload, preload).
4. The call waits for its place in the GPU's queue (`BackendQueue.acquire_place`: priority
   first, then arrival) and for one of the GPU's slots shared by every process
   (`SharedSlots.acquire_gpu_slot`, one `RedisSlots.acquire_member` attempt at a time, in
   `kenning.router.state.slot_store`).
5. The background work falls back: the relay re-runs a cancelled attempt (a stream only
   while none of its bytes reached the caller), and `policy.place` sends background work to a
   free GPU holding the background set, else to the CPU backend. A GPU claimed in Redis (or
   with a more urgent waiter at another process) answers background work ``YIELD`` and the
   scheduler places it elsewhere; it waits for that GPU only when nothing else may take it.
6. While an announced session or recent priority-0 traffic holds a lease (`leases`), a single
   GPU keeps the orchestrator set; when the last lapses, the router's reconcile
   (`policy.desired_sets`) swaps it back to the background set (`model_sets`).
"""

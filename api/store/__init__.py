"""Where games live: the store interface (:mod:`~darkroad.api.store.base`), the in-memory
store of one process, and Redis (standalone, Cluster, Sentinel: its topology, the command
batcher and the Lua scripts that commit atomically). Knows neither the services nor HTTP."""

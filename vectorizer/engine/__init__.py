"""In-process execution: kernels (loading and running a specialization), fast path, backend
choice (auto trial, cost model), fingerprints."""

"""In-process execution: fast path, backend choice (auto trial, cost model), fingerprints."""

"""In-process execution around a generated kernel: inputs, batches, chunks and threads,
flag-and-patch (standalone modules carry a copy of these), kernels (loading and running a
specialization), the fast path, backend choice (auto trial, cost model), fingerprints."""

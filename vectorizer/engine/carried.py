"""What a standalone module (`vectorizer generate`) carries besides its kernels' helpers: the
execution around a kernel (`call`: input checks, chunks on threads, flag-and-patch), and for the
functions exported as loops `per_element`, `canonical` and `Batch`. A table for codegen/carry.py:
name -> (module, the table names it reads); constants first, then classes, then functions.
"""

from __future__ import annotations

from ..runtime import helpers
from . import batch, chunks, execute, inputs, patch

STANDALONE = {
    "HEAVY_CALLS": (helpers, ()),
    "INT64_MIN": (inputs, ()),
    "INT64_MAX": (inputs, ()),
    "_KINDS": (inputs, ()),
    "DTYPES": (patch, ()),
    "LANE_NOTE": (patch, ()),
    "KERNEL_FAILED": (patch, ("LANE_NOTE",)),
    "PATCH_BLOCK": (patch, ()),
    "_FLOATS": (patch, ()),
    "_INTS": (patch, ()),
    "CHUNK": (chunks, ()),
    "CHUNK_LOOP": (chunks, ()),
    "_pool": (chunks, ()),
    "_allocator_ready": (chunks, ()),
    "_cpus": (chunks, ()),
    "PARALLEL_MIN_LANES": (chunks, ()),
    "PARALLEL_MIN_LANES_LIGHT": (chunks, ()),
    "InputError": (inputs, ()),
    "LaneOverflowError": (patch, ()),
    "LaneValueError": (patch, ()),
    "Result": (patch, ("DTYPES", "owns_memory")),
    "UnknownResultError": (batch, ()),
    "Batch": (batch, ("lane_index",)),
    "canonical": (inputs, ("INT64_MIN", "INT64_MAX", "InputError", "_from_array")),
    "_from_array": (inputs, ("_KINDS", "InputError", "_check_uint64", "_from_objects")),
    "_check_uint64": (inputs, ("INT64_MAX", "InputError", "lane_index")),
    "_element_kind": (inputs, ()),
    "_from_objects": (inputs, ("INT64_MIN", "INT64_MAX", "_KINDS", "InputError", "_element_kind", "lane_index")),
    "as_kind": (inputs, ("_KINDS", "InputError")),
    "lane_index": (inputs, ()),
    "aliases": (patch, ()),
    "owns_memory": (patch, ()),
    "exact_ints": (patch, ()),
    "patch_lanes": (patch, ("PATCH_BLOCK", "_rerun", "_store_block")),
    "_rerun": (patch, ("LANE_NOTE",)),
    "_store_block": (patch, ("LaneOverflowError", "LaneValueError", "_fast_column", "store")),
    "_fast_column": (patch, ("_FLOATS", "_INTS")),
    "store": (patch, ("INT64_MIN", "INT64_MAX", "LaneOverflowError", "LaneValueError", "lane_index")),
    "per_element": (batch, ("LANE_NOTE", "call_lane", "_empty", "_column")),
    "call_lane": (batch, ()),
    "_empty": (batch, ("Result", "UnknownResultError")),
    "_column": (batch, ("DTYPES", "store")),
    "ready_allocator": (chunks, ("_allocator_ready",)),
    "threads": (chunks, ("_cpus",)),
    "map_chunks": (chunks, ("_pool", "threads")),
    "chunk_starts": (chunks, ("CHUNK", "PARALLEL_MIN_LANES", "threads")),
    "parallel_min_lanes": (chunks, ("HEAVY_CALLS", "PARALLEL_MIN_LANES", "PARALLEL_MIN_LANES_LIGHT")),
    "chunk_lanes": (chunks, ("CHUNK", "CHUNK_LOOP")),
    "_call_kernel": (execute, ("KERNEL_FAILED",)),
    "call": (execute, ("Batch", "canonical", "as_kind", "run")),
    "run": (execute, ("Result", "aliases", "exact_ints", "patch_lanes", "ready_allocator", "map_chunks",
                      "chunk_starts", "parallel_min_lanes", "chunk_lanes", "_call_kernel")),
}

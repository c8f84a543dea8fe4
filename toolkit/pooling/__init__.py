"""Pooling: depth-k and move-to-front pools with provenance, doc sources, rounds, and pool diagnostics."""

from toolkit.pooling.adaptive import mtf_pool
from toolkit.pooling.depth import depth_pool
from toolkit.pooling.pool import Pool

__all__ = ["Pool", "depth_pool", "mtf_pool"]

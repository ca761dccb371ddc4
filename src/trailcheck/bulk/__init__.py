"""Bulk work over every core: a JSON Lines file cut into chunks of whole lines, each processed in
a worker process, the results yielded in input order (:mod:`.chunks`, :mod:`.pool`)."""

from trailcheck.bulk.chunks import LineChunk, chunk_lines, line_chunks
from trailcheck.bulk.pool import default_workers, ordered_map

__all__ = ["LineChunk", "chunk_lines", "default_workers", "line_chunks", "ordered_map"]

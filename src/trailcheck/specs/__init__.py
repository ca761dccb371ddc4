"""What the spec models of dataset files share: tagged unions, unknown-name messages, patterns.

Below both ``cases`` and ``policy``, so that the inline guard can read policy specs without
importing the offline dataset machinery.
"""

from trailcheck.specs.naming import closest_hint, unknown_name_message
from trailcheck.specs.patterns import valid_regex
from trailcheck.specs.tagged import TaggedSpec

__all__ = ["TaggedSpec", "closest_hint", "unknown_name_message", "valid_regex"]

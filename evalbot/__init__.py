"""evalbot: is the change in your eval score real, or noise?"""

from __future__ import annotations

__version__ = "0.1.0"

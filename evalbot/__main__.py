from __future__ import annotations

import sys

from evalbot.cli import main

sys.exit(main())

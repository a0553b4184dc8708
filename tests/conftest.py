from __future__ import annotations

pytest_plugins = ["tests.fakegithub.plugin"]

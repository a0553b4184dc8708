"""evalbot.plan."""

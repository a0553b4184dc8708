"""evalbot.pairing."""

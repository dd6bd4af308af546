"""One module per command (or small group); each exposes ``register(app)``."""

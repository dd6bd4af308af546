"""convo report and convo serve, in a real browser where they claim to work there."""

"""The real TypeAgent package reading what convo writes, and the database convo builds."""

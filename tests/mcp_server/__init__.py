"""The MCP server's calls, results and limits (tests/cli/test_mcp.py runs the server)."""

"""convo over the Model Context Protocol: the read-only server of ``convo mcp``.

An entry point beside the command line (the ``cli | spark | mcp`` layer): ``tools``
declares the tools, ``calls`` answers them with ``convo.Store`` (and the analysis calls
the commands make), ``results`` shapes records for an agent, ``server`` speaks the
protocol through the ``mcp`` SDK (the optional extra ``[mcp]``). See docs/mcp.md.
"""

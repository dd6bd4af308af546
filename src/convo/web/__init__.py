"""convo in a browser: ``report`` (one offline HTML page of analytics) and ``serve`` (a
local, read-only web view over ``convo.store.Store``). Beside ``convo.output`` in the
layers: it renders what ``convo.analysis`` computes and what the store holds, and imports
neither typer nor rich."""

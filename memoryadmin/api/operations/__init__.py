"""The operations of the contract, written once for every transport.

The ninja routers (memoryadmin.api) and the MCP tools (memoryadmin.mcp) parse their input into the
argument models of memoryadmin.api.schemas (MCP's are derived from them), call an operation here,
and answer with what it returns; a failure is an exception of the services' family
(memoryadmin.core.errors), which memoryadmin.api.errors.failure_of turns into the one error body.
So a default, a limit or a lookup is written once, and both transports keep to it.
"""

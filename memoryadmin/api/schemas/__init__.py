"""Request and response bodies of the API (the contract of docs/api.md, as OpenAPI).

One module per router (`memories`, `sessions`, `governance`, `webhooks`, `tombstones`, `extraction`,
`health`), and `common` for the field types, limits and error body they share. The OpenAPI snapshot
test (tests/api/openapi.json) holds them all; the MCP tools derive their arguments from them.
"""

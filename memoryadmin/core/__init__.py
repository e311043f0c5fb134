"""What several apps share and none owns: errors, the Redis client, pagination, storable JSON,
row loading, health checks, app ids, RFC 3339 timestamps and keyed fingerprints.

It imports no app of the project: every app may import from it.
"""

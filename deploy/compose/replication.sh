#!/bin/bash
# Run once by the postgres image when the primary's data folder is created (docker-entrypoint-initdb.d):
# a role that streams the WAL to the replica, and the line that lets it connect for replication.
set -euo pipefail
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
    -c "CREATE ROLE replicator WITH REPLICATION LOGIN PASSWORD '${REPLICATION_PASSWORD}'"
echo "host replication replicator all scram-sha-256" >> "$PGDATA/pg_hba.conf"

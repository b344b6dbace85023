#!/bin/sh
# Regenerates the golden file tuning_v1.db from tuning_v1.sql (needs the sqlite3 CLI).
# The .db file is committed; rerun this only when tuning_v1.sql changes.
set -eu
cd "$(dirname "$0")"
rm -f tuning_v1.db tuning_v1.db-wal tuning_v1.db-shm
sqlite3 -bail tuning_v1.db < tuning_v1.sql > /dev/null
sqlite3 tuning_v1.db 'PRAGMA integrity_check' | grep -qx ok

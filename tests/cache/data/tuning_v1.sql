-- tests/cache/data/tuning_v1.sql: a scantune tuning database as version 1 of the
-- library wrote it (schema v1: no baselines table, no registers/spill columns, no
-- run uids, no views), with a few realistic rows. make_tuning_v1.sh turns it into
-- the golden file tuning_v1.db, which tuning_db_migration_test.cpp migrates.
-- The CREATE statements must stay identical to kSchemaV1 in cache/db_schema.cpp
-- (a test compares them).
PRAGMA application_id = 1396921422; -- 0x5343544e 'SCTN'
-- Rollback journal (not WAL) so that reading the committed file with the sqlite3 CLI
-- leaves no -wal/-shm files in the source tree; opening it read-write switches it to WAL.
PRAGMA journal_mode = DELETE;
BEGIN;
CREATE TABLE devices (
  id               INTEGER PRIMARY KEY,
  name             TEXT    NOT NULL CHECK (name <> ''),
  model            TEXT    NOT NULL CHECK (model <> ''),
  cc_major         INTEGER NOT NULL CHECK (cc_major BETWEEN 1 AND 99),
  cc_minor         INTEGER NOT NULL CHECK (cc_minor BETWEEN 0 AND 9),
  sm_count         INTEGER NOT NULL CHECK (sm_count > 0),
  memory_bus_bits  INTEGER NOT NULL DEFAULT 0 CHECK (memory_bus_bits >= 0),
  memory_clock_khz INTEGER NOT NULL DEFAULT 0 CHECK (memory_clock_khz >= 0),
  bandwidth_gbs    REAL    NOT NULL DEFAULT 0 CHECK (bandwidth_gbs >= 0),
  l2_bytes         INTEGER NOT NULL DEFAULT 0 CHECK (l2_bytes >= 0),
  driver_version   INTEGER NOT NULL DEFAULT 0,
  runtime_version  INTEGER NOT NULL DEFAULT 0,
  uuid             TEXT    NOT NULL DEFAULT ''
);
CREATE UNIQUE INDEX devices_uuid ON devices(uuid) WHERE uuid <> '';
CREATE INDEX devices_model ON devices(model);

CREATE TABLE tuning_runs (
  id              INTEGER PRIMARY KEY,
  device_id       INTEGER REFERENCES devices(id),
  started_at      TEXT    NOT NULL,
  ended_at        TEXT,
  library_version TEXT    NOT NULL DEFAULT '',
  template_hash   TEXT    NOT NULL DEFAULT '',
  nvrtc_version   TEXT    NOT NULL DEFAULT '',
  command_line    TEXT    NOT NULL DEFAULT '',
  host            TEXT    NOT NULL DEFAULT '',
  status          TEXT    NOT NULL DEFAULT 'running'
                  CHECK (status IN ('running', 'complete', 'interrupted')),
  CHECK (status = 'running' OR ended_at IS NOT NULL)
);

CREATE TABLE measurements (
  id        INTEGER PRIMARY KEY,
  run_id    INTEGER NOT NULL REFERENCES tuning_runs(id) ON DELETE CASCADE,
  device_id INTEGER NOT NULL REFERENCES devices(id),
  type      TEXT    NOT NULL
            CHECK (type IN ('int32', 'uint32', 'int64', 'uint64', 'float32', 'float64')),
  op        TEXT    NOT NULL CHECK (op <> ''),
  op_hash   TEXT    NOT NULL DEFAULT '',
  kind      TEXT    NOT NULL CHECK (kind IN ('inclusive', 'exclusive')),
  size      INTEGER NOT NULL CHECK (size >= 0),
  policy    TEXT    NOT NULL CHECK (policy <> ''),
  status    TEXT    NOT NULL CHECK (status IN ('ok', 'compile_error', 'launch_error',
                                               'wrong_result', 'timeout', 'rejected')),
  median_ns REAL,
  min_ns    REAL,
  max_ns    REAL,
  samples   INTEGER NOT NULL DEFAULT 0 CHECK (samples >= 0),
  gbs       REAL    CHECK (gbs IS NULL OR gbs >= 0),
  message   TEXT    NOT NULL DEFAULT '',
  CHECK (status <> 'ok' OR (median_ns IS NOT NULL AND min_ns IS NOT NULL AND max_ns IS NOT NULL
                            AND gbs IS NOT NULL AND samples > 0 AND min_ns > 0
                            AND min_ns <= median_ns AND median_ns <= max_ns))
);
CREATE INDEX measurements_run ON measurements(run_id);
CREATE INDEX measurements_key ON measurements(device_id, type, op, op_hash, kind, size);

CREATE TABLE best (
  id          INTEGER PRIMARY KEY,
  model       TEXT    NOT NULL CHECK (model <> ''),
  device_id   INTEGER NOT NULL REFERENCES devices(id),
  run_id      INTEGER REFERENCES tuning_runs(id) ON DELETE SET NULL,
  type        TEXT    NOT NULL
              CHECK (type IN ('int32', 'uint32', 'int64', 'uint64', 'float32', 'float64')),
  op          TEXT    NOT NULL CHECK (op <> ''),
  op_hash     TEXT    NOT NULL DEFAULT '',
  kind        TEXT    NOT NULL CHECK (kind IN ('inclusive', 'exclusive')),
  size_bucket INTEGER NOT NULL CHECK (size_bucket BETWEEN 0 AND 62),
  size        INTEGER NOT NULL CHECK (size > 0),
  policy      TEXT    NOT NULL CHECK (policy <> ''),
  ns          REAL    NOT NULL CHECK (ns > 0),
  gbs         REAL    NOT NULL CHECK (gbs >= 0),
  updated_at  TEXT    NOT NULL,
  CHECK (size <= (1 << size_bucket) AND (size_bucket = 0 OR size > (1 << (size_bucket - 1)))),
  UNIQUE (model, type, op, op_hash, kind, size_bucket)
);

PRAGMA user_version = 1;

INSERT INTO devices (id, name, model, cc_major, cc_minor, sm_count, memory_bus_bits,
                     memory_clock_khz, bandwidth_gbs, l2_bytes, driver_version, runtime_version, uuid)
VALUES (1, 'NVIDIA H100 80GB HBM3', 'NVIDIA H100 80GB HBM3 (sm_90, 132 SMs)', 9, 0, 132, 5120,
        2619000, 3352.32, 52428800, 12040, 12040, 'GPU-6f3a1c2e-8d4b-4e57-9a10-0c1d2e3f4a5b'),
       (2, 'NVIDIA GeForce RTX 4090', 'NVIDIA GeForce RTX 4090 (sm_89, 128 SMs)', 8, 9, 128, 384,
        10501000, 1008.096, 75497472, 12020, 12020, '');

INSERT INTO tuning_runs (id, device_id, started_at, ended_at, library_version, template_hash,
                         nvrtc_version, command_line, host, status)
VALUES (1, 1, '2024-11-02T09:14:03Z', '2024-11-02T09:51:40Z', '0.0.9', '5be0f7a1c3d2e4f6',
        '12.4', 'scantune tune --type int32,float32 --op sum,max', 'dgx-a-03', 'complete'),
       (2, 2, '2024-11-03T18:02:11Z', '2024-11-03T18:05:59Z', '0.0.9', '5be0f7a1c3d2e4f6',
        '12.2', 'scantune tune --type float64 --op absmax', 'workstation', 'interrupted');

INSERT INTO measurements (id, run_id, device_id, type, op, op_hash, kind, size, policy, status,
                          median_ns, min_ns, max_ns, samples, gbs, message)
VALUES (1, 1, 1, 'int32', 'sum', '', 'inclusive', 16777216,
        'lookback_warp.tpb256.ipt12.vec4.warp_scans', 'ok', 45120.5, 44890.0, 46002.25, 25,
        2974.2, ''),
       (2, 1, 1, 'int32', 'sum', '', 'inclusive', 16777216,
        'lookback_thread.tpb128.ipt16.vec4.blelloch.direct.bo200', 'ok', 61877.0, 61010.5,
        63300.0, 25, 2168.8, ''),
       (3, 1, 1, 'int32', 'sum', '', 'inclusive', 16777216,
        'reduce_then_scan.tpb512.ipt8.vec2.hillis_steele', 'wrong_result', NULL, NULL, NULL, 0,
        NULL, 'element 4096: got 17, expected 18'),
       (4, 1, 1, 'float32', 'max', '', 'exclusive', 1048576,
        'lookback_warp.tpb256.ipt8.vec4.warp_scans', 'ok', 5210.0, 5150.0, 5400.0, 50, 1610.1,
        ''),
       (5, 2, 2, 'float64', 'absmax', '3f9a0c77d1e2b4a5', 'inclusive', 4194304,
        'lookback_warp.tpb256.ipt8.vec2.warp_scans', 'ok', 70110.0, 69900.0, 71000.0, 20,
        957.2, ''),
       (6, 2, 2, 'float64', 'absmax', '3f9a0c77d1e2b4a5', 'inclusive', 4194304,
        'chained.tpb1024.ipt32.vec2.blelloch_padded', 'compile_error', NULL, NULL, NULL, 0, NULL,
        'ptxas error: Entry function uses too much shared data');

INSERT INTO best (id, model, device_id, run_id, type, op, op_hash, kind, size_bucket, size, policy,
                  ns, gbs, updated_at)
VALUES (1, 'NVIDIA H100 80GB HBM3 (sm_90, 132 SMs)', 1, 1, 'int32', 'sum', '', 'inclusive', 24,
        16777216, 'lookback_warp.tpb256.ipt12.vec4.warp_scans', 45120.5, 2974.2,
        '2024-11-02T09:51:40Z'),
       (2, 'NVIDIA H100 80GB HBM3 (sm_90, 132 SMs)', 1, 1, 'float32', 'max', '', 'exclusive', 20,
        1048576, 'lookback_warp.tpb256.ipt8.vec4.warp_scans', 5210.0, 1610.1,
        '2024-11-02T09:51:40Z'),
       (3, 'NVIDIA GeForce RTX 4090 (sm_89, 128 SMs)', 2, 2, 'float64', 'absmax',
        '3f9a0c77d1e2b4a5', 'inclusive', 22, 4194304, 'lookback_warp.tpb256.ipt8.vec2.warp_scans',
        70110.0, 957.2, '2024-11-03T18:05:59Z');

COMMIT;

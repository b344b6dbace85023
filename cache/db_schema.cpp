// cache/db_schema.cpp: see db_schema.hpp. Keep docs/database.md in step with this file.
#include "cache/db_schema.hpp"

#include <fmt/format.h>

#include "cache/sqlite_db.hpp"

namespace scantune::db {

namespace {

// Version 1: devices, runs, measurements (without register counts) and best.
// Frozen: tests/cache/data/tuning_v1.sql carries a copy of this text, and the
// golden file tests/cache/data/tuning_v1.db was made from it.
constexpr const char* kSchemaV1 = R"sql(
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
)sql";

// Version 2. Why: v1 could not say how a winner compares with memcpy and CUB (no
// baselines table), did not record register use and spills of each candidate
// (needed to explain slow configurations), and had no stable identity for a run,
// so merging the same export twice duplicated every measurement. Adds the
// baselines table, measurements.registers / measurements.spill_bytes,
// tuning_runs.uid (filled with random ids for old rows) and the v_* views.
constexpr const char* kMigrate1To2 = R"sql(
ALTER TABLE measurements ADD COLUMN registers INTEGER
  CHECK (registers IS NULL OR registers BETWEEN 0 AND 255);
ALTER TABLE measurements ADD COLUMN spill_bytes INTEGER
  CHECK (spill_bytes IS NULL OR spill_bytes >= 0);

ALTER TABLE tuning_runs ADD COLUMN uid TEXT;
UPDATE tuning_runs SET uid = lower(hex(randomblob(16))) WHERE uid IS NULL OR uid = '';
CREATE UNIQUE INDEX tuning_runs_uid ON tuning_runs(uid);
CREATE TRIGGER tuning_runs_uid_insert BEFORE INSERT ON tuning_runs
  WHEN NEW.uid IS NULL OR NEW.uid = ''
  BEGIN SELECT RAISE(ABORT, 'tuning_runs.uid must be set'); END;
CREATE TRIGGER tuning_runs_uid_update BEFORE UPDATE OF uid ON tuning_runs
  WHEN NEW.uid IS NULL OR NEW.uid = ''
  BEGIN SELECT RAISE(ABORT, 'tuning_runs.uid must be set'); END;

CREATE TABLE baselines (
  id          INTEGER PRIMARY KEY,
  device_id   INTEGER NOT NULL REFERENCES devices(id),
  run_id      INTEGER REFERENCES tuning_runs(id) ON DELETE SET NULL,
  baseline    TEXT    NOT NULL CHECK (baseline IN ('memcpy', 'cub')),
  type        TEXT    NOT NULL
              CHECK (type IN ('int32', 'uint32', 'int64', 'uint64', 'float32', 'float64')),
  op          TEXT    NOT NULL DEFAULT '',
  op_hash     TEXT    NOT NULL DEFAULT '',
  kind        TEXT    NOT NULL DEFAULT '',
  size        INTEGER NOT NULL CHECK (size > 0),
  ns          REAL    NOT NULL CHECK (ns > 0),
  gbs         REAL    NOT NULL CHECK (gbs >= 0),
  measured_at TEXT    NOT NULL,
  CHECK ((baseline = 'memcpy' AND op = '' AND op_hash = '' AND kind = '')
      OR (baseline = 'cub' AND op <> '' AND kind IN ('inclusive', 'exclusive'))),
  UNIQUE (device_id, baseline, type, op, op_hash, kind, size)
);

CREATE VIEW v_best AS
SELECT b.model AS device, b.type, b.op, b.kind, b.size, b.policy,
       round(b.ns, 1) AS ns,
       round(b.gbs, 1) AS gbs,
       round((SELECT min(x.ns) FROM baselines x JOIN devices xd ON xd.id = x.device_id
              WHERE xd.model = b.model AND x.baseline = 'memcpy' AND x.type = b.type
                AND x.size = b.size) / b.ns, 3) AS x_memcpy,
       round((SELECT min(x.ns) FROM baselines x JOIN devices xd ON xd.id = x.device_id
              WHERE xd.model = b.model AND x.baseline = 'cub' AND x.type = b.type
                AND x.op = b.op AND x.op_hash = b.op_hash AND x.kind = b.kind
                AND x.size = b.size) / b.ns, 3) AS x_cub,
       b.run_id AS run,
       b.updated_at
FROM best b
ORDER BY device, b.type, b.op, b.kind, b.size;

CREATE VIEW v_measurements AS
SELECT m.id, m.run_id AS run, d.model AS device, m.type, m.op, m.kind, m.size, m.policy,
       m.status, round(m.median_ns, 1) AS median_ns, round(m.min_ns, 1) AS min_ns,
       round(m.max_ns, 1) AS max_ns, m.samples, round(m.gbs, 1) AS gbs, m.registers,
       m.spill_bytes, m.message
FROM measurements m JOIN devices d ON d.id = m.device_id
ORDER BY m.id;

CREATE VIEW v_runs AS
SELECT r.id, r.status, r.started_at, r.ended_at, d.model AS device, r.library_version,
       r.template_hash, r.nvrtc_version,
       (SELECT count(*) FROM measurements m WHERE m.run_id = r.id) AS measurements,
       (SELECT count(*) FROM measurements m WHERE m.run_id = r.id AND m.status = 'ok') AS ok,
       r.command_line
FROM tuning_runs r LEFT JOIN devices d ON d.id = r.device_id
ORDER BY r.id;
)sql";

// Version 3. Why: one size bucket per octave served every size of (2^(k-1), 2^k]
// with the winner tuned at 2^k, up to 20% slower than a shape tuned at 1.5 x 2^(k-1)
// on the H100 (docs/performance.md). Buckets are half octaves now
// (base/size_bucket.hpp): bucket 2k is 2^k, bucket 2k+1 is 1.5 x 2^k. `best` is
// rebuilt (SQLite cannot change a CHECK) and every row's bucket recomputed from its
// old octave bucket c and its size: 2c - 1 when size <= 1.5 x 2^(c-1), else 2c.
// A bucket's largest size in SQL: 2^(b/2) for even b, 3 x 2^((b-3)/2) for odd b
// (SQLite shifts right for a negative count, so bucket 1's is 1 and it stays empty).
constexpr const char* kMigrate2To3 = R"sql(
CREATE TABLE best_v2 AS SELECT * FROM best;
DROP TABLE best;
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
  size_bucket INTEGER NOT NULL CHECK (size_bucket BETWEEN 0 AND 124),
  size        INTEGER NOT NULL CHECK (size > 0),
  policy      TEXT    NOT NULL CHECK (policy <> ''),
  ns          REAL    NOT NULL CHECK (ns > 0),
  gbs         REAL    NOT NULL CHECK (gbs >= 0),
  updated_at  TEXT    NOT NULL,
  CHECK (size <= (CASE size_bucket % 2 WHEN 0 THEN 1 << (size_bucket / 2)
                                       ELSE 3 << ((size_bucket - 3) / 2) END)
         AND (size_bucket = 0
              OR size > (CASE (size_bucket - 1) % 2 WHEN 0 THEN 1 << ((size_bucket - 1) / 2)
                                                   ELSE 3 << ((size_bucket - 4) / 2) END))),
  UNIQUE (model, type, op, op_hash, kind, size_bucket)
);
INSERT INTO best (id, model, device_id, run_id, type, op, op_hash, kind, size_bucket, size,
                  policy, ns, gbs, updated_at)
SELECT id, model, device_id, run_id, type, op, op_hash, kind,
       CASE WHEN size_bucket <= 1 THEN 2 * size_bucket
            WHEN size - (1 << (size_bucket - 1)) <= (1 << (size_bucket - 2)) THEN 2 * size_bucket - 1
            ELSE 2 * size_bucket END,
       size, policy, ns, gbs, updated_at
FROM best_v2;
DROP TABLE best_v2;
)sql";

// Version 4. Why: segmented, batched and axis scans are problems of their own (their
// winners differ from flat scans' of the same type, operator and kind), so
// measurements, CUB baselines and winners carry a `problem`: '' for a flat scan, else
// its kind ('flags', 'rows', 'keys32', 'keys64', 'offsets32', 'offsets64', 'axis').
// `baselines` and `best` are rebuilt to take it into their UNIQUE keys; v_best shows it.
constexpr const char* kMigrate3To4 = R"sql(
ALTER TABLE measurements ADD COLUMN problem TEXT NOT NULL DEFAULT '';

CREATE TABLE baselines_v3 AS SELECT * FROM baselines;
DROP TABLE baselines;
CREATE TABLE baselines (
  id          INTEGER PRIMARY KEY,
  device_id   INTEGER NOT NULL REFERENCES devices(id),
  run_id      INTEGER REFERENCES tuning_runs(id) ON DELETE SET NULL,
  baseline    TEXT    NOT NULL CHECK (baseline IN ('memcpy', 'cub')),
  type        TEXT    NOT NULL
              CHECK (type IN ('int32', 'uint32', 'int64', 'uint64', 'float32', 'float64')),
  op          TEXT    NOT NULL DEFAULT '',
  op_hash     TEXT    NOT NULL DEFAULT '',
  kind        TEXT    NOT NULL DEFAULT '',
  problem     TEXT    NOT NULL DEFAULT '',
  size        INTEGER NOT NULL CHECK (size > 0),
  ns          REAL    NOT NULL CHECK (ns > 0),
  gbs         REAL    NOT NULL CHECK (gbs >= 0),
  measured_at TEXT    NOT NULL,
  CHECK ((baseline = 'memcpy' AND op = '' AND op_hash = '' AND kind = '' AND problem = '')
      OR (baseline = 'cub' AND op <> '' AND kind IN ('inclusive', 'exclusive'))),
  UNIQUE (device_id, baseline, type, op, op_hash, kind, problem, size)
);
INSERT INTO baselines (id, device_id, run_id, baseline, type, op, op_hash, kind, size, ns, gbs,
                       measured_at)
SELECT id, device_id, run_id, baseline, type, op, op_hash, kind, size, ns, gbs, measured_at
FROM baselines_v3;
DROP TABLE baselines_v3;

CREATE TABLE best_v3 AS SELECT * FROM best;
DROP TABLE best;
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
  problem     TEXT    NOT NULL DEFAULT '',
  size_bucket INTEGER NOT NULL CHECK (size_bucket BETWEEN 0 AND 124),
  size        INTEGER NOT NULL CHECK (size > 0),
  policy      TEXT    NOT NULL CHECK (policy <> ''),
  ns          REAL    NOT NULL CHECK (ns > 0),
  gbs         REAL    NOT NULL CHECK (gbs >= 0),
  updated_at  TEXT    NOT NULL,
  CHECK (size <= (CASE size_bucket % 2 WHEN 0 THEN 1 << (size_bucket / 2)
                                       ELSE 3 << ((size_bucket - 3) / 2) END)
         AND (size_bucket = 0
              OR size > (CASE (size_bucket - 1) % 2 WHEN 0 THEN 1 << ((size_bucket - 1) / 2)
                                                   ELSE 3 << ((size_bucket - 4) / 2) END))),
  UNIQUE (model, type, op, op_hash, kind, problem, size_bucket)
);
INSERT INTO best (id, model, device_id, run_id, type, op, op_hash, kind, size_bucket, size,
                  policy, ns, gbs, updated_at)
SELECT id, model, device_id, run_id, type, op, op_hash, kind, size_bucket, size, policy, ns,
       gbs, updated_at
FROM best_v3;
DROP TABLE best_v3;

DROP VIEW v_best;
CREATE VIEW v_best AS
SELECT b.model AS device, b.type, b.op, b.kind, b.problem, b.size, b.policy,
       round(b.ns, 1) AS ns,
       round(b.gbs, 1) AS gbs,
       round((SELECT min(x.ns) FROM baselines x JOIN devices xd ON xd.id = x.device_id
              WHERE xd.model = b.model AND x.baseline = 'memcpy' AND x.type = b.type
                AND x.size = b.size) / b.ns, 3) AS x_memcpy,
       round((SELECT min(x.ns) FROM baselines x JOIN devices xd ON xd.id = x.device_id
              WHERE xd.model = b.model AND x.baseline = 'cub' AND x.type = b.type
                AND x.op = b.op AND x.op_hash = b.op_hash AND x.kind = b.kind
                AND x.problem = b.problem AND x.size = b.size) / b.ns, 3) AS x_cub,
       b.run_id AS run,
       b.updated_at
FROM best b
ORDER BY device, b.type, b.op, b.kind, b.problem, b.size;
)sql";

// Version 5. Why: where the fastest shape changes inside a size bucket, no one winner
// serves all of it within 3% (docs/tuner.md, "One winner a bucket"), so a bucket may
// hold a second winner for its lower part: sizes up to `lower_upto` run `lower_policy`;
// '' and 0 when one winner serves the whole bucket. v_best shows the split.
constexpr const char* kMigrate4To5 = R"sql(
ALTER TABLE best ADD COLUMN lower_policy TEXT NOT NULL DEFAULT '';
ALTER TABLE best ADD COLUMN lower_upto INTEGER NOT NULL DEFAULT 0
  CHECK (lower_upto >= 0 AND (lower_upto = 0) = (lower_policy = '') AND lower_upto < size);

DROP VIEW v_best;
CREATE VIEW v_best AS
SELECT b.model AS device, b.type, b.op, b.kind, b.problem, b.size, b.policy,
       round(b.ns, 1) AS ns,
       round(b.gbs, 1) AS gbs,
       round((SELECT min(x.ns) FROM baselines x JOIN devices xd ON xd.id = x.device_id
              WHERE xd.model = b.model AND x.baseline = 'memcpy' AND x.type = b.type
                AND x.size = b.size) / b.ns, 3) AS x_memcpy,
       round((SELECT min(x.ns) FROM baselines x JOIN devices xd ON xd.id = x.device_id
              WHERE xd.model = b.model AND x.baseline = 'cub' AND x.type = b.type
                AND x.op = b.op AND x.op_hash = b.op_hash AND x.kind = b.kind
                AND x.problem = b.problem AND x.size = b.size) / b.ns, 3) AS x_cub,
       b.lower_policy, b.lower_upto,
       b.run_id AS run,
       b.updated_at
FROM best b
ORDER BY device, b.type, b.op, b.kind, b.problem, b.size;
)sql";

// Version 6. Why: compactions move narrow elements as they are (int8 .. bfloat16, no
// accumulator), so their measurements, CUB baselines and winners are stored under their
// own element type; the type CHECKs of measurements, baselines and best take every
// element type. SQLite cannot change a CHECK: each table is copied out, recreated with
// its columns in the same order and filled back, and measurements' indexes recreated.
// The views read the same columns: they stay.
constexpr const char* kMigrate5To6 = R"sql(
CREATE TABLE measurements_v5 AS SELECT * FROM measurements;
DROP TABLE measurements;
CREATE TABLE measurements (
  id          INTEGER PRIMARY KEY,
  run_id      INTEGER NOT NULL REFERENCES tuning_runs(id) ON DELETE CASCADE,
  device_id   INTEGER NOT NULL REFERENCES devices(id),
  type        TEXT    NOT NULL
              CHECK (type IN ('int32', 'uint32', 'int64', 'uint64', 'float32', 'float64',
                              'int8', 'uint8', 'int16', 'uint16', 'float16', 'bfloat16')),
  op          TEXT    NOT NULL CHECK (op <> ''),
  op_hash     TEXT    NOT NULL DEFAULT '',
  kind        TEXT    NOT NULL CHECK (kind IN ('inclusive', 'exclusive')),
  size        INTEGER NOT NULL CHECK (size >= 0),
  policy      TEXT    NOT NULL CHECK (policy <> ''),
  status      TEXT    NOT NULL CHECK (status IN ('ok', 'compile_error', 'launch_error',
                                                 'wrong_result', 'timeout', 'rejected')),
  median_ns   REAL,
  min_ns      REAL,
  max_ns      REAL,
  samples     INTEGER NOT NULL DEFAULT 0 CHECK (samples >= 0),
  gbs         REAL    CHECK (gbs IS NULL OR gbs >= 0),
  message     TEXT    NOT NULL DEFAULT '',
  registers   INTEGER CHECK (registers IS NULL OR registers BETWEEN 0 AND 255),
  spill_bytes INTEGER CHECK (spill_bytes IS NULL OR spill_bytes >= 0),
  problem     TEXT    NOT NULL DEFAULT '',
  CHECK (status <> 'ok' OR (median_ns IS NOT NULL AND min_ns IS NOT NULL AND max_ns IS NOT NULL
                            AND gbs IS NOT NULL AND samples > 0 AND min_ns > 0
                            AND min_ns <= median_ns AND median_ns <= max_ns))
);
INSERT INTO measurements SELECT * FROM measurements_v5;
DROP TABLE measurements_v5;
CREATE INDEX measurements_run ON measurements(run_id);
CREATE INDEX measurements_key ON measurements(device_id, type, op, op_hash, kind, size);

CREATE TABLE baselines_v5 AS SELECT * FROM baselines;
DROP TABLE baselines;
CREATE TABLE baselines (
  id          INTEGER PRIMARY KEY,
  device_id   INTEGER NOT NULL REFERENCES devices(id),
  run_id      INTEGER REFERENCES tuning_runs(id) ON DELETE SET NULL,
  baseline    TEXT    NOT NULL CHECK (baseline IN ('memcpy', 'cub')),
  type        TEXT    NOT NULL
              CHECK (type IN ('int32', 'uint32', 'int64', 'uint64', 'float32', 'float64',
                              'int8', 'uint8', 'int16', 'uint16', 'float16', 'bfloat16')),
  op          TEXT    NOT NULL DEFAULT '',
  op_hash     TEXT    NOT NULL DEFAULT '',
  kind        TEXT    NOT NULL DEFAULT '',
  problem     TEXT    NOT NULL DEFAULT '',
  size        INTEGER NOT NULL CHECK (size > 0),
  ns          REAL    NOT NULL CHECK (ns > 0),
  gbs         REAL    NOT NULL CHECK (gbs >= 0),
  measured_at TEXT    NOT NULL,
  CHECK ((baseline = 'memcpy' AND op = '' AND op_hash = '' AND kind = '' AND problem = '')
      OR (baseline = 'cub' AND op <> '' AND kind IN ('inclusive', 'exclusive'))),
  UNIQUE (device_id, baseline, type, op, op_hash, kind, problem, size)
);
INSERT INTO baselines SELECT * FROM baselines_v5;
DROP TABLE baselines_v5;

CREATE TABLE best_v5 AS SELECT * FROM best;
DROP TABLE best;
CREATE TABLE best (
  id           INTEGER PRIMARY KEY,
  model        TEXT    NOT NULL CHECK (model <> ''),
  device_id    INTEGER NOT NULL REFERENCES devices(id),
  run_id       INTEGER REFERENCES tuning_runs(id) ON DELETE SET NULL,
  type         TEXT    NOT NULL
               CHECK (type IN ('int32', 'uint32', 'int64', 'uint64', 'float32', 'float64',
                              'int8', 'uint8', 'int16', 'uint16', 'float16', 'bfloat16')),
  op           TEXT    NOT NULL CHECK (op <> ''),
  op_hash      TEXT    NOT NULL DEFAULT '',
  kind         TEXT    NOT NULL CHECK (kind IN ('inclusive', 'exclusive')),
  problem      TEXT    NOT NULL DEFAULT '',
  size_bucket  INTEGER NOT NULL CHECK (size_bucket BETWEEN 0 AND 124),
  size         INTEGER NOT NULL CHECK (size > 0),
  policy       TEXT    NOT NULL CHECK (policy <> ''),
  ns           REAL    NOT NULL CHECK (ns > 0),
  gbs          REAL    NOT NULL CHECK (gbs >= 0),
  updated_at   TEXT    NOT NULL,
  lower_policy TEXT    NOT NULL DEFAULT '',
  lower_upto   INTEGER NOT NULL DEFAULT 0
               CHECK (lower_upto >= 0 AND (lower_upto = 0) = (lower_policy = '')
                      AND lower_upto < size),
  CHECK (size <= (CASE size_bucket % 2 WHEN 0 THEN 1 << (size_bucket / 2)
                                       ELSE 3 << ((size_bucket - 3) / 2) END)
         AND (size_bucket = 0
              OR size > (CASE (size_bucket - 1) % 2 WHEN 0 THEN 1 << ((size_bucket - 1) / 2)
                                                   ELSE 3 << ((size_bucket - 4) / 2) END))),
  UNIQUE (model, type, op, op_hash, kind, problem, size_bucket)
);
INSERT INTO best SELECT * FROM best_v5;
DROP TABLE best_v5;
)sql";

struct Migration {
  const char* description;
  const char* sql;
};

// kMigrations[i] migrates from version i + 1 to i + 2.
constexpr Migration kMigrations[] = {
    {"add baselines, measurement registers/spills, run uids and views", kMigrate1To2},
    {"size buckets of half an octave (2^k and 1.5 x 2^k)", kMigrate2To3},
    {"a problem kind beside flat scans (segmented, batched and axis scans)", kMigrate3To4},
    {"a second winner for a size bucket's lower part", kMigrate4To5},
    {"narrow element types (compactions of int8 .. bfloat16)", kMigrate5To6},
};
static_assert(sizeof(kMigrations) / sizeof(kMigrations[0]) == kSchemaVersion - 1,
              "one migration per schema version step");

} // namespace

const char* schema_v1_sql() {
  return kSchemaV1;
}

const char* migration_description(int from) {
  if (from < 1 || from >= kSchemaVersion) return "";
  return kMigrations[from - 1].description;
}

void apply_migration(sqlite::Connection& c, int from) {
  if (from < 1 || from >= kSchemaVersion)
    throw scantune::CacheError(
        fmt::format("tuning database {}: no migration from schema version {}", c.path(), from));
  c.exec(kMigrations[from - 1].sql);
  c.exec(fmt::format("PRAGMA user_version = {}", from + 1));
  // The new schema must hold for the old rows too.
  if (c.query_int("SELECT count(*) FROM pragma_foreign_key_check") != 0)
    throw scantune::CacheError(
        fmt::format("tuning database {}: migration to schema version {} found dangling references",
                    c.path(), from + 1));
}

void create_schema(sqlite::Connection& c) {
  c.exec(fmt::format("PRAGMA application_id = {}", static_cast<std::int32_t>(kApplicationId)));
  c.exec(kSchemaV1);
  c.exec("PRAGMA user_version = 1");
  for (int v = 1; v < kSchemaVersion; ++v)
    apply_migration(c, v);
}

} // namespace scantune::db

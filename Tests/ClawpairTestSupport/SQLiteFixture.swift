import Foundation

/// SQLite databases for tests, written by python3's sqlite3 (an implementation independent of the
/// code under test), e.g. OpenClaw state stores with the upstream schema.
public enum SQLiteFixture {
    /// OpenClaw's identity tables as `src/state/openclaw-state-schema.sql` declares them.
    public static let openClawSchema = """
        CREATE TABLE IF NOT EXISTS device_identities (
          identity_key TEXT NOT NULL PRIMARY KEY,
          device_id TEXT NOT NULL,
          public_key_pem TEXT NOT NULL,
          private_key_pem TEXT NOT NULL,
          created_at_ms INTEGER NOT NULL,
          updated_at_ms INTEGER NOT NULL
        ) STRICT;
        CREATE INDEX IF NOT EXISTS idx_device_identities_device
          ON device_identities(device_id, updated_at_ms DESC);
        CREATE TABLE IF NOT EXISTS device_auth_tokens (
          device_id TEXT NOT NULL,
          role TEXT NOT NULL,
          token TEXT NOT NULL,
          scopes_json TEXT NOT NULL,
          updated_at_ms INTEGER NOT NULL,
          PRIMARY KEY (device_id, role)
        ) STRICT;
        CREATE TABLE IF NOT EXISTS gateway_origin_device_tokens (
          gateway_scope TEXT NOT NULL, device_id TEXT NOT NULL, role TEXT NOT NULL, token TEXT NOT NULL,
          scopes_json TEXT NOT NULL, updated_at_ms INTEGER NOT NULL,
          PRIMARY KEY (gateway_scope, device_id, role)
        ) STRICT;
        PRAGMA user_version = 12;
        """

    /// Creates the database at `path`: runs `sql`, then each `(statement, parameters)`, then
    /// commits; the file is then made 0600, as a private store is. Returns python3's result
    /// (status 0 on success).
    public static func build(_ path: String, sql: String, statements: [(String, [Any])] = []) throws -> ClawpairBinary.Result {
        let result = try buildPlain(path, sql: sql, statements: statements)
        chmod(path, 0o600)
        return result
    }

    /// A WAL-mode store whose rows are still only in its `-wal` (no checkpoint: the writer
    /// process exits without closing cleanly), with no `-shm` left beside it; files 0600.
    public static func buildWAL(_ path: String, sql: String, statements: [(String, [Any])] = []) throws -> ClawpairBinary.Result {
        let script = """
            import json, os, sqlite3, sys
            d = json.load(sys.stdin)
            c = sqlite3.connect(d["path"], isolation_level=None)
            c.execute("PRAGMA journal_mode=WAL")
            c.execute("PRAGMA wal_autocheckpoint=0")
            c.executescript(d["sql"])
            for q, p in d["stmts"]:
                c.execute(q, p)
            os._exit(0)
            """
        let input: [String: Any] = ["path": path, "sql": sql, "stmts": statements.map { [$0.0, $0.1] as [Any] }]
        let json = String(decoding: try JSONSerialization.data(withJSONObject: input), as: UTF8.self)
        let result = try ClawpairBinary.runProgram("/usr/bin/python3", ["-c", script], stdin: json)
        unlink(path + "-shm")
        for file in [path, path + "-wal"] { chmod(file, 0o600) }
        return result
    }

    private static func buildPlain(_ path: String, sql: String, statements: [(String, [Any])]) throws -> ClawpairBinary.Result {
        let script = """
            import json, sqlite3, sys
            d = json.load(sys.stdin)
            c = sqlite3.connect(d["path"])
            c.executescript(d["sql"])
            for q, p in d["stmts"]:
                c.execute(q, p)
            c.commit()
            c.close()
            """
        let input: [String: Any] = ["path": path, "sql": sql, "stmts": statements.map { [$0.0, $0.1] as [Any] }]
        let json = String(decoding: try JSONSerialization.data(withJSONObject: input), as: UTF8.self)
        return try ClawpairBinary.runProgram("/usr/bin/python3", ["-c", script], stdin: json)
    }
}

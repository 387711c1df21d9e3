package argfloor

import "testing"

func TestClassifyStatement(t *testing.T) {
	cases := []struct {
		sql   string
		level int
		label string
	}{
		// Reads.
		{"SELECT 1", 0, ""},
		{"select * from t where a = 1", 0, ""},
		{"SELECT * FROM t WHERE a='DROP'", 0, ""},
		{"SELECT * FROM t WHERE note = 'x''; DROP TABLE t; --'", 0, ""},
		{`SELECT "drop" FROM t`, 0, ""},
		{"SELECT `delete` FROM t", 0, ""},
		{"SELECT drop_date, update_count FROM t ORDER BY 1", 0, ""},
		{"SELECT * FROM t FOR UPDATE", 0, ""},
		{"-- DROP TABLE t\nSELECT 1", 0, ""},
		{"/* DROP TABLE t */ SELECT 1", 0, ""},
		{"WITH x AS (SELECT 1) SELECT * FROM x", 0, ""},
		{"(SELECT 1) UNION (SELECT 2)", 0, ""},
		{"SHOW TABLES", 0, ""},
		{"EXPLAIN DELETE FROM t", 0, ""},
		{"EXPLAIN (ANALYZE false) DELETE FROM t", 0, ""},
		{"SELECT a FROM delete_log JOIN grant_log USING (id)", 0, ""},
		{"", 0, ""},

		// Destructive: L5.
		{"DROP TABLE users", 5, "DROP TABLE"},
		{"drop table x", 5, "DROP TABLE"},
		{"select 1; drop table x", 5, "statement 2: DROP TABLE"},
		{"SELECT 1;DROP DATABASE prod", 5, "statement 2: DROP DATABASE"},
		{"/* x */ TRUNCATE t", 5, "TRUNCATE"},
		{"  truncate table t", 5, "TRUNCATE"},
		{"DELETE FROM t", 5, "DELETE without WHERE"},
		{"delete from t -- where id = 1", 5, "DELETE without WHERE"},
		{"DELETE FROM t WHERE 1=1", 5, "DELETE without WHERE"},
		{"DELETE FROM t WHERE true", 5, "DELETE without WHERE"},
		{"DELETE FROM t WHERE 'a' = 'a'", 5, "DELETE without WHERE"},
		{"DELETE FROM t WHERE 1 = 1 OR id = 2", 5, "DELETE without WHERE"},
		{"UPDATE t SET a = 1", 5, "UPDATE without WHERE"},
		{"UPDATE t SET a = (SELECT max(b) FROM u WHERE u.id = 1)", 5, "UPDATE without WHERE"},
		{"ALTER TABLE t DROP COLUMN c", 5, "ALTER … DROP"},
		{"WITH x AS (SELECT id FROM t) DELETE FROM t", 5, "DELETE without WHERE"},
		{"WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d", 5, "DELETE without WHERE"},
		{"SELECT 1 DROP TABLE t", 5, "DROP TABLE"},
		{"IF EXISTS (SELECT 1 FROM t) DROP TABLE t", 5, "DROP TABLE"},
		{"DELETE FROM a SELECT * FROM b WHERE id = 3", 5, "DELETE without WHERE"},
		{"EXPLAIN ANALYZE DELETE FROM t", 5, "DELETE without WHERE"},
		{"EXECUTE 'DROP TABLE t'", 5, "EXECUTE: DROP TABLE"},
		{"DO $$ BEGIN DROP TABLE t; END $$", 5, "DO: DROP TABLE"},
		{"COPY t FROM PROGRAM 'curl x'", 5, "COPY … PROGRAM"},
		{"MATCH (n) DETACH DELETE n", 5, "DELETE without WHERE"},
		// Dialects read both ways: each hides a statement from the other.
		{`SELECT '\'; DROP TABLE t; -- '`, 5, "statement 2: DROP TABLE"},
		{`SELECT '\''; DROP TABLE t; -- '`, 5, "statement 2: DROP TABLE"},
		{"SELECT $a$; DROP TABLE t; $a$", 5, "statement 2: DROP TABLE"},
		{"SELECT $$; DROP TABLE t; $$", 5, "statement 2: DROP TABLE"},
		{"SELECT 1 /*! ; DROP TABLE t */", 5, "statement 2: DROP TABLE"},
		{"SELECT 1--1; DROP TABLE t", 5, "statement 2: DROP TABLE"},

		// Access control: L5.
		{"GRANT ALL ON t TO bob", 5, "GRANT"},
		{"revoke select on t from bob", 5, "REVOKE"},
		{"CREATE USER bob WITH PASSWORD 'x'", 5, "CREATE USER"},
		{"CREATE OR REPLACE ROLE admin", 5, "CREATE ROLE"},
		{"ALTER TABLE t OWNER TO bob", 5, "ALTER … OWNER"},
		{"ALTER ROLE bob SUPERUSER", 5, "ALTER ROLE"},
		{"SET ROLE postgres", 5, "SET ROLE"},
		{"ALTER DEFAULT PRIVILEGES IN SCHEMA s GRANT SELECT ON TABLES TO bob", 5, "ALTER … GRANT"},

		// Other writes: L3.
		{"DELETE FROM t WHERE id=1", 3, "DELETE with WHERE"},
		{"DELETE FROM t WHERE 1 = 2", 3, "DELETE with WHERE"},
		{"UPDATE t SET a = 1 WHERE id = 2", 3, "UPDATE with WHERE"},
		{"INSERT INTO t (a) VALUES (1)", 3, "INSERT"},
		{"insert into t select * from u", 3, "INSERT"},
		{"INSERT INTO t VALUES (1) ON CONFLICT (id) DO UPDATE SET a = 2", 3, "INSERT"},
		{"INSERT INTO t VALUES (1) ON DUPLICATE KEY UPDATE a = 2", 3, "INSERT"},
		{"CREATE TABLE t (id int REFERENCES u ON DELETE CASCADE)", 3, "CREATE TABLE"},
		{"CREATE TEMP TABLE t (id int) ON COMMIT DROP", 3, "CREATE TABLE"},
		{"ALTER TABLE t ADD COLUMN c int", 3, "ALTER TABLE"},
		{"MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN DELETE", 3, "MERGE"},
		{"SELECT * INTO backup FROM t", 3, "SELECT … INTO"},
		{"CALL refresh_all()", 3, "CALL"},
		{"MATCH (n {id: 1}) DELETE n", 3, "DELETE with WHERE"},
		{"MATCH (n) WHERE n.id = 1 SET n.x = 2", 3, "SET"},
		{"VACUUM", 3, "VACUUM"},
	}
	var x sqlScratch
	for _, c := range cases {
		v := x.classify([]byte(c.sql))
		if v.level != c.level || v.label != c.label {
			t.Errorf("%q: got L%d %q, want L%d %q", c.sql, v.level, v.label, c.level, c.label)
		}
	}
}

func TestTautology(t *testing.T) {
	cases := map[string]bool{
		"1=1": true, "1 = 1": true, "WHERE 1=1": true, "true": true, "'x'='x'": true, "1=1 OR a=2": true,
		"1":      true,
		"id = 1": false, "1=2": false, "": false, "0": false, "a = a": false, "1=1 AND a=2": false,
		"status = 'open'": false,
	}
	var x sqlScratch
	for in, want := range cases {
		if got := x.tautology([]byte(in)); got != want {
			t.Errorf("tautology(%q) = %v, want %v", in, got, want)
		}
	}
}

/// The tables of a shared crawl and its claim function, created by the first worker.
extension PostgresCrawlStore {
    static let schema = [
        """
        CREATE TABLE IF NOT EXISTS crawl_pages(
          id BIGSERIAL PRIMARY KEY, url TEXT NOT NULL UNIQUE, host TEXT NOT NULL, depth INTEGER NOT NULL,
          state SMALLINT NOT NULL DEFAULT 0, attempts INTEGER NOT NULL DEFAULT 0, not_before FLOAT8 NOT NULL DEFAULT 0,
          status INTEGER, bytes BIGINT NOT NULL DEFAULT 0, digest TEXT, error TEXT, finished_at FLOAT8,
          worker TEXT, lease_until FLOAT8, claims INTEGER NOT NULL DEFAULT 0, completions INTEGER NOT NULL DEFAULT 0)
        """,
        "CREATE INDEX IF NOT EXISTS crawl_pages_queue ON crawl_pages(state, id)",
        "CREATE INDEX IF NOT EXISTS crawl_pages_host ON crawl_pages(host, state, id)",
        "CREATE INDEX IF NOT EXISTS crawl_pages_lease ON crawl_pages(state, lease_until)",
        "CREATE INDEX IF NOT EXISTS crawl_pages_due ON crawl_pages(state, not_before)",
        """
        CREATE TABLE IF NOT EXISTS crawl_hosts(
          host TEXT PRIMARY KEY, next_start FLOAT8 NOT NULL DEFAULT 0, paused_until FLOAT8 NOT NULL DEFAULT 0,
          crawl_delay FLOAT8 NOT NULL DEFAULT 0)
        """,
        "CREATE TABLE IF NOT EXISTS crawl_options(name TEXT PRIMARY KEY, value TEXT NOT NULL)",
        claimFunction,
    ]

    /// A claim in one round trip. Among the oldest due URLs (`claim_window` of them), the first
    /// whose host may start now (not busy here, not paused, its next start reached, fewer than
    /// `per_host` claims by all workers) has its host row locked, skipping hosts another worker
    /// is claiming for. Its claims are counted again under the lock, in a statement of its own
    /// (a fresh snapshot in READ COMMITTED, so a claim committed meanwhile counts); then the
    /// host's oldest due URL is leased to `claimant` and the host's next start moves on.
    static let claimFunction = """
        CREATE OR REPLACE FUNCTION crawl_claim(busy TEXT[], per_host INTEGER, start_delay FLOAT8, claimant TEXT, lease FLOAT8,
                                               claim_window INTEGER)
        RETURNS TABLE(id BIGINT, url TEXT, host TEXT, depth INTEGER, attempts INTEGER, claims INTEGER)
        LANGUAGE plpgsql VOLATILE AS $claim$
        #variable_conflict use_column
        DECLARE
          chosen TEXT;
          moment FLOAT8 := \(clock);  -- read once: per row, the clock costs more than the scan
        BEGIN
          SELECT h.host INTO chosen FROM crawl_hosts h
            JOIN (SELECT w.host, min(w.id) AS first FROM (
                    SELECT p.host, p.id FROM crawl_pages p WHERE p.state = 0 AND p.not_before <= moment
                    ORDER BY p.id LIMIT claim_window) w
                  GROUP BY w.host) due ON due.host = h.host
            WHERE h.next_start <= moment AND h.paused_until <= moment AND NOT (h.host = ANY(busy))
              AND (SELECT count(*) FROM crawl_pages c WHERE c.host = h.host AND c.state = 1) < per_host
            ORDER BY due.first LIMIT 1 FOR UPDATE OF h SKIP LOCKED;
          IF chosen IS NULL THEN
            RETURN;
          END IF;
          RETURN QUERY
            WITH claimed AS (
              UPDATE crawl_pages SET state = 1, worker = claimant, lease_until = moment + lease, claims = claims + 1
              WHERE id = (SELECT p.id FROM crawl_pages p WHERE p.host = chosen AND p.state = 0 AND p.not_before <= moment
                            AND (SELECT count(*) FROM crawl_pages c WHERE c.host = chosen AND c.state = 1) < per_host
                          ORDER BY p.id LIMIT 1 FOR UPDATE SKIP LOCKED)
              RETURNING id, url, host, depth, attempts, claims),
            started AS (
              UPDATE crawl_hosts SET next_start = moment + greatest(start_delay, crawl_delay)
              WHERE host = chosen AND EXISTS (SELECT 1 FROM claimed))
            SELECT c.id, c.url, c.host, c.depth, c.attempts, c.claims FROM claimed c;
        END
        $claim$
        """
}

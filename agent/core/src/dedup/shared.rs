//! The index of pages seen shared by the agents of one crawl, in Redis (the
//! way Browsertrix shares its digest index between concurrent crawls): each
//! agent looks a page up and adds it in one Lua script, which Redis runs
//! atomically, so two agents meeting the same content at once cannot both
//! keep it — the second one's script finds the first one's entry.
//!
//! Near duplicates are judged by the agent (the similarity of sketches is
//! `minhash::similarity`, kept in one place): the script answers with the
//! candidates it holds for the page's band keys and adds the page only when
//! no candidate is new to the agent. An agent given candidates compares them
//! and asks again with them as known; every round adds at least one known
//! candidate, so there are at most `bands + 1` rounds, and nearly always one.
//!
//! The entry is in Redis before the page's verdict leaves the agent: a page
//! judged anywhere after that sees it, and an agent killed loses nothing it
//! acknowledged (what Redis itself keeps across its own crash is its
//! persistence setting's: `appendonly yes` with `appendfsync everysec` loses
//! at most a second).
//!
//! When Redis cannot be reached, pages are judged as always and noted
//! `duplicate_unchecked` (not looked up, not added); the agent tries again
//! after `RETRY_AFTER`, so a down index costs no time a page.
//!
//! Keys, all under the hash tag `{namespace}` (one Redis Cluster slot):
//! `:digests` (16 bytes of SHA-1 → page number), `:bands` (8-byte band key →
//! page number), `:pages` (page number → sketch, id, URL as `store::Entry`
//! encodes them), `:meta` (bands, rows, signature version; `pages`, the
//! counter).

use super::store::Entry;
use crate::fingerprints::minhash::MINHASH_VERSION;
use std::time::{Duration, Instant};

/// After a failure, the next try to reach Redis waits this long.
pub const RETRY_AFTER: Duration = Duration::from_secs(1);

/// Look up, and add when nothing is new: see the module's doc.
const LOOK_UP_AND_ADD: &str = r#"
local d = ARGV[1]
if d ~= '' then
  local n = redis.call('HGET', KEYS[1], d)
  if n then return {'exact', n, redis.call('HGET', KEYS[3], n) or ''} end
end
local k = tonumber(ARGV[4])
local known = {}
for i = 5, 4 + k do known[ARGV[i]] = true end
local fresh = {'candidates'}
for i = 5 + k, #ARGV do
  local n = redis.call('HGET', KEYS[2], ARGV[i])
  if n and not known[n] then
    known[n] = true
    fresh[#fresh + 1] = n
    fresh[#fresh + 1] = redis.call('HGET', KEYS[3], n) or ''
  end
end
if #fresh > 1 then return fresh end
local held = tonumber(redis.call('HGET', KEYS[4], 'pages') or '0')
if held >= tonumber(ARGV[3]) then return {'full'} end
local n = tostring(redis.call('HINCRBY', KEYS[4], 'pages', 1) - 1)
if d ~= '' then redis.call('HSET', KEYS[1], d, n) end
for i = 5 + k, #ARGV do redis.call('HSETNX', KEYS[2], ARGV[i], n) end
redis.call('HSET', KEYS[3], n, ARGV[2])
return {'added', n}
"#;

/// What the shared index answered for a page.
pub enum Answer {
    /// The same content, held as page `n`.
    Exact(u64, Entry),
    /// Pages sharing a band key with this one, not known to the caller yet.
    Candidates(Vec<(u64, Entry)>),
    Added,
    /// The index holds `max_pages`: the page is not added.
    Full,
}

/// A connection to the shared index, made again when lost.
pub struct Shared {
    client: redis::Client,
    keys: [String; 4],
    shape: (usize, usize),
    con: Option<redis::Connection>,
    /// While Redis is down: when to try it again.
    retry_at: Option<Instant>,
    timeout: Duration,
    script: redis::Script,
}

impl Shared {
    /// The index at `url` under `namespace`. Refused: a URL that is not
    /// Redis's, or one carrying a password (secrets come from a file or the
    /// environment: `password`). Redis down is not refused: the agent
    /// starts and tries again; an index made with another shape is.
    pub fn open(
        url: &str,
        namespace: &str,
        password: Option<String>,
        shape: (usize, usize),
        timeout: Duration,
    ) -> anyhow::Result<Shared> {
        let mut info: redis::ConnectionInfo = redis::IntoConnectionInfo::into_connection_info(url)
            .map_err(|e| anyhow::anyhow!("not a Redis URL: {e}"))?;
        anyhow::ensure!(
            info.redis_settings().password().is_none(),
            "a password in the URL: give it in `dedup.shared_password_file` or CRAWLSIEVE_REDIS_PASSWORD"
        );
        if let Some(p) = password {
            let settings = info.redis_settings().clone().set_password(p);
            info = info.set_redis_settings(settings);
        }
        let keys = ["digests", "bands", "pages", "meta"].map(|k| format!("{{{namespace}}}:{k}"));
        let mut shared = Shared {
            client: redis::Client::open(info).map_err(|e| anyhow::anyhow!("{e}"))?,
            keys,
            shape,
            con: None,
            retry_at: None,
            timeout,
            script: redis::Script::new(LOOK_UP_AND_ADD),
        };
        match shared.connection() {
            Ok(_) => {}
            // What a retry cannot mend is a mistake to fix before the start.
            Err(e) if is_mistake(&e) => return Err(e),
            Err(e) => tracing::warn!(
                error = %e,
                "the shared index of pages seen is not reachable: pages are judged, noted duplicate_unchecked, until it is"
            ),
        }
        Ok(shared)
    }

    /// The connection, made when there is none and the retry time has come;
    /// a new connection checks the index's shape first.
    fn connection(&mut self) -> anyhow::Result<&mut redis::Connection> {
        if self.con.is_none() {
            if let Some(at) = self.retry_at.filter(|at| Instant::now() < *at) {
                let wait = at - Instant::now();
                anyhow::bail!("shared index down; next try in {} ms", wait.as_millis());
            }
            self.retry_at = Some(Instant::now() + RETRY_AFTER);
            let con = self.client.get_connection_with_timeout(self.timeout)?;
            con.set_read_timeout(Some(self.timeout))?;
            con.set_write_timeout(Some(self.timeout))?;
            self.con = Some(con);
            self.check_shape()?;
            self.retry_at = None;
        }
        Ok(self.con.as_mut().expect("made above"))
    }

    fn check_shape(&mut self) -> anyhow::Result<()> {
        let (bands, rows) = self.shape;
        let con = self.con.as_mut().expect("a connection");
        let meta = &self.keys[3];
        let want = [
            ("bands", bands as u64),
            ("rows", rows as u64),
            ("version", MINHASH_VERSION.into()),
        ];
        for (key, value) in want {
            let _: () = redis::cmd("HSETNX")
                .arg(meta)
                .arg(key)
                .arg(value)
                .query(con)?;
            let had: u64 = redis::cmd("HGET").arg(meta).arg(key).query(con)?;
            if had != value {
                self.con = None;
                anyhow::bail!("made with {key} = {had}, not {value}");
            }
        }
        Ok(())
    }

    /// Runs `f` on the connection; a failure drops it (made again later).
    fn with<T>(
        &mut self,
        f: impl FnOnce(&mut redis::Connection, &[String; 4], &redis::Script) -> redis::RedisResult<T>,
    ) -> anyhow::Result<T> {
        self.connection()?;
        let (con, keys, script) = (self.con.as_mut().expect("made"), &self.keys, &self.script);
        f(con, keys, script).map_err(|e| {
            self.con = None;
            self.retry_at = Some(Instant::now() + RETRY_AFTER);
            anyhow::anyhow!("shared index: {e}")
        })
    }

    /// One round of the script: `known` are the candidates the caller has
    /// compared already.
    pub fn look_up_and_add(
        &mut self,
        digest: Option<u128>,
        keys: &[u64],
        known: &[u64],
        entry: &Entry,
        max_pages: u64,
    ) -> anyhow::Result<Answer> {
        let reply: Vec<Vec<u8>> = self.with(|con, names, script| {
            let mut call = script.prepare_invoke();
            for name in names {
                call.key(name);
            }
            let digest = digest.map(|d| d.to_le_bytes().to_vec()).unwrap_or_default();
            call.arg(digest)
                .arg(entry.encode())
                .arg(max_pages)
                .arg(known.len());
            for n in known {
                call.arg(n.to_string());
            }
            for k in keys {
                call.arg(&k.to_le_bytes()[..]);
            }
            call.invoke(con)
        })?;
        parse(&reply)
    }

    /// Names page `n` as the first holder of `digest` when none is yet.
    pub fn alias(&mut self, digest: u128, n: u64) -> anyhow::Result<()> {
        self.with(|con, names, _| {
            redis::cmd("HSETNX")
                .arg(&names[0])
                .arg(&digest.to_le_bytes()[..])
                .arg(n.to_string())
                .query(con)
        })
    }
}

/// The URL as it can be shown: a password in it replaced.
pub fn redacted(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut u) if u.password().is_some() => {
            let _ = u.set_password(Some("REDACTED"));
            u.to_string()
        }
        Ok(_) => url.to_string(),
        Err(_) => "(a URL that does not parse)".to_string(),
    }
}

/// An index of another shape, or a password refused.
fn is_mistake(e: &anyhow::Error) -> bool {
    let text = e.to_string().to_ascii_lowercase();
    [
        "made with",
        "wrongpass",
        "noauth",
        "authentication",
        "invalid password",
    ]
    .iter()
    .any(|m| text.contains(m))
}

fn parse(reply: &[Vec<u8>]) -> anyhow::Result<Answer> {
    let number = |b: &[u8]| -> anyhow::Result<u64> {
        std::str::from_utf8(b)
            .ok()
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| anyhow::anyhow!("shared index: a page number that is not one"))
    };
    let entry = |b: &[u8]| {
        Entry::decode(b).ok_or_else(|| anyhow::anyhow!("shared index: an entry it cannot read"))
    };
    Ok(match reply.first().map(Vec::as_slice) {
        Some(b"exact") if reply.len() == 3 => Answer::Exact(number(&reply[1])?, entry(&reply[2])?),
        Some(b"candidates") => {
            let mut found = Vec::new();
            for pair in reply[1..].chunks(2) {
                if let [n, e] = pair {
                    found.push((number(n)?, entry(e)?));
                }
            }
            Answer::Candidates(found)
        }
        Some(b"added") => Answer::Added,
        Some(b"full") => Answer::Full,
        _ => anyhow::bail!("shared index: an answer it does not know"),
    })
}

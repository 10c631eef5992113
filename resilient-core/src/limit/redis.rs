//! [`RedisRateLimiter`]: a [`RateLimiter`]'s GCRA on one Redis key, so
//! that a fleet of processes shares one rate (feature `redis`).
//!
//! The key holds the theoretical arrival time of the next cell, in
//! microseconds since the Unix epoch, and expires when that time passes
//! (an expired key and a key at `now` admit the same). One Lua script
//! reads it, decides and writes it back, atomically on the server; its
//! clock is the server's `TIME`, one clock for the whole fleet, unless the
//! caller names the time ([`RedisRateLimiter::check_at`]).

use std::sync::{Arc, LazyLock, Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use redis::aio::ConnectionManager;
use redis::{IntoConnectionInfo, RedisResult, Script};

use super::{AcquireFuture, Completion, LimitExceeded, Limiter, RateLimiter};
use crate::idempotency::redis::{CONNECT_TIMEOUT, RESPONSE_TIMEOUT, connect};

/// The key prefix unless told otherwise; the limiter's name follows.
const DEFAULT_PREFIX: &str = "resilient:limit:";

/// GCRA on `KEYS[1]`: `ARGV[1]` is now in µs since the epoch (empty: the
/// server's `TIME`), `ARGV[2]` the µs a cell weighs, `ARGV[3]` the
/// tolerance (`per_cell × (burst − 1)`). Returns 0 when a cell was taken,
/// or else the µs until one frees (at least 1).
static GCRA: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"local now = tonumber(ARGV[1])
        if not now then
            local time = redis.call('TIME')
            now = tonumber(time[1]) * 1000000 + tonumber(time[2])
        end
        local per_cell = tonumber(ARGV[2])
        local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
        local earliest = tat - tonumber(ARGV[3])
        if now < earliest then
            return earliest - now
        end
        local next = math.max(tat, now) + per_cell
        redis.call('SET', KEYS[1], string.format('%.0f', next), 'PX', math.ceil((next - now) / 1000))
        return 0",
    )
});

/// What a [`RedisRateLimiter`] does when Redis doesn't answer (down,
/// unreachable, slower than its 500 ms answer timeout).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum WhenUnreachable {
    /// Each process applies the limit on its own, with the same rate and
    /// burst, until Redis answers again: calls go on, and a fleet of `n`
    /// processes sends at most `n` times the limit. The default.
    #[default]
    LimitLocally,
    /// Refuse every attempt ([`LimitExceeded`] with no `retry_after`):
    /// never above the limit, at the price of an outage while Redis is.
    Refuse,
}

/// A [`RateLimiter`] shared by every process that talks to one Redis
/// server (feature `redis`): the same GCRA, with governor's semantics, as
/// one Lua script on one key per limiter, `prefix + name`.
///
/// Under one clock it gives the answers of a [`RateLimiter`] of the same
/// rate and burst, to the microsecond (the key holds microseconds). Its
/// clock is the Redis server's, so that the processes' clocks needn't
/// agree; [`check_at`](Self::check_at) names the time instead.
///
/// Each attempt costs one round trip. Async callers (the attribute on an
/// `async fn`, the tower layer, the reqwest middleware) await it through
/// [`Limiter::try_acquire_async`]; blocking ones, and hedges, wait for it
/// on their thread, on a blocking connection of its own.
///
/// When Redis can't answer within 500 ms, [`WhenUnreachable`] decides: by
/// default each process goes on under the same limit on its own
/// (at most `n` times the limit across `n` processes, never unbounded);
/// [`when_unreachable(WhenUnreachable::Refuse)`](Self::when_unreachable)
/// refuses instead.
///
/// ```no_run
/// use resilient::limit::{Limiter, RateLimiter, RedisRateLimiter};
/// use std::sync::LazyLock;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), redis::RedisError> {
/// // The provider's quota, for the whole fleet: 60 requests a minute.
/// let quota = RedisRateLimiter::new(
///     "redis://127.0.0.1:6379/",
///     RateLimiter::per_minute(60).burst(5).named("llm"),
/// )
/// .await?;
/// assert_eq!(quota.key(), "resilient:limit:llm");
/// let limiters: [&dyn Limiter; 1] = [&quota];
/// # let _ = limiters;
/// # Ok(())
/// # }
/// ```
pub struct RedisRateLimiter {
    connection: ConnectionManager,
    client: redis::Client,
    /// The blocking connection, opened on first use and dropped after an
    /// error, to open again.
    blocking: Mutex<Option<redis::Connection>>,
    key: Arc<str>,
    /// µs per cell, and the tolerance in µs.
    per_cell: u64,
    tolerance: u64,
    local: RateLimiter,
    unreachable: WhenUnreachable,
}

impl RedisRateLimiter {
    /// Connects to the Redis server at `server` (a `redis://` URL, or any
    /// [`redis::IntoConnectionInfo`]) and applies `limit`'s rate, burst
    /// and name there, under the key `"resilient:limit:" + name`.
    ///
    /// The connection gives up quickly, as `RedisStore`'s does: 1 s to
    /// connect, 500 ms per answer.
    ///
    /// # Errors
    ///
    /// When `server` is not a valid address or can't be reached.
    ///
    /// ```no_run
    /// use resilient::limit::{RateLimiter, RedisRateLimiter};
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), redis::RedisError> {
    /// let limiter = RedisRateLimiter::new("redis://127.0.0.1:6379/", RateLimiter::per_second(10)).await?;
    /// # let _ = limiter;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn new(
        server: impl IntoConnectionInfo,
        limit: RateLimiter,
    ) -> RedisResult<RedisRateLimiter> {
        let client = redis::Client::open(server)?;
        let connection = connect(client.clone()).await?;
        let (per_cell_nanos, burst) = limit.cell();
        // A cell weighs at least a microsecond; 0 admits nothing, as a
        // rate or a burst of 0 does.
        let per_cell = match (per_cell_nanos, burst) {
            (0, _) | (_, 0) => 0,
            (nanos, _) => (nanos / 1_000).max(1),
        };
        Ok(RedisRateLimiter {
            connection,
            client,
            blocking: Mutex::new(None),
            key: Arc::from(format!("{DEFAULT_PREFIX}{}", limit.name())),
            per_cell,
            tolerance: per_cell.saturating_mul(u64::from(burst.saturating_sub(1))),
            local: limit,
            unreachable: WhenUnreachable::default(),
        })
    }

    /// Puts the limiter's key under `prefix` (default
    /// `"resilient:limit:"`) followed by its name.
    ///
    /// ```no_run
    /// # use resilient::limit::{RateLimiter, RedisRateLimiter};
    /// # async fn f() -> Result<(), redis::RedisError> {
    /// let limiter = RedisRateLimiter::new("redis://127.0.0.1/", RateLimiter::per_second(5).named("search"))
    ///     .await?
    ///     .with_prefix("shop:");
    /// assert_eq!(limiter.key(), "shop:search");
    /// # Ok(())
    /// # }
    /// ```
    pub fn with_prefix(mut self, prefix: &str) -> RedisRateLimiter {
        self.key = Arc::from(format!("{prefix}{}", self.local.name()));
        self
    }

    /// What to do while Redis doesn't answer; default
    /// [`WhenUnreachable::LimitLocally`].
    ///
    /// ```no_run
    /// # use resilient::limit::{RateLimiter, RedisRateLimiter, WhenUnreachable};
    /// # async fn f() -> Result<(), redis::RedisError> {
    /// let strict = RedisRateLimiter::new("redis://127.0.0.1/", RateLimiter::per_second(5))
    ///     .await?
    ///     .when_unreachable(WhenUnreachable::Refuse);
    /// # let _ = strict;
    /// # Ok(())
    /// # }
    /// ```
    pub fn when_unreachable(mut self, unreachable: WhenUnreachable) -> RedisRateLimiter {
        self.unreachable = unreachable;
        self
    }

    /// The Redis key that holds the limiter's state.
    ///
    /// ```no_run
    /// # use resilient::limit::RedisRateLimiter;
    /// # fn f(limiter: RedisRateLimiter) {
    /// println!("GET {}", limiter.key());
    /// # }
    /// ```
    pub fn key(&self) -> &str {
        &self.key
    }

    /// Takes a cell at the Redis server's time, or returns how long until
    /// one frees; Redis's error if it didn't answer.
    ///
    /// ```no_run
    /// # use resilient::limit::RedisRateLimiter;
    /// # async fn f(limiter: RedisRateLimiter) -> Result<(), redis::RedisError> {
    /// if let Err(wait) = limiter.check().await? {
    ///     tokio::time::sleep(wait).await;
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub async fn check(&self) -> RedisResult<Result<(), Duration>> {
        self.check_on(None).await
    }

    /// Takes a cell at `now`, or returns how long until one frees, as
    /// [`RateLimiter::check_at`] does: for tests, or a fleet whose clocks
    /// agree. Times before the Unix epoch count as the epoch.
    ///
    /// ```no_run
    /// use resilient::limit::{RateLimiter, RedisRateLimiter};
    /// use std::time::{Duration, SystemTime};
    ///
    /// # async fn f() -> Result<(), redis::RedisError> {
    /// let limiter = RedisRateLimiter::new("redis://127.0.0.1/", RateLimiter::per_second(2)).await?;
    /// let now = SystemTime::now();
    /// assert_eq!(limiter.check_at(now).await?, Ok(()));
    /// assert_eq!(limiter.check_at(now).await?, Ok(()));
    /// assert_eq!(limiter.check_at(now).await?, Err(Duration::from_millis(500)));
    /// # Ok(())
    /// # }
    /// ```
    pub async fn check_at(&self, now: SystemTime) -> RedisResult<Result<(), Duration>> {
        self.check_on(Some(now)).await
    }

    async fn check_on(&self, now: Option<SystemTime>) -> RedisResult<Result<(), Duration>> {
        if self.per_cell == 0 {
            return Ok(Err(Duration::MAX));
        }
        let mut connection = self.connection.clone();
        let wait: u64 = self.invocation(now).invoke_async(&mut connection).await?;
        Ok(waited(wait))
    }

    /// The same check on the blocking connection.
    fn check_blocking(&self) -> RedisResult<Result<(), Duration>> {
        if self.per_cell == 0 {
            return Ok(Err(Duration::MAX));
        }
        let mut held = self.blocking.lock().unwrap_or_else(PoisonError::into_inner);
        let connection = match &mut *held {
            Some(connection) => connection,
            None => {
                let connection = self.client.get_connection_with_timeout(CONNECT_TIMEOUT)?;
                connection.set_read_timeout(Some(RESPONSE_TIMEOUT))?;
                connection.set_write_timeout(Some(RESPONSE_TIMEOUT))?;
                held.insert(connection)
            }
        };
        let answer = self.invocation(None).invoke(connection);
        if answer.is_err() {
            *held = None;
        }
        Ok(waited(answer?))
    }

    fn invocation(&self, now: Option<SystemTime>) -> redis::ScriptInvocation<'static> {
        let mut invocation = GCRA.key(&*self.key);
        let now = now.map_or(String::new(), |now| {
            let since = now.duration_since(UNIX_EPOCH).unwrap_or_default();
            since.as_micros().to_string()
        });
        invocation.arg(now).arg(self.per_cell).arg(self.tolerance);
        invocation
    }

    /// A check's answer as the engine takes it, Redis's failure decided by
    /// [`WhenUnreachable`].
    fn decide(
        &self,
        now: Instant,
        answer: RedisResult<Result<(), Duration>>,
    ) -> Result<(), LimitExceeded> {
        let name = self.local.name();
        match answer {
            Ok(Ok(())) => Ok(()),
            Ok(Err(wait)) => Err(LimitExceeded::new(
                name,
                (wait != Duration::MAX).then_some(wait),
            )),
            Err(_) => match self.unreachable {
                WhenUnreachable::LimitLocally => self.local.try_acquire(now),
                WhenUnreachable::Refuse => Err(LimitExceeded::new(name, None)),
            },
        }
    }
}

/// The script's answer: 0 for a cell taken, or the µs until one frees.
fn waited(wait: u64) -> Result<(), Duration> {
    match wait {
        0 => Ok(()),
        micros => Err(Duration::from_micros(micros)),
    }
}

impl Limiter for RedisRateLimiter {
    /// Takes a cell on Redis, blocking the thread for the round trip.
    fn try_acquire(&self, now: Instant) -> Result<(), LimitExceeded> {
        self.decide(now, self.check_blocking())
    }

    fn try_acquire_async(&self, now: Instant) -> Option<AcquireFuture<'_>> {
        Some(Box::pin(
            async move { self.decide(now, self.check().await) },
        ))
    }

    /// Nothing to return: the cell was spent when the attempt started.
    fn release(&self, _now: Instant, _rtt: Duration, _completion: Completion) {}

    fn name(&self) -> &'static str {
        self.local.name()
    }
}

impl std::fmt::Debug for RedisRateLimiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisRateLimiter")
            .field("key", &self.key)
            .field("per_cell_us", &self.per_cell)
            .field("tolerance_us", &self.tolerance)
            .field("unreachable", &self.unreachable)
            .finish()
    }
}

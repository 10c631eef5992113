//! [`RedisStore`]: idempotency keys in one Redis instance, shared by every
//! process that talks to it (feature `redis`).
//!
//! One Redis key per idempotency key, `prefix + key`, holding either
//! `claim:<token>` (with the lease as its expiry) or `value:<json>` (with the
//! TTL). Every change that depends on who holds the key is a Lua script, so
//! it is atomic on the server.

use std::future::Future;
use std::sync::{Arc, LazyLock};
use std::time::{Duration, Instant};

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{IntoConnectionInfo, RedisError, Script};
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::{Claim, ClaimToken, DEFAULT_LEASE, IdempotencyStore, StoreError};

/// The key prefix unless told otherwise.
const DEFAULT_PREFIX: &str = "resilient:idem:";

/// What a claimed key holds before its token.
const CLAIM_TAG: &[u8] = b"claim:";
/// What a key holding a stored success holds before its JSON.
const VALUE_TAG: &[u8] = b"value:";

/// A waiter polls the key after this long, then twice as long each time, up
/// to [`POLL_MAX`]: quick to join a short call, light on a long one.
const POLL_FIRST: Duration = Duration::from_millis(10);
const POLL_MAX: Duration = Duration::from_millis(250);

/// The longest expiry sent to Redis, about 35 000 years: Redis refuses an
/// expiry that overflows its clock, and no TTL needs more.
const MAX_EXPIRY_MS: u64 = 1 << 50;

/// Claims `KEYS[1]` for `ARGV[2]` ms under the marker `ARGV[1]` if it is
/// free (returns nil); otherwise returns what it holds.
static CLAIM: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
            return false
        end
        return redis.call('GET', KEYS[1])",
    )
});

/// Replaces the claim `ARGV[1]` by the value `ARGV[2]` for `ARGV[3]` ms, if
/// the claim still holds the key.
static COMPLETE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"if redis.call('GET', KEYS[1]) == ARGV[1] then
            redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
            return 1
        end
        return 0",
    )
});

/// Deletes the key if the claim `ARGV[1]` still holds it.
static RELEASE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"if redis.call('GET', KEYS[1]) == ARGV[1] then
            return redis.call('DEL', KEYS[1])
        end
        return 0",
    )
});

/// Extends the claim `ARGV[1]` to `ARGV[2]` ms, if it still holds the key.
static RENEW: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"if redis.call('GET', KEYS[1]) == ARGV[1] then
            return redis.call('PEXPIRE', KEYS[1], ARGV[2])
        end
        return 0",
    )
});

/// Idempotency keys in one Redis instance, shared by a fleet (feature
/// `redis`).
///
/// A claim is `SET key claim:<token> NX PX <lease>`; the running call renews
/// it every half lease, and a Lua script replaces it by the value
/// (`SET … PX <ttl>`) or deletes it only if the token still matches. Waiters
/// in other processes poll the key, 10 ms after the first look and twice as
/// long each time up to 250 ms. Values are stored as JSON, so one store
/// serves functions of any `T: Serialize + DeserializeOwned`.
///
/// One connection, multiplexed and re-established after a drop, is shared
/// by clones of the store. When Redis can't be reached:
///
/// * before the body runs (claiming, waiting), the call fails with
///   [`StoreError::Unavailable`] and the body does not run;
/// * after it ran, its value is returned but not stored, and the claim runs
///   out its lease, after which another call may run the body again.
///
/// One instance gives mutual exclusion as long as it stays up with its data;
/// this is not Redlock: a failover to a replica that missed the claim, or a
/// holder paused longer than its lease, can let a second call run (see the
/// [module documentation](super)).
///
/// ```no_run
/// use resilient::TokioClock;
/// use resilient::idempotency::{run_idempotent, RedisStore, DEFAULT_TTL};
/// use std::time::Duration;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let store = RedisStore::new("redis://127.0.0.1:6379/")
///     .await?
///     .with_prefix("shop:idem:")
///     .with_lease(Duration::from_secs(10));
///
/// let charge = || async { (Ok::<u64, std::io::Error>(4200), true) };
/// let (charged, status) = run_idempotent(&store, "order-7", DEFAULT_TTL, None, &TokioClock, charge).await?;
/// println!("{charged:?} ({status:?})");
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct RedisStore {
    connection: ConnectionManager,
    prefix: Arc<str>,
    lease: Duration,
}

impl RedisStore {
    /// Connects to the Redis server at `server` (a `redis://` URL, or any
    /// [`redis::IntoConnectionInfo`]).
    ///
    /// The connection gives up quickly (1 s to connect, 500 ms per answer,
    /// two reconnection attempts), since a call waiting on its store is a
    /// call not running: an unreachable store fails the call instead.
    ///
    /// # Errors
    ///
    /// [`StoreError::Unavailable`] if the server can't be reached,
    /// [`StoreError::Backend`] if `server` is not a valid address.
    ///
    /// ```no_run
    /// use resilient::idempotency::RedisStore;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), resilient::idempotency::StoreError> {
    /// let store = RedisStore::new("redis://127.0.0.1:6379/").await?;
    /// assert_eq!(store.prefix(), "resilient:idem:");
    /// # Ok(())
    /// # }
    /// ```
    pub async fn new(server: impl IntoConnectionInfo) -> Result<RedisStore, StoreError> {
        let client = redis::Client::open(server).map_err(store_error)?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(Duration::from_secs(1)))
            .set_response_timeout(Some(Duration::from_millis(500)))
            .set_number_of_retries(2)
            .set_max_delay(Duration::from_millis(250));
        let connection = ConnectionManager::new_with_config(client, config)
            .await
            .map_err(store_error)?;
        Ok(RedisStore::from_connection(connection))
    }

    /// A store on a connection configured by the caller (timeouts,
    /// reconnection, TLS), with the default prefix and lease.
    ///
    /// ```no_run
    /// use resilient::idempotency::RedisStore;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), redis::RedisError> {
    /// let client = redis::Client::open("redis://127.0.0.1:6379/")?;
    /// let store = RedisStore::from_connection(client.get_connection_manager().await?);
    /// # Ok(())
    /// # }
    /// ```
    pub fn from_connection(connection: ConnectionManager) -> RedisStore {
        RedisStore {
            connection,
            prefix: Arc::from(DEFAULT_PREFIX),
            lease: DEFAULT_LEASE,
        }
    }

    /// Puts the store's Redis keys under `prefix` (default
    /// `"resilient:idem:"`), so that stores of different applications on one
    /// server don't share keys.
    ///
    /// ```no_run
    /// use resilient::idempotency::RedisStore;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), resilient::idempotency::StoreError> {
    /// let store = RedisStore::new("redis://127.0.0.1:6379/").await?.with_prefix("billing:");
    /// assert_eq!(store.prefix(), "billing:");
    /// # Ok(())
    /// # }
    /// ```
    pub fn with_prefix(mut self, prefix: impl Into<String>) -> RedisStore {
        self.prefix = Arc::from(prefix.into());
        self
    }

    /// Sets how long a claim lasts without renewal (default
    /// [`DEFAULT_LEASE`]; at least 1 ms): how long a process that died
    /// mid-call keeps the others waiting.
    ///
    /// ```no_run
    /// use resilient::idempotency::RedisStore;
    /// use std::time::Duration;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), resilient::idempotency::StoreError> {
    /// let store = RedisStore::new("redis://127.0.0.1:6379/").await?.with_lease(Duration::from_secs(5));
    /// assert_eq!(store.lease(), Duration::from_secs(5));
    /// # Ok(())
    /// # }
    /// ```
    pub fn with_lease(mut self, lease: Duration) -> RedisStore {
        self.lease = lease.max(Duration::from_millis(1));
        self
    }

    /// The prefix of the store's Redis keys.
    ///
    /// ```no_run
    /// # use resilient::idempotency::RedisStore;
    /// # async fn f(store: RedisStore) {
    /// let redis_key = format!("{}{}", store.prefix(), "order-7");
    /// # }
    /// ```
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// How long a claim lasts without renewal.
    ///
    /// ```no_run
    /// # use resilient::idempotency::{RedisStore, DEFAULT_LEASE};
    /// # async fn f(store: RedisStore) {
    /// assert_eq!(store.lease(), DEFAULT_LEASE);
    /// # }
    /// ```
    pub fn lease(&self) -> Duration {
        self.lease
    }

    fn redis_key(&self, key: &str) -> String {
        format!("{}{key}", self.prefix)
    }

    /// Runs `script`, one of those that act only while the claim `token`
    /// holds `key`, with `args` after the claim's marker; `true` if it acted.
    fn while_claimed(
        &self,
        script: &'static Script,
        key: &str,
        token: ClaimToken,
        args: Result<Vec<Vec<u8>>, StoreError>,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send + 'static {
        let mut connection = self.connection.clone();
        let redis_key = self.redis_key(key);
        async move {
            let mut invocation = script.key(redis_key);
            invocation.arg(claim_marker(token));
            for arg in args? {
                invocation.arg(arg);
            }
            let acted: i64 = invocation
                .invoke_async(&mut connection)
                .await
                .map_err(store_error)?;
            Ok(acted == 1)
        }
    }
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore")
            .field("prefix", &self.prefix)
            .field("lease", &self.lease)
            .finish_non_exhaustive()
    }
}

/// What a claim stores: the tag and the token, so that only its holder's
/// scripts match it.
fn claim_marker(token: ClaimToken) -> String {
    format!("claim:{token}")
}

/// An expiry in whole milliseconds, as `PX` wants it: at least 1, at most
/// [`MAX_EXPIRY_MS`].
fn expiry_ms(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).map_or(MAX_EXPIRY_MS, |ms| ms.clamp(1, MAX_EXPIRY_MS))
}

/// An expiry as the argument of `PX`.
fn px(duration: Duration) -> Vec<u8> {
    expiry_ms(duration).to_string().into_bytes()
}

/// Connection trouble is [`StoreError::Unavailable`]; anything the server
/// itself refused is [`StoreError::Backend`].
fn store_error(err: RedisError) -> StoreError {
    if err.is_io_error()
        || err.is_connection_dropped()
        || err.is_connection_refusal()
        || err.is_timeout()
        || err.is_unrecoverable_error()
    {
        StoreError::Unavailable(Box::new(err))
    } else {
        StoreError::Backend(Box::new(err))
    }
}

/// Reads what the claim script found under a key.
fn read_held<T: DeserializeOwned>(held: &[u8]) -> Result<Claim<T>, StoreError> {
    if held.starts_with(CLAIM_TAG) {
        return Ok(Claim::InFlight { expires_in: None });
    }
    match held.strip_prefix(VALUE_TAG) {
        Some(json) => serde_json::from_slice(json)
            .map(Claim::Stored)
            .map_err(|err| StoreError::Deserialize(Box::new(err))),
        None => Err(StoreError::Deserialize(
            "the key holds neither a claim nor a value written by RedisStore".into(),
        )),
    }
}

impl<T> IdempotencyStore<T> for RedisStore
where
    T: Serialize + DeserializeOwned + Send,
{
    fn claim(
        &self,
        key: &str,
        _now: Instant,
    ) -> impl Future<Output = Result<Claim<T>, StoreError>> + Send {
        let mut connection = self.connection.clone();
        let redis_key = self.redis_key(key);
        let token = ClaimToken::random();
        let lease = self.lease;
        async move {
            let held: Option<Vec<u8>> = CLAIM
                .key(&redis_key)
                .arg(claim_marker(token))
                .arg(expiry_ms(lease))
                .invoke_async(&mut connection)
                .await
                .map_err(store_error)?;
            match held {
                None => Ok(Claim::Acquired { token, lease }),
                Some(held) => read_held(&held),
            }
        }
    }

    fn wait(&self, key: &str) -> impl Future<Output = Result<(), StoreError>> + Send {
        let mut connection = self.connection.clone();
        let redis_key = self.redis_key(key);
        async move {
            let mut pause = POLL_FIRST;
            loop {
                tokio::time::sleep(pause).await;
                let held: Option<Vec<u8>> = redis::cmd("GET")
                    .arg(&redis_key)
                    .query_async(&mut connection)
                    .await
                    .map_err(store_error)?;
                if !held.is_some_and(|held| held.starts_with(CLAIM_TAG)) {
                    return Ok(());
                }
                pause = (pause * 2).min(POLL_MAX);
            }
        }
    }

    fn complete(
        &self,
        key: &str,
        token: ClaimToken,
        value: &T,
        ttl: Duration,
        _now: Instant,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send {
        let stored = serde_json::to_vec(value)
            .map(|json| vec![[VALUE_TAG, &json].concat(), px(ttl)])
            .map_err(|err| StoreError::Serialize(Box::new(err)));
        self.while_claimed(&COMPLETE, key, token, stored)
    }

    fn release(
        &self,
        key: &str,
        token: ClaimToken,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send + 'static {
        self.while_claimed(&RELEASE, key, token, Ok(Vec::new()))
    }

    fn renew(
        &self,
        key: &str,
        token: ClaimToken,
        _now: Instant,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send {
        self.while_claimed(&RENEW, key, token, Ok(vec![px(self.lease)]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expiries_are_whole_milliseconds_within_what_redis_accepts() {
        assert_eq!(expiry_ms(Duration::ZERO), 1);
        assert_eq!(expiry_ms(Duration::from_micros(1500)), 1);
        assert_eq!(expiry_ms(Duration::from_secs(30)), 30_000);
        assert_eq!(expiry_ms(Duration::MAX), MAX_EXPIRY_MS);
    }

    #[test]
    fn a_held_key_reads_as_a_claim_a_value_or_an_error() {
        assert_eq!(
            read_held::<u32>(b"claim:0123").unwrap(),
            Claim::InFlight { expires_in: None }
        );
        assert_eq!(read_held::<u32>(b"value:42").unwrap(), Claim::Stored(42));
        let wrong_type = read_held::<u32>(b"value:\"text\"").unwrap_err();
        assert!(
            matches!(wrong_type, StoreError::Deserialize(_)),
            "{wrong_type:?}"
        );
        let foreign = read_held::<u32>(b"42").unwrap_err();
        assert_eq!(
            foreign.to_string(),
            "could not deserialise the value stored under an idempotency key: \
             the key holds neither a claim nor a value written by RedisStore"
        );
    }

    #[test]
    fn a_claim_marker_names_its_token() {
        assert_eq!(
            claim_marker(ClaimToken::from_u128(0xab)),
            "claim:000000000000000000000000000000ab"
        );
    }
}

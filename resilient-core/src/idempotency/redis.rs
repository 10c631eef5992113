//! [`RedisStore`]: idempotency keys in one Redis instance, shared by every
//! process that talks to it (feature `redis`).
//!
//! One Redis key per idempotency key, `prefix + key`, holding either a
//! claim, `claim:<token>:<fencing token>:<fingerprint>` (with the lease as
//! its expiry), or a stored success, `value:<json>` (`value#<fingerprint>:
//! <json>` with a fingerprint; with the TTL as expiry), or a value handed to
//! the waiters of one claim, `handoff:<fencing token>:<json>` (TTL zero).
//! Fencing tokens come from one counter, `prefix + "fencing"`, which has no
//! expiry. Every change that depends on who holds the key is a Lua script,
//! so it is atomic on the server.

use std::future::Future;
use std::sync::{Arc, LazyLock};
use std::time::{Duration, Instant};

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{IntoConnectionInfo, RedisError, Script};
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::{Claim, ClaimRequest, ClaimToken, DEFAULT_LEASE, IdempotencyStore, StoreError};

/// The key prefix unless told otherwise.
const DEFAULT_PREFIX: &str = "resilient:idem:";

/// The name, after the prefix, of the counter of fencing tokens.
const FENCING_COUNTER: &str = "fencing";

/// What a claimed key holds before its token.
const CLAIM_TAG: &[u8] = b"claim:";
/// What a key holding a stored success holds before its JSON.
const VALUE_TAG: &[u8] = b"value:";
/// What a key holding a stored success with a fingerprint holds before it.
const FINGERPRINTED_TAG: &[u8] = b"value#";
/// What a key holding a value for the waiters of one claim holds before
/// that claim's fencing token.
const HANDOFF_TAG: &[u8] = b"handoff:";

/// A waiter polls the key after this long, then twice as long each time, up
/// to [`POLL_MAX`]: quick to join a short call, light on a long one.
const POLL_FIRST: Duration = Duration::from_millis(10);
const POLL_MAX: Duration = Duration::from_millis(250);

/// The longest expiry sent to Redis, about 35 000 years: Redis refuses an
/// expiry that overflows its clock, and no TTL needs more.
const MAX_EXPIRY_MS: u64 = 1 << 50;

/// Claims `KEYS[1]` for `ARGV[2]` ms as `ARGV[1]` (the claim's prefix), the
/// next fencing token from `KEYS[2]` and the fingerprint `ARGV[3]`, if it
/// is free; returns `{'acquired', token}`, or else `{'held', what}`.
///
/// Free also: a value handed over to the waiters of another claim than
/// `ARGV[4]`, and exactly the bytes `ARGV[5]` (a value that did not read
/// back, which the caller takes as a miss).
static CLAIM: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"local held = redis.call('GET', KEYS[1])
        if held then
            if held == ARGV[5] then
                held = false
            elseif string.sub(held, 1, 8) == 'handoff:' then
                if string.match(held, '^handoff:(%d+):') == ARGV[4] then
                    return {'held', held}
                end
                held = false
            else
                return {'held', held}
            end
        end
        local fence = redis.call('INCR', KEYS[2])
        redis.call('SET', KEYS[1], ARGV[1] .. fence .. ':' .. ARGV[3], 'PX', ARGV[2])
        return {'acquired', tostring(fence)}",
    )
});

/// Replaces the claim whose prefix is `ARGV[1]` by the JSON `ARGV[2]` for
/// `ARGV[3]` ms, if the claim still holds the key: as a stored value (with
/// the claim's fingerprint), or, if `ARGV[4]` is `handoff`, as a value for
/// the claim's waiters only. A key that already holds this value (stored
/// by a first try whose answer was lost) counts as done.
static COMPLETE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"local held = redis.call('GET', KEYS[1])
        if not held or string.sub(held, 1, #ARGV[1]) ~= ARGV[1] then
            if held and ARGV[4] ~= 'handoff' and string.sub(held, 1, 5) == 'value'
                and string.sub(held, -#ARGV[2]) == ARGV[2] then
                return 1
            end
            return 0
        end
        local fence, fingerprint = string.match(held, '^claim:%x+:(%d+):(.*)$')
        local stored
        if ARGV[4] == 'handoff' then
            stored = 'handoff:' .. fence .. ':' .. ARGV[2]
        elseif fingerprint == '' then
            stored = 'value:' .. ARGV[2]
        else
            stored = 'value#' .. fingerprint .. ':' .. ARGV[2]
        end
        redis.call('SET', KEYS[1], stored, 'PX', ARGV[3])
        return 1",
    )
});

/// Deletes the key if the claim whose prefix is `ARGV[1]` still holds it.
static RELEASE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"local held = redis.call('GET', KEYS[1])
        if held and string.sub(held, 1, #ARGV[1]) == ARGV[1] then
            return redis.call('DEL', KEYS[1])
        end
        return 0",
    )
});

/// Extends the claim whose prefix is `ARGV[1]` to `ARGV[2]` ms, if it still
/// holds the key.
static RENEW: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"local held = redis.call('GET', KEYS[1])
        if held and string.sub(held, 1, #ARGV[1]) == ARGV[1] then
            return redis.call('PEXPIRE', KEYS[1], ARGV[2])
        end
        return 0",
    )
});

/// Idempotency keys in one Redis instance, shared by a fleet (feature
/// `redis`).
///
/// A claim is `SET key claim:<token>:… PX <lease>` on a free key, with a
/// fencing token from `INCR`; the running call renews it every half lease,
/// and a Lua script replaces it by the value (`SET … PX <ttl>`) or deletes
/// it only if the token still matches. Waiters
/// in other processes poll the key, 10 ms after the first look and twice as
/// long each time up to 250 ms. Values are stored as JSON, so one store
/// serves functions of any `T: Serialize + DeserializeOwned`.
///
/// A value is stored only if its JSON reads back as a `T` (`f64::NAN`
/// becomes `null`, which doesn't): the call returns it, unstored, and
/// the report says why. And an entry that does not read back (a type that
/// changed between deploys) is taken as a miss: the call claims the key
/// and runs, rather than fail every call until the TTL ends.
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
        let connection = connect(client).await.map_err(store_error)?;
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
            invocation.arg(claim_prefix(token));
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

/// How a claim's marker starts: the tag and the token, so that only its
/// holder's scripts match it.
fn claim_prefix(token: ClaimToken) -> String {
    format!("claim:{token}:")
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
/// A connection to `client`'s server that gives up quickly (1 s to
/// connect, 500 ms per answer, two reconnection attempts), since a call
/// waiting on Redis is a call not running; shared by its clones, and
/// re-established after a drop.
pub(crate) async fn connect(client: redis::Client) -> Result<ConnectionManager, RedisError> {
    let config = ConnectionManagerConfig::new()
        .set_connection_timeout(Some(CONNECT_TIMEOUT))
        .set_response_timeout(Some(RESPONSE_TIMEOUT))
        .set_number_of_retries(2)
        .set_max_delay(Duration::from_millis(250));
    ConnectionManager::new_with_config(client, config).await
}

/// How long [`connect`] waits for a connection, and then for each answer.
pub(crate) const CONNECT_TIMEOUT: Duration = Duration::from_secs(1);
pub(crate) const RESPONSE_TIMEOUT: Duration = Duration::from_millis(500);

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

/// What a key held that is not a claim: its JSON, and the fingerprint
/// it was stored under.
struct Held<'a> {
    json: &'a [u8],
    fingerprint: Option<u64>,
}

/// Reads what the claim script found under a key: a claim, or the JSON of
/// a value (checked against the request's fingerprint).
fn read_held<'a, T>(
    held: &'a [u8],
    request: ClaimRequest,
) -> Result<Result<Held<'a>, Claim<T>>, StoreError> {
    let not_ours = || {
        StoreError::Deserialize(
            "the key holds neither a claim nor a value written by RedisStore".into(),
        )
    };
    let number = |digits: &[u8]| {
        std::str::from_utf8(digits)
            .ok()
            .and_then(|d| d.parse::<u64>().ok())
    };
    let held = if let Some(claim) = held.strip_prefix(CLAIM_TAG) {
        // <token>:<fencing token>:<fingerprint>
        let mut parts = claim.splitn(3, |&b| b == b':').skip(1);
        let fencing_token = parts.next().and_then(number);
        let fingerprint = parts.next().and_then(number);
        if request.conflicts_with(fingerprint) {
            return Ok(Err(Claim::Conflict));
        }
        return Ok(Err(Claim::InFlight {
            expires_in: None,
            fencing_token,
        }));
    } else if let Some(json) = held.strip_prefix(VALUE_TAG) {
        Held {
            json,
            fingerprint: None,
        }
    } else if let Some(rest) = held.strip_prefix(FINGERPRINTED_TAG) {
        let (fingerprint, json) = split_number(rest).ok_or_else(not_ours)?;
        Held {
            json,
            fingerprint: Some(fingerprint),
        }
    } else if let Some(rest) = held.strip_prefix(HANDOFF_TAG) {
        let (_, json) = split_number(rest).ok_or_else(not_ours)?;
        Held {
            json,
            fingerprint: None,
        }
    } else {
        return Err(not_ours());
    };
    if request.conflicts_with(held.fingerprint) {
        return Ok(Err(Claim::Conflict));
    }
    Ok(Ok(held))
}

/// `<number>:<rest>` split in two.
fn split_number(bytes: &[u8]) -> Option<(u64, &[u8])> {
    let colon = bytes.iter().position(|&b| b == b':')?;
    let number = std::str::from_utf8(&bytes[..colon]).ok()?.parse().ok()?;
    Some((number, &bytes[colon + 1..]))
}

/// The JSON of `value`, if it reads back as a `T`.
fn json_that_reads_back<T: Serialize + DeserializeOwned>(value: &T) -> Result<Vec<u8>, StoreError> {
    let json = serde_json::to_vec(value).map_err(|err| StoreError::Serialize(Box::new(err)))?;
    serde_json::from_slice::<T>(&json).map_err(|err| StoreError::Deserialize(Box::new(err)))?;
    Ok(json)
}

/// A fingerprint or a fencing token as a script's argument: empty for none.
fn optional(number: Option<u64>) -> String {
    number.map(|n| n.to_string()).unwrap_or_default()
}

/// A value that a [`RedisStore`] keeps: one that serde writes to JSON and
/// reads back. Every `T: Serialize + DeserializeOwned + Send` is one; the
/// trait exists so that a type that is not says so in one error.
///
/// ```
/// use resilient::idempotency::RedisValue;
///
/// fn kept_in_redis<T: RedisValue>() {}
/// kept_in_redis::<(u64, String)>();
/// kept_in_redis::<Vec<Option<f64>>>();
/// ```
///
/// A type without serde is refused, with a message that says to derive it:
///
/// ```compile_fail,E0277
/// use resilient::idempotency::RedisValue;
///
/// #[derive(Clone)]
/// struct Receipt {
///     id: u64,
/// }
///
/// fn kept_in_redis<T: RedisValue>() {}
/// kept_in_redis::<Receipt>();
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is stored in Redis as JSON, so it must implement serde's `Serialize` and `Deserialize`",
    label = "a `RedisStore` keeps this function's success value",
    note = "derive both: `#[derive(serde::Serialize, serde::Deserialize)]` on `{Self}`, or use a `MemoryStore`, which keeps any `Clone` value"
)]
pub trait RedisValue: Serialize + DeserializeOwned + Send {}

#[diagnostic::do_not_recommend]
impl<T: Serialize + DeserializeOwned + Send> RedisValue for T {}

impl<T: RedisValue> IdempotencyStore<T> for RedisStore {
    fn claim(
        &self,
        key: &str,
        request: ClaimRequest,
        _now: Instant,
    ) -> impl Future<Output = Result<Claim<T>, StoreError>> + Send {
        let mut connection = self.connection.clone();
        let redis_key = self.redis_key(key);
        let counter = self.redis_key(FENCING_COUNTER);
        let token = ClaimToken::random();
        let lease = self.lease;
        async move {
            // At most twice: the second time, over what didn't read back.
            let mut unreadable = Vec::new();
            loop {
                let answer: (String, Vec<u8>) = CLAIM
                    .key(&redis_key)
                    .key(&counter)
                    .arg(claim_prefix(token))
                    .arg(expiry_ms(lease))
                    .arg(optional(request.fingerprint))
                    .arg(optional(request.joined))
                    .arg(&unreadable)
                    .invoke_async(&mut connection)
                    .await
                    .map_err(store_error)?;
                let (kind, held) = answer;
                if kind == "acquired" {
                    let fencing_token = std::str::from_utf8(&held)
                        .ok()
                        .and_then(|fence| fence.parse().ok())
                        .ok_or_else(|| {
                            StoreError::Backend("a fencing token that is not a number".into())
                        })?;
                    return Ok(Claim::Acquired {
                        token,
                        lease,
                        fencing_token,
                    });
                }
                let value = match read_held(&held, request)? {
                    Err(claim) => return Ok(claim),
                    Ok(value) => serde_json::from_slice(value.json),
                };
                match value {
                    Ok(value) => return Ok(Claim::Stored(value)),
                    Err(err) if !unreadable.is_empty() => {
                        return Err(StoreError::Deserialize(Box::new(err)));
                    }
                    Err(_) => unreadable = held,
                }
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
        // A value handed to the waiters is kept a lease long at most: they
        // poll far more often than that.
        let (expiry, kind) = if ttl.is_zero() {
            (self.lease, &b"handoff"[..])
        } else {
            (ttl, &b"value"[..])
        };
        let stored = json_that_reads_back(value).map(|json| vec![json, px(expiry), kind.to_vec()]);
        // Once more after a dropped connection: the connection is made
        // again on the first request that finds it gone, and a completion
        // is often that request. The script takes the value it already
        // stored as done.
        let again = match &stored {
            Ok(args) => Some(self.while_claimed(&COMPLETE, key, token, Ok(args.clone()))),
            Err(_) => None,
        };
        let first = self.while_claimed(&COMPLETE, key, token, stored);
        async move {
            match (first.await, again) {
                (Err(StoreError::Unavailable(_)), Some(again)) => again.await,
                (completed, _) => completed,
            }
        }
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

    /// What `read_held` makes of `held`: a claim, or the JSON of a value.
    fn read(held: &[u8], request: ClaimRequest) -> Result<Result<Vec<u8>, Claim<u32>>, String> {
        read_held::<u32>(held, request)
            .map(|held| held.map(|value| value.json.to_vec()))
            .map_err(|err| err.to_string())
    }

    #[test]
    fn a_held_key_reads_as_a_claim_a_value_or_an_error() {
        let plain = ClaimRequest::new();
        assert_eq!(
            read(b"claim:0123:7:", plain),
            Ok(Err(Claim::InFlight {
                expires_in: None,
                fencing_token: Some(7)
            }))
        );
        // A claim written before fencing tokens.
        assert_eq!(
            read(b"claim:0123", plain),
            Ok(Err(Claim::InFlight {
                expires_in: None,
                fencing_token: None
            }))
        );
        assert_eq!(read(b"value:42", plain), Ok(Ok(b"42".to_vec())));
        assert_eq!(read(b"value#9:42", plain), Ok(Ok(b"42".to_vec())));
        assert_eq!(read(b"handoff:3:42", plain), Ok(Ok(b"42".to_vec())));
        assert_eq!(
            read(b"42", plain),
            Err(
                "could not deserialise the value stored under an idempotency key: \
                 the key holds neither a claim nor a value written by RedisStore"
                    .to_owned()
            )
        );
    }

    #[test]
    fn a_key_held_under_another_fingerprint_conflicts() {
        let nine = ClaimRequest::new().fingerprint(Some(9));
        let ten = ClaimRequest::new().fingerprint(Some(10));
        assert_eq!(read(b"value#9:42", ten), Ok(Err(Claim::Conflict)));
        assert_eq!(read(b"claim:0123:7:9", ten), Ok(Err(Claim::Conflict)));
        assert_eq!(read(b"value#9:42", nine), Ok(Ok(b"42".to_vec())));
        assert!(matches!(
            read(b"claim:0123:7:9", nine),
            Ok(Err(Claim::InFlight { .. }))
        ));
        // A value stored without a fingerprint is nobody's conflict.
        assert_eq!(read(b"value:42", ten), Ok(Ok(b"42".to_vec())));
    }

    #[test]
    fn only_a_value_that_reads_back_is_stored() {
        assert_eq!(json_that_reads_back(&1.5_f64).unwrap(), b"1.5");
        let nan = json_that_reads_back(&f64::NAN).unwrap_err();
        assert!(matches!(nan, StoreError::Deserialize(_)), "{nan:?}");
        let map: std::collections::HashMap<(u8, u8), u8> = [((1, 2), 3)].into();
        let unserialisable = json_that_reads_back(&map).unwrap_err();
        assert!(
            matches!(unserialisable, StoreError::Serialize(_)),
            "{unserialisable:?}"
        );
    }

    #[test]
    fn a_claim_prefix_names_its_token() {
        assert_eq!(
            claim_prefix(ClaimToken::from_u128(0xab)),
            "claim:000000000000000000000000000000ab:"
        );
    }
}

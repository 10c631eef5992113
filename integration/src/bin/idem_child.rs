//! One process of a fleet sharing an idempotency key through Redis; the
//! multi-process tests (`tests/idempotency_redis_fleet.rs`) start several.
//! Its call goes through the attribute, `#[resilient(idempotency = …)]`, as
//! a service's would.
//!
//! ```text
//! idem_child <redis-url> <key> <lease-ms> <hold|quick>
//! ```
//!
//! Prints one line per event, so that a test can follow it: `waiting` (the
//! first time it waits for another process), `running` (its body started),
//! then `Executed <value>`, `Joined <value>` or `Replayed <value>`, or
//! `error <message>`. The body counts its runs with `INCR runs:<key>`; with
//! `hold` it then holds the key until the test pushes to the list `go:<key>`.

use std::future::Future;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use redis::AsyncCommands;
use resilient::idempotency::{
    Claim, ClaimRequest, ClaimToken, IdempotencyInFlight, IdempotencyStore, RedisStore, StoreError,
};
use resilient::resilient;

/// A [`RedisStore`] that says when it starts waiting, so that a test knows
/// this process waits before it lets the holder finish.
struct Announcing {
    inner: RedisStore,
    announced: AtomicBool,
}

impl IdempotencyStore<String> for Announcing {
    fn claim(
        &self,
        key: &str,
        request: ClaimRequest,
        now: Instant,
    ) -> impl Future<Output = Result<Claim<String>, StoreError>> + Send {
        self.inner.claim(key, request, now)
    }

    fn wait(&self, key: &str) -> impl Future<Output = Result<(), StoreError>> + Send {
        if !self.announced.swap(true, Ordering::Relaxed) {
            println!("waiting");
        }
        IdempotencyStore::<String>::wait(&self.inner, key)
    }

    fn complete(
        &self,
        key: &str,
        token: ClaimToken,
        value: &String,
        ttl: Duration,
        now: Instant,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send {
        self.inner.complete(key, token, value, ttl, now)
    }

    fn release(
        &self,
        key: &str,
        token: ClaimToken,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send + 'static {
        IdempotencyStore::<String>::release(&self.inner, key, token)
    }

    fn renew(
        &self,
        key: &str,
        token: ClaimToken,
        now: Instant,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send {
        IdempotencyStore::<String>::renew(&self.inner, key, token, now)
    }
}

/// What the call can fail with: Redis itself, or the idempotency store.
#[derive(Debug)]
enum ChildError {
    Redis(redis::RedisError),
    Idempotency(String),
}

impl std::fmt::Display for ChildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ChildError::Redis(err) => write!(f, "{err}"),
            ChildError::Idempotency(err) => f.write_str(err),
        }
    }
}

impl From<redis::RedisError> for ChildError {
    fn from(err: redis::RedisError) -> Self {
        ChildError::Redis(err)
    }
}

impl From<IdempotencyInFlight> for ChildError {
    fn from(err: IdempotencyInFlight) -> Self {
        ChildError::Idempotency(err.to_string())
    }
}

impl From<StoreError> for ChildError {
    fn from(err: StoreError) -> Self {
        ChildError::Idempotency(err.to_string())
    }
}

/// Counts the run, then (with `hold`) waits for the test's go.
#[resilient(idempotency = store, idempotency_key = key)]
async fn body(store: &Announcing, url: &str, key: &str, hold: bool) -> Result<String, ChildError> {
    let mut redis = redis::Client::open(url)?
        .get_multiplexed_async_connection()
        .await?;
    let _: i64 = redis.incr(format!("runs:{key}"), 1).await?;
    println!("running");
    if hold {
        // Polled rather than BLPOP: the connection's response timeout
        // would cut a blocking pop short.
        while redis
            .lpop::<_, Option<String>>(format!("go:{key}"), None)
            .await?
            .is_none()
        {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
    Ok(format!("made by process {}", std::process::id()))
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [url, key, lease_ms, mode] = args.as_slice() else {
        eprintln!("usage: idem_child <redis-url> <key> <lease-ms> <hold|quick>");
        return ExitCode::FAILURE;
    };
    let Ok(lease_ms) = lease_ms.parse() else {
        eprintln!("lease-ms must be a whole number of milliseconds, got {lease_ms}");
        return ExitCode::FAILURE;
    };
    let store = match RedisStore::new(url.as_str()).await {
        Ok(store) => Announcing {
            inner: store.with_lease(Duration::from_millis(lease_ms)),
            announced: AtomicBool::new(false),
        },
        Err(err) => {
            println!("error {err}");
            return ExitCode::FAILURE;
        }
    };

    let outcome = body(&store, url, key, mode == "hold").await;
    match (outcome.result(), outcome.report().idempotency()) {
        (Ok(value), Some(status)) => {
            println!("{status:?} {value}");
            ExitCode::SUCCESS
        }
        (Ok(value), None) => {
            println!("error {value} without an idempotency status");
            ExitCode::FAILURE
        }
        (Err(err), _) => {
            println!("error {err}");
            ExitCode::FAILURE
        }
    }
}

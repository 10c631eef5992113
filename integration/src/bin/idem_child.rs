//! One process of a fleet sharing idempotency keys through Redis; the
//! multi-process tests (`tests/idempotency_redis_fleet.rs`,
//! `tests/idempotency_faults.rs`) start several. Its calls go through the
//! attribute, `#[resilient(idempotency = …)]`, as a service's would.
//!
//! ```text
//! idem_child <store-url> <key> <lease-ms> <hold|quick|many> [control-url]
//! ```
//!
//! The store talks to `store-url` (a proxy, in the fault tests); the body
//! talks to `control-url` (default: `store-url`). Prints one line per
//! event, so that a test can follow it: `waiting` (the first time it waits
//! for another process), `running <fencing token>` (its body started), then
//! `<status> <value> stored=<why>` (`Executed`, `Joined` or `Replayed`;
//! `why` is the report's `idempotency_stored`, `-` when not executed), or
//! `error <message>`. The body counts its runs with `INCR runs:<key>`;
//! with `hold` it then holds the key until the test pushes to the list
//! `go:<key>`, riding out a control connection that drops. With `many`,
//! `key` is a prefix: the process calls `<key>0` to `<key>49` in an order
//! of its own, each body taking a few milliseconds, and prints one line
//! per call, `<key> <status> <value> stored=<why>`.

use std::future::Future;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use redis::AsyncCommands;
use resilient::idempotency::current_claim;
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

/// Counts the run, then (with `hold`) waits for the test's go; with
/// `pause`, takes that long.
#[resilient(idempotency = store, idempotency_key = key)]
async fn body(
    store: &Announcing,
    control: &str,
    key: &str,
    hold: bool,
    pause: Duration,
) -> Result<String, ChildError> {
    let fence = current_claim().map_or(0, |claim| claim.fencing_token());
    let mut redis = redis::Client::open(control)?
        .get_multiplexed_async_connection()
        .await?;
    let _: i64 = redis.incr(format!("runs:{key}"), 1).await?;
    if !pause.is_zero() {
        tokio::time::sleep(pause).await;
    } else {
        println!("running {fence}");
    }
    if hold {
        wait_for_go(control, key).await;
    }
    Ok(format!(
        "made by process {} under fence {fence}",
        std::process::id()
    ))
}

/// Polls `go:<key>` until the test pushes to it; a connection that drops
/// (the server restarted) is opened again. Polled rather than BLPOP: the
/// connection's response timeout would cut a blocking pop short.
async fn wait_for_go(control: &str, key: &str) {
    loop {
        let popped = async {
            let mut redis = redis::Client::open(control)?
                .get_multiplexed_async_connection()
                .await?;
            redis
                .lpop::<_, Option<String>>(format!("go:{key}"), None)
                .await
        };
        if let Ok(Some(_)) = popped.await {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// What a call printed: its status and value, and whether it was stored.
fn describe(outcome: &resilient::Outcome<String, ChildError>) -> Result<String, String> {
    let stored = outcome
        .report()
        .idempotency_stored()
        .map_or_else(|| "-".to_owned(), |stored| stored.to_string());
    match (outcome.result(), outcome.report().idempotency()) {
        (Ok(value), Some(status)) => Ok(format!("{status:?} {value} stored={stored}")),
        (Ok(value), None) => Err(format!("error {value} without an idempotency status")),
        (Err(err), _) => Err(format!("error {err}")),
    }
}

/// The keys of `many`, in an order drawn from the process id.
fn shuffled_keys(prefix: &str) -> Vec<String> {
    let mut keys: Vec<String> = (0..50).map(|i| format!("{prefix}{i}")).collect();
    let mut state = u64::from(std::process::id()) | 1;
    for i in (1..keys.len()).rev() {
        // xorshift64: enough to tell the processes' orders apart.
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let j = usize::try_from(state % (i as u64 + 1)).unwrap_or(0);
        keys.swap(i, j);
    }
    keys
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (url, key, lease_ms, mode, control) = match args.as_slice() {
        [url, key, lease_ms, mode] => (url, key, lease_ms, mode, url),
        [url, key, lease_ms, mode, control] => (url, key, lease_ms, mode, control),
        _ => {
            eprintln!(
                "usage: idem_child <store-url> <key> <lease-ms> <hold|quick|many> [control-url]"
            );
            return ExitCode::FAILURE;
        }
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

    if mode == "many" {
        let mut failed = false;
        for (n, key) in shuffled_keys(key).iter().enumerate() {
            let pause = Duration::from_millis(2 + (n as u64 * 7) % 9);
            match describe(&body(&store, control, key, false, pause).await) {
                Ok(line) => println!("{key} {line}"),
                Err(line) => {
                    println!("{key} {line}");
                    failed = true;
                }
            }
        }
        return if failed {
            ExitCode::FAILURE
        } else {
            ExitCode::SUCCESS
        };
    }
    let outcome = body(&store, control, key, mode == "hold", Duration::ZERO).await;
    match describe(&outcome) {
        Ok(line) => {
            println!("{line}");
            ExitCode::SUCCESS
        }
        Err(line) => {
            println!("{line}");
            ExitCode::FAILURE
        }
    }
}

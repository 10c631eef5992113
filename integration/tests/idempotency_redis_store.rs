//! `RedisStore` against a real `redis-server` on 127.0.0.1: what each step
//! of the protocol leaves in Redis (keys, markers, expiries), that only the
//! claim's token can complete, release or renew it, and what happens when
//! the server goes away. Real time, with leases of a few hundred ms.

#[path = "support/redis_server.rs"]
mod redis_server;

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering, Ordering::SeqCst};
use std::time::{Duration, Instant};

use redis::AsyncCommands;
use redis::aio::MultiplexedConnection;
use redis_server::RedisServer;

use resilient::TokioClock;
use resilient::idempotency::{
    Claim, ClaimRequest, ClaimToken, IdempotencyError, IdempotencyStatus, IdempotencyStore,
    IdempotencyStored, RedisStore, StoreError, run_idempotent,
};

const TTL: Duration = Duration::from_secs(60);

async fn connect(server: &RedisServer) -> (RedisStore, MultiplexedConnection) {
    let store = RedisStore::new(server.url()).await.unwrap();
    let raw = server
        .client()
        .get_multiplexed_async_connection()
        .await
        .unwrap();
    (store, raw)
}

fn acquired<T: std::fmt::Debug>(claim: Claim<T>) -> ClaimToken {
    match claim {
        Claim::Acquired { token, .. } => token,
        other => panic!("expected the key to be claimed, got {other:?}"),
    }
}

/// An idempotent call on Redis can run on a multi-threaded runtime.
fn assert_send<T: Send>(_: &T) {}

async fn claim(store: &RedisStore, key: &str) -> Claim<String> {
    store
        .claim(key, ClaimRequest::new(), Instant::now())
        .await
        .unwrap()
}

#[tokio::test]
async fn a_claim_is_set_nx_with_the_lease_and_holds_its_token() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let (store, mut raw) = connect(&server).await;
    let store = store.with_lease(Duration::from_secs(10));

    let Claim::Acquired {
        token,
        lease,
        fencing_token,
    } = claim(&store, "k").await
    else {
        panic!("a free key is claimed");
    };
    assert_eq!(lease, Duration::from_secs(10));
    let held: String = raw.get("resilient:idem:k").await.unwrap();
    assert_eq!(held, format!("claim:{token}:{fencing_token}:"));
    let pttl: i64 = raw.pttl("resilient:idem:k").await.unwrap();
    assert!((9_000..=10_000).contains(&pttl), "PTTL {pttl}");

    assert!(matches!(
        claim(&store, "k").await,
        Claim::InFlight {
            expires_in: None,
            fencing_token: Some(_)
        }
    ));
}

#[tokio::test]
async fn only_the_claims_token_completes_it_and_the_value_gets_the_ttl() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let (store, mut raw) = connect(&server).await;
    let token = acquired(claim(&store, "k").await);
    let stranger = ClaimToken::random();
    let now = Instant::now();

    let value = "receipt 7".to_owned();
    assert!(
        !store
            .complete("k", stranger, &value, TTL, now)
            .await
            .unwrap()
    );
    let held: String = raw.get("resilient:idem:k").await.unwrap();
    assert!(held.starts_with(&format!("claim:{token}:")), "{held}");

    assert!(store.complete("k", token, &value, TTL, now).await.unwrap());
    let held: String = raw.get("resilient:idem:k").await.unwrap();
    assert_eq!(held, r#"value:"receipt 7""#);
    let pttl: i64 = raw.pttl("resilient:idem:k").await.unwrap();
    assert!((59_000..=60_000).contains(&pttl), "PTTL {pttl}");
    assert_eq!(claim(&store, "k").await, Claim::Stored(value.clone()));

    // Completed, the claim is gone: its token can neither store another
    // value nor delete this one. The same value again (a retry whose first
    // answer was lost) counts as stored, and changes nothing.
    let other = "receipt 8".to_owned();
    assert!(!store.complete("k", token, &other, TTL, now).await.unwrap());
    assert!(store.complete("k", token, &value, TTL, now).await.unwrap());
    assert!(
        !IdempotencyStore::<String>::release(&store, "k", token)
            .await
            .unwrap()
    );
    assert_eq!(claim(&store, "k").await, Claim::Stored(value));
}

#[tokio::test]
async fn only_the_claims_token_releases_it() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let (store, mut raw) = connect(&server).await;
    let token = acquired(claim(&store, "k").await);

    let release = |token| IdempotencyStore::<String>::release(&store, "k", token);
    assert!(!release(ClaimToken::random()).await.unwrap());
    assert!(raw.exists::<_, bool>("resilient:idem:k").await.unwrap());
    assert!(release(token).await.unwrap());
    assert!(!raw.exists::<_, bool>("resilient:idem:k").await.unwrap());

    let again = acquired(claim(&store, "k").await);
    assert_ne!(again, token);
}

#[tokio::test]
async fn only_the_claims_token_renews_it_to_a_full_lease() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let (store, mut raw) = connect(&server).await;
    let token = acquired(claim(&store, "k").await);
    // The same server through a store with a longer lease: a renewal that
    // happened shows as a PTTL beyond the first lease.
    let longer = store.clone().with_lease(Duration::from_secs(90));
    let renew = |token| IdempotencyStore::<String>::renew(&longer, "k", token, Instant::now());

    assert!(!renew(ClaimToken::random()).await.unwrap());
    let pttl: i64 = raw.pttl("resilient:idem:k").await.unwrap();
    assert!((1..=30_000).contains(&pttl), "PTTL {pttl}");

    assert!(renew(token).await.unwrap());
    let pttl: i64 = raw.pttl("resilient:idem:k").await.unwrap();
    assert!((60_001..=90_000).contains(&pttl), "PTTL {pttl}");
}

#[tokio::test]
async fn a_claim_whose_lease_ran_out_is_free_for_the_next_caller() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let (store, _raw) = connect(&server).await;
    let store = store.with_lease(Duration::from_millis(200));
    let first = acquired(claim(&store, "k").await);

    tokio::time::sleep(Duration::from_millis(250)).await;
    // Claimed for long this time, so that only the first claim can lapse.
    let patient = store.clone().with_lease(Duration::from_secs(10));
    let second = acquired(claim(&patient, "k").await);
    assert_ne!(first, second);
    let late = "late".to_owned();
    assert!(
        !store
            .complete("k", first, &late, TTL, Instant::now())
            .await
            .unwrap()
    );
    assert!(matches!(
        claim(&store, "k").await,
        Claim::InFlight {
            expires_in: None,
            fencing_token: Some(_)
        }
    ));
}

#[tokio::test]
async fn a_prefix_keeps_the_keys_of_two_stores_apart() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let (store, mut raw) = connect(&server).await;
    let billing = store.clone().with_prefix("billing:");

    acquired(claim(&billing, "k").await);
    assert!(raw.exists::<_, bool>("billing:k").await.unwrap());
    assert!(!raw.exists::<_, bool>("resilient:idem:k").await.unwrap());
    acquired(claim(&store, "k").await);
    assert!(raw.exists::<_, bool>("resilient:idem:k").await.unwrap());
}

#[tokio::test]
async fn a_value_that_does_not_read_back_is_a_miss_not_a_poisoned_key() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let (store, mut raw) = connect(&server).await;
    // As a deploy that changed the value's type would leave it.
    let token = acquired(claim(&store, "k").await);
    let text = "not a number".to_owned();
    assert!(
        store
            .complete("k", token, &text, TTL, Instant::now())
            .await
            .unwrap()
    );

    let runs = AtomicU32::new(0);
    let body = || async {
        runs.fetch_add(1, SeqCst);
        (Ok::<u32, String>(7), true)
    };
    for expected in [IdempotencyStatus::Executed, IdempotencyStatus::Replayed] {
        let ran = run_idempotent(&store, "k", TTL, None, &TokioClock, body).await;
        assert_eq!(ran.unwrap(), (Ok(7), expected));
    }
    assert_eq!(runs.load(SeqCst), 1);
    let held: String = raw.get("resilient:idem:k").await.unwrap();
    assert_eq!(held, "value:7");
}

#[tokio::test]
async fn a_value_whose_json_does_not_read_back_is_not_stored() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let (store, mut raw) = connect(&server).await;
    let runs = AtomicU32::new(0);
    // `NaN` becomes JSON `null`, which is no `f64`.
    let body = || async {
        runs.fetch_add(1, SeqCst);
        (Ok::<f64, String>(f64::NAN), true)
    };
    for _ in 0..2 {
        let (result, status) = run_idempotent(&store, "k", TTL, None, &TokioClock, body)
            .await
            .unwrap();
        assert!(result.unwrap().is_nan());
        assert_eq!(status, IdempotencyStatus::Executed);
    }
    assert_eq!(runs.load(SeqCst), 2, "every call runs; none fails");
    assert!(!raw.exists::<_, bool>("resilient:idem:k").await.unwrap());
}

#[tokio::test]
async fn renewals_keep_a_call_longer_than_its_lease_claimed() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let (store, _raw) = connect(&server).await;
    let store = store.with_lease(Duration::from_millis(400));
    let seen = Mutex::new(None);
    let body = || async {
        // Two leases in: without renewals the claim would be gone, and this
        // look would claim the key itself.
        tokio::time::sleep(Duration::from_millis(800)).await;
        *seen.lock().unwrap() = Some(claim(&store, "k").await);
        (Ok::<_, String>("slow".to_owned()), true)
    };
    let call = run_idempotent(&store, "k", TTL, None, &TokioClock, body);
    assert_send(&call);

    assert_eq!(
        call.await.unwrap(),
        (Ok("slow".to_owned()), IdempotencyStatus::Executed)
    );
    assert!(matches!(
        seen.into_inner().unwrap(),
        Some(Claim::InFlight {
            expires_in: None,
            ..
        })
    ));
    assert_eq!(claim(&store, "k").await, Claim::Stored("slow".to_owned()));
}

#[tokio::test]
async fn a_cancelled_call_releases_its_claim_long_before_its_lease_ends() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let (store, mut raw) = connect(&server).await;
    let started = Instant::now();
    let body = || async {
        tokio::time::sleep(Duration::from_secs(60)).await;
        (Ok::<_, String>("never".to_owned()), true)
    };
    let call = run_idempotent(&store, "k", TTL, None, &TokioClock, body);
    let cut_short = tokio::time::timeout(Duration::from_millis(100), call).await;
    assert!(cut_short.is_err());

    // The release was spawned on this runtime when the call was dropped.
    while raw.exists::<_, bool>("resilient:idem:k").await.unwrap() {
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "the claim was not released"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert!(started.elapsed() < store.lease());
}

#[tokio::test]
async fn a_stopped_server_fails_the_call_without_running_the_body() {
    let Some(mut server) = RedisServer::start() else {
        return;
    };
    let (store, _raw) = connect(&server).await;
    server.stop();

    let started = Instant::now();
    let ran = AtomicBool::new(false);
    let body = || async {
        ran.store(true, Ordering::Relaxed);
        (Ok::<_, String>("charged".to_owned()), true)
    };
    let err = run_idempotent(&store, "k", TTL, None, &TokioClock, body)
        .await
        .unwrap_err();
    assert!(
        matches!(err, IdempotencyError::Store(StoreError::Unavailable(_))),
        "{err:?}"
    );
    assert!(
        err.to_string()
            .starts_with("lost the connection to the idempotency store: "),
        "{err}"
    );
    assert!(!ran.load(Ordering::Relaxed));
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "took {:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn a_server_that_is_not_there_fails_the_store_at_once() {
    let Some(mut server) = RedisServer::start() else {
        return;
    };
    let url = server.url();
    server.stop();
    let err = RedisStore::new(url).await.unwrap_err();
    assert!(matches!(err, StoreError::Unavailable(_)), "{err:?}");
}

#[tokio::test]
async fn a_value_that_does_not_serialise_is_returned_unstored_and_frees_the_key() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let (store, mut raw) = connect(&server).await;
    // JSON map keys must be strings: this value ran, but can't be stored.
    let unstorable = || async {
        let value = BTreeMap::from([(vec![1_u8], 2_u8)]);
        (Ok::<_, String>(value), true)
    };

    let (result, status) = run_idempotent(&store, "k", TTL, None, &TokioClock, unstorable)
        .await
        .unwrap();
    assert_eq!(result.unwrap(), BTreeMap::from([(vec![1], 2)]));
    assert_eq!(status, IdempotencyStatus::Executed);
    assert!(!raw.exists::<_, bool>("resilient:idem:k").await.unwrap());
}

#[derive(Debug)]
struct AppError(String);

impl std::fmt::Display for AppError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<resilient::idempotency::IdempotencyInFlight> for AppError {
    fn from(error: resilient::idempotency::IdempotencyInFlight) -> Self {
        AppError(error.to_string())
    }
}

impl From<StoreError> for AppError {
    fn from(error: StoreError) -> Self {
        AppError(error.to_string())
    }
}

#[tokio::test]
async fn the_report_says_why_a_value_was_not_stored() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let (store, _raw) = connect(&server).await;
    let unserialisable = || async {
        let by_pair: std::collections::HashMap<(u8, u8), u8> = [((1, 2), 3)].into();
        Ok::<_, AppError>(by_pair)
    };
    let outcome = resilient::Operation::new()
        .clock(TokioClock)
        .idempotent(&store, "pairs")
        .run_async(|_| unserialisable())
        .await;
    assert_eq!(outcome.result().as_ref().unwrap().len(), 1);
    assert_eq!(
        outcome.report().idempotency_stored(),
        Some(IdempotencyStored::Unserializable)
    );
    assert!(
        outcome
            .report()
            .to_string()
            .ends_with("executed (unserializable)"),
        "{}",
        outcome.report()
    );

    let stored = resilient::Operation::new()
        .clock(TokioClock)
        .idempotent(&store, "number")
        .run_async(|_| async { Ok::<u32, AppError>(5) })
        .await;
    assert_eq!(
        stored.report().idempotency_stored(),
        Some(IdempotencyStored::Stored)
    );
}

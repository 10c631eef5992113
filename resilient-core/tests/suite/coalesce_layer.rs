//! `tower::CoalesceLayer` over a `ResilientLayer`: concurrent requests of
//! one key share one resilient call (its retries included), a request
//! without a key runs on its own, an error reaches every caller as
//! `Coalesced`, a caller that gives up leaves the call to the others, and
//! `by_url` keys only safe HTTP requests. On tokio's paused clock.
#![cfg(feature = "tower")]

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use resilient_core::Backoff;
use resilient_core::tower::{CoalesceLayer, Coalesced, ResilientLayer};
use tokio::time::Instant;
use tower::{BoxError, Service, ServiceBuilder, ServiceExt, service_fn};

const fn millis(n: u64) -> Duration {
    Duration::from_millis(n)
}

#[derive(Debug, thiserror::Error)]
#[error("backend busy")]
struct Busy;

/// A backend whose `fail_first` first calls fail after 100 ms; the others
/// answer the request after 100 ms. Counts its calls.
fn backend(
    calls: &Arc<AtomicU32>,
    fail_first: u32,
) -> impl Service<u32, Response = String, Error = Busy, Future: Send> + Clone + Send + 'static {
    let calls = Arc::clone(calls);
    service_fn(move |id: u32| {
        let call = calls.fetch_add(1, Ordering::Relaxed);
        async move {
            tokio::time::sleep(millis(100)).await;
            if call < fail_first {
                Err(Busy)
            } else {
                Ok(format!("user {id}"))
            }
        }
    })
}

/// Keys odd ids; even ones run on their own.
fn odd(id: &u32) -> Option<String> {
    (!id.is_multiple_of(2)).then(|| id.to_string())
}

#[tokio::test(start_paused = true)]
async fn concurrent_requests_of_a_key_share_one_retried_call() {
    let calls = Arc::new(AtomicU32::new(0));
    let service = ServiceBuilder::new()
        .layer(CoalesceLayer::new(odd).named("users"))
        .layer(
            ResilientLayer::new()
                .retries(2)
                .backoff(Backoff::constant(millis(50))),
        )
        .service(backend(&calls, 1));
    let started = Instant::now();
    let late = async {
        tokio::time::sleep(millis(120)).await;
        service.clone().oneshot(7).await
    };
    let (a, b, c) = tokio::join!(service.clone().oneshot(7), service.clone().oneshot(7), late);
    // One call: a failure at 100 ms, 50 ms of backoff, a success at 250 ms.
    assert_eq!(started.elapsed(), millis(250));
    assert_eq!(calls.load(Ordering::Relaxed), 2);
    for response in [a, b, c] {
        assert_eq!(response.unwrap(), "user 7");
    }

    // Ended, the key runs afresh; an even id runs on its own each time.
    let (again, even, even_too) = tokio::join!(
        service.clone().oneshot(7),
        service.clone().oneshot(8),
        service.clone().oneshot(8)
    );
    assert_eq!(calls.load(Ordering::Relaxed), 5);
    assert_eq!(again.unwrap(), "user 7");
    assert_eq!(
        (even.unwrap(), even_too.unwrap()),
        ("user 8".to_owned(), "user 8".to_owned())
    );
}

#[tokio::test(start_paused = true)]
async fn an_error_reaches_every_caller_and_a_caller_that_gives_up_leaves_the_call_to_the_others() {
    let calls = Arc::new(AtomicU32::new(0));
    let service = ServiceBuilder::new()
        .layer(CoalesceLayer::new(odd))
        .layer(ResilientLayer::new())
        .service(backend(&calls, u32::MAX));
    let (a, b) = tokio::join!(service.clone().oneshot(1), service.clone().oneshot(1));
    for error in [a.unwrap_err(), b.unwrap_err()] {
        let shared = error
            .downcast_ref::<Coalesced>()
            .expect("shared as Coalesced");
        assert_eq!(shared.to_string(), "backend busy");
    }
    assert_eq!(calls.load(Ordering::Relaxed), 1);

    // The first caller gives up at 50 ms; the call goes on for the second.
    let calls = Arc::new(AtomicU32::new(0));
    let service = ServiceBuilder::new()
        .layer(CoalesceLayer::new(odd))
        .service(backend(&calls, 0));
    let first = tokio::spawn(service.clone().oneshot(3));
    tokio::time::sleep(millis(10)).await;
    let second = tokio::spawn(service.clone().oneshot(3));
    tokio::time::sleep(millis(40)).await;
    first.abort();
    let started = Instant::now();
    let answer: Result<String, BoxError> = second.await.unwrap();
    assert_eq!(answer.unwrap(), "user 3");
    assert_eq!(
        started.elapsed(),
        millis(50),
        "the call's own end, not a new call"
    );
    assert_eq!(calls.load(Ordering::Relaxed), 1);
}

#[cfg(feature = "http")]
#[tokio::test(start_paused = true)]
async fn by_url_shares_safe_requests_only() {
    let calls = Arc::new(AtomicU32::new(0));
    let counted = Arc::clone(&calls);
    let backend = service_fn(move |request: http::Request<String>| {
        counted.fetch_add(1, Ordering::Relaxed);
        async move {
            tokio::time::sleep(millis(10)).await;
            Ok::<_, Busy>(format!("{} {}", request.method(), request.uri()))
        }
    });
    let service = ServiceBuilder::new()
        .layer(CoalesceLayer::by_url())
        .service(backend);
    let get = || {
        http::Request::get("http://api/users/7")
            .body(String::new())
            .unwrap()
    };
    let post = || {
        http::Request::post("http://api/users")
            .body("{}".to_owned())
            .unwrap()
    };
    let (a, b) = tokio::join!(
        service.clone().oneshot(get()),
        service.clone().oneshot(get())
    );
    assert_eq!(a.unwrap(), b.unwrap());
    assert_eq!(calls.load(Ordering::Relaxed), 1, "two GETs, one call");
    let (c, d) = tokio::join!(
        service.clone().oneshot(post()),
        service.clone().oneshot(post())
    );
    assert_eq!(c.unwrap(), d.unwrap());
    assert_eq!(calls.load(Ordering::Relaxed), 3, "each POST its own call");
}

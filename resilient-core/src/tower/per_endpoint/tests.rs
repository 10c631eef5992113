use std::collections::HashMap;
use std::future::{Future, pending, poll_fn};
use std::sync::{Arc, Mutex};
use std::task::Poll;
use std::time::Duration;

use ::tower::{Layer, ServiceExt, service_fn};

use crate::backoff::Backoff;
use crate::breaker::{CircuitBreaker, CircuitState};
use crate::endpoint::{EndpointBreakers, EndpointLimits, EndpointThrottles};
use crate::error::{CircuitOpen, LimitExceeded};
use crate::limit::Bulkhead;
use crate::throttle::RetryThrottle;
use crate::tower::ResilientLayer;

/// How many times each host was called.
type Hits = Arc<Mutex<HashMap<&'static str, u32>>>;

fn count(hits: &Hits, host: &'static str) {
    *hits.lock().unwrap().entry(host).or_default() += 1;
}

#[tokio::test(start_paused = true)]
async fn one_sick_endpoint_opens_only_its_own_breaker() {
    let breakers = Arc::new(
        EndpointBreakers::builder("c")
            .template(
                CircuitBreaker::builder()
                    .failure_threshold(2)
                    .break_duration(Duration::from_secs(60)),
            )
            .build()
            .unwrap(),
    );
    let hits = Arc::new(Mutex::new(HashMap::<&'static str, u32>::new()));
    let log = Arc::clone(&hits);
    // `(host, id)`: host "sick" always fails.
    let inner = service_fn(move |(host, _): (&'static str, u32)| {
        *log.lock().unwrap().entry(host).or_default() += 1;
        async move {
            match host {
                "sick" => Err::<u32, _>(std::io::Error::other("down")),
                _ => Ok(7),
            }
        }
    });
    let client = ResilientLayer::new()
        .per_endpoint_by(Arc::clone(&breakers), |(host, _): &(&'static str, u32)| {
            (*host).to_owned()
        })
        .layer(inner);

    let mut rejected = 0;
    for id in 0..5 {
        let error = client.clone().oneshot(("sick", id)).await.unwrap_err();
        if error.is::<CircuitOpen>() {
            rejected += 1;
        }
        assert_eq!(client.clone().oneshot(("well", id)).await.unwrap(), 7);
    }
    assert_eq!(rejected, 3);
    let hits = hits.lock().unwrap().clone();
    assert_eq!(hits, HashMap::from([("sick", 2), ("well", 5)]));
    assert_eq!(
        breakers.states(),
        [
            ("sick".to_owned(), CircuitState::Open),
            ("well".to_owned(), CircuitState::Closed)
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn a_hundred_thousand_hosts_through_the_layer_keep_every_map_bounded() {
    const N: usize = 256;
    const HOSTS: u32 = 100_000;
    let breakers = Arc::new(
        EndpointBreakers::builder("many")
            .capacity(N)
            .build()
            .unwrap(),
    );
    let throttles = Arc::new(
        EndpointThrottles::builder("many")
            .capacity(N)
            .build()
            .unwrap(),
    );
    let limits = Arc::new(
        EndpointLimits::builder("many")
            .limit(|| Bulkhead::new(4).named("many.host"))
            .capacity(N)
            .build()
            .unwrap(),
    );
    let client = ResilientLayer::new()
        .per_endpoint_by(Arc::clone(&breakers), |host: &u32| {
            format!("10.{}.{}.{}:443", host >> 16, (host >> 8) & 255, host & 255)
        })
        .per_endpoint_throttle(Arc::clone(&throttles))
        .per_endpoint_limits(Arc::clone(&limits))
        .layer(service_fn(|host: u32| async move {
            Ok::<_, std::io::Error>(host)
        }));
    for host in 0..HOSTS {
        assert_eq!(client.clone().oneshot(host).await.unwrap(), host);
        if host % 5_000 == 0 {
            assert!(breakers.len() <= N && throttles.len() <= N && limits.len() <= N);
        }
    }
    for (len, evictions) in [
        (breakers.len(), breakers.evictions()),
        (throttles.len(), throttles.evictions()),
        (limits.len(), limits.evictions()),
    ] {
        // Each shard full, and every key past them evicted one.
        assert_eq!(len, N);
        assert_eq!(evictions, u64::from(HOSTS) - N as u64);
    }
    // The last host's state is there, each call's permit came back.
    assert!(
        breakers
            .states()
            .contains(&("10.1.134.159:443".to_owned(), CircuitState::Closed))
    );
    assert!(limits.in_flight().iter().all(|(_, held)| *held == 0));
}

#[tokio::test(start_paused = true)]
async fn one_sick_host_drains_only_its_own_throttle() {
    // Retries while more than 2 of 4 tokens are left; a success earns one.
    let throttles = Arc::new(
        EndpointThrottles::builder("c")
            .template(RetryThrottle::new(4, 1.0))
            .build()
            .unwrap(),
    );
    let hits: Hits = Arc::default();
    let log = Arc::clone(&hits);
    // "sick" always fails; "flaky" fails each call's first attempt.
    let inner = service_fn(move |(host, attempt): (&'static str, Arc<Mutex<u32>>)| {
        count(&log, host);
        let first = {
            let mut attempt = attempt.lock().unwrap();
            *attempt += 1;
            *attempt == 1
        };
        async move {
            match (host, first) {
                ("flaky", false) => Ok(7),
                _ => Err(std::io::Error::other("down")),
            }
        }
    });
    let client = ResilientLayer::new()
        .retries(3)
        .backoff(Backoff::none())
        .per_endpoint_throttle(Arc::clone(&throttles))
        .endpoint_key(|(host, _): &(&'static str, Arc<Mutex<u32>>)| (*host).to_owned())
        .layer(inner);

    for _ in 0..3 {
        let sick = client.clone().oneshot(("sick", Arc::default())).await;
        assert!(sick.is_err());
        let flaky = client.clone().oneshot(("flaky", Arc::default())).await;
        assert_eq!(flaky.unwrap(), 7, "the other host keeps its retries");
    }
    // Sick: 2 attempts (4 -> 3 -> 2 tokens), then 1 a call (-> 1, -> 0).
    // Flaky: 2 attempts a call, its throttle back to full each time.
    let hits = hits.lock().unwrap().clone();
    assert_eq!(hits, HashMap::from([("sick", 4), ("flaky", 6)]));
    assert_eq!(
        throttles.tokens(),
        [("flaky".to_owned(), 4.0), ("sick".to_owned(), 0.0)]
    );
}

/// The layer's calls to `host`, a host "slow" that never answers and any
/// other that answers at once, under a bulkhead of one per host.
fn bulkheaded(
    limits: &Arc<EndpointLimits>,
    hits: &Hits,
) -> impl Clone
+ ::tower::Service<
    &'static str,
    Response = u32,
    Error = ::tower::BoxError,
    Future = impl Future<Output = Result<u32, ::tower::BoxError>> + Send,
> {
    let log = Arc::clone(hits);
    ResilientLayer::new()
        .per_endpoint_limits(Arc::clone(limits))
        .endpoint_key(|host: &&'static str| (*host).to_owned())
        .layer(service_fn(move |host: &'static str| {
            count(&log, host);
            async move {
                if host == "slow" {
                    pending::<()>().await;
                }
                Ok::<_, std::io::Error>(1)
            }
        }))
}

fn bulkhead_of_one() -> Arc<EndpointLimits> {
    Arc::new(
        EndpointLimits::builder("c")
            .limit(|| Bulkhead::new(1).named("c.host"))
            .build()
            .unwrap(),
    )
}

#[tokio::test(start_paused = true)]
async fn one_slow_host_fills_only_its_own_bulkhead() {
    let limits = bulkhead_of_one();
    let hits: Hits = Arc::default();
    let client = bulkheaded(&limits, &hits);
    let mut stuck = Box::pin(client.clone().oneshot("slow"));
    assert!(poll_fn(|cx| Poll::Ready(stuck.as_mut().poll(cx).is_pending())).await);

    // The slow host's permit is taken: its next request is refused...
    let refused = client.clone().oneshot("slow").await.unwrap_err();
    assert_eq!(
        refused.downcast_ref::<LimitExceeded>(),
        Some(&LimitExceeded::new("c.host", None))
    );
    // ...and the other host's requests flow, one after another.
    for _ in 0..3 {
        assert_eq!(client.clone().oneshot("fast").await.unwrap(), 1);
    }
    let hits = hits.lock().unwrap().clone();
    assert_eq!(hits, HashMap::from([("slow", 1), ("fast", 3)]));
    assert_eq!(
        limits.in_flight(),
        [("fast".to_owned(), 0), ("slow".to_owned(), 1)]
    );
    drop(stuck);
}

#[tokio::test(start_paused = true)]
async fn a_call_dropped_while_its_attempt_waits_gives_its_keys_permit_back() {
    let limits = bulkhead_of_one();
    let hits: Hits = Arc::default();
    let client = bulkheaded(&limits, &hits);
    let mut call = Box::pin(client.clone().oneshot("slow"));
    // Polled once: the permit is taken and the attempt awaits the host.
    assert!(poll_fn(|cx| Poll::Ready(call.as_mut().poll(cx).is_pending())).await);
    assert_eq!(limits.in_flight(), [("slow".to_owned(), 1)]);
    assert_eq!(limits.get("slow")[0].in_flight(), Some(1));

    // The caller gives up there.
    drop(call);
    assert_eq!(limits.in_flight(), [("slow".to_owned(), 0)]);
    // The permit is usable again: the next call takes it, and holds it.
    let mut next = Box::pin(client.clone().oneshot("slow"));
    assert!(poll_fn(|cx| Poll::Ready(next.as_mut().poll(cx).is_pending())).await);
    assert_eq!(hits.lock().unwrap()["slow"], 2);
    assert_eq!(limits.in_flight(), [("slow".to_owned(), 1)]);
}

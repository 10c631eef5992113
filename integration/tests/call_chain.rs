//! A real chain of services on 127.0.0.1, A → B → C, each an axum server
//! or a reqwest client with `ResilientMiddleware`, on the real clock:
//!
//! * with the deadline propagated (`send_deadline` at A and B,
//!   `ServerDeadlineLayer` at B), the whole chain ends by A's budget: B's
//!   calls to a slow C inherit what A had left, and none reaches C once A
//!   has given up; without, B keeps calling C long after;
//! * with a breaker per host at B and two instances of C, one failing,
//!   only the failing one's breaker opens, and traffic keeps flowing to the
//!   other.
//!
//! Budgets are a few hundred milliseconds, and every wait is bounded: the
//! file runs in about 3 s.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::get;
use reqwest_middleware::{ClientBuilder, ClientWithMiddleware};
use resilient::deadline::{self, header::DeadlineHeader, header::parse_grpc_timeout};
use resilient::endpoint::EndpointBreakers;
use resilient::reqwest::ResilientMiddleware;
use resilient::tower::ServerDeadlineLayer;
use resilient::{Backoff, CircuitBreaker, CircuitOpen, CircuitState};

const fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// A's budget for its one call to B.
const A_BUDGET: Duration = ms(600);
/// B's own timeout per attempt at C, and its retries.
const B_TIMEOUT: Duration = ms(200);
const B_RETRIES: u32 = 8;
/// How long C's `/slow` takes: longer than any attempt.
const C_SLOW: Duration = ms(1000);
/// How long after A's call started C's requests are counted.
const WATCHED: Duration = ms(1500);

/// A request as a server received it: when, and the `grpc-timeout` it
/// carried.
type Hit = (Instant, Option<Duration>);

/// Requests a server received.
#[derive(Clone, Default)]
struct Hits(Arc<Mutex<Vec<Hit>>>);

impl Hits {
    fn record(&self, headers: &HeaderMap) {
        let deadline = headers
            .get("grpc-timeout")
            .map(|v| parse_grpc_timeout(v.to_str().unwrap()).unwrap());
        self.0.lock().unwrap().push((Instant::now(), deadline));
    }

    fn all(&self) -> Vec<Hit> {
        self.0.lock().unwrap().clone()
    }
}

async fn serve(app: Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind 127.0.0.1:0");
    let addr = listener.local_addr().expect("local address");
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{addr}")
}

/// C: `/slow` answers after [`C_SLOW`], `/down` is 503, `/ok` is 200;
/// every request is recorded.
async fn start_c() -> (String, Hits) {
    let hits = Hits::default();
    let app = Router::new()
        .route(
            "/slow",
            get(|State(hits): State<Hits>, headers: HeaderMap| async move {
                hits.record(&headers);
                tokio::time::sleep(C_SLOW).await;
                StatusCode::OK
            }),
        )
        .route(
            "/down",
            get(|State(hits): State<Hits>, headers: HeaderMap| async move {
                hits.record(&headers);
                StatusCode::SERVICE_UNAVAILABLE
            }),
        )
        .route(
            "/ok",
            get(|State(hits): State<Hits>, headers: HeaderMap| async move {
                hits.record(&headers);
                StatusCode::OK
            }),
        )
        .with_state(hits.clone());
    (serve(app).await, hits)
}

/// B's view of its downstream: the client it calls C with, the instances
/// of C, and when its last call to C ended.
#[derive(Clone)]
struct B {
    client: ClientWithMiddleware,
    c: Arc<Vec<String>>,
    ended: Arc<Mutex<Option<Instant>>>,
}

/// B: `/work` calls C's `/slow` (B's retries and timeout) in a task of its
/// own, which carries the request's deadline and outlives A's connection
/// as a server's work may; `/pick/{n}` calls instance `n % 2` of C once.
/// With `propagate`, B reads A's `grpc-timeout` (cap 5 s) as the budget of
/// its handlers.
async fn start_b(b: B, propagate: bool) -> String {
    let app = Router::new()
        .route(
            "/work",
            get(|State(b): State<B>| async move {
                let call = deadline::carry(async move {
                    let result = b.client.get(format!("{}/slow", b.c[0])).send().await;
                    *b.ended.lock().unwrap() = Some(Instant::now());
                    result
                });
                match tokio::spawn(call).await {
                    Ok(Ok(response)) => response.status(),
                    _ => StatusCode::GATEWAY_TIMEOUT,
                }
            }),
        )
        .route(
            "/pick/{n}",
            get(|State(b): State<B>, Path(n): Path<usize>| async move {
                let path = if n % 2 == 0 { "down" } else { "ok" };
                let url = format!("{}/{path}", b.c[n % 2]);
                match b.client.get(url).send().await {
                    Ok(response) => (response.status(), "from C"),
                    Err(reqwest_middleware::Error::Middleware(e)) if e.is::<CircuitOpen>() => {
                        (StatusCode::SERVICE_UNAVAILABLE, "circuit open")
                    }
                    Err(_) => (StatusCode::BAD_GATEWAY, "failed"),
                }
            }),
        )
        .with_state(b);
    let app = if propagate {
        app.layer(ServerDeadlineLayer::new(
            DeadlineHeader::grpc_timeout(),
            Duration::from_secs(5),
        ))
    } else {
        app
    };
    serve(app).await
}

fn client(middleware: ResilientMiddleware) -> ClientWithMiddleware {
    ClientBuilder::new(reqwest::Client::new())
        .with(middleware)
        .build()
}

/// What one run of A → B → C's `/slow` came to.
struct Run {
    /// How long A's call took.
    a_took: Duration,
    /// When B's call to C ended, from A's start, if it had by the end.
    b_ended: Option<Duration>,
    /// C's requests in the watched time: when, from A's start, and the
    /// deadline each carried.
    c: Vec<(Duration, Option<Duration>)>,
}

async fn slow_chain(propagate: bool) -> Run {
    let (c, c_hits) = start_c().await;
    let b_client = ResilientMiddleware::new()
        .retries(B_RETRIES)
        .timeout(B_TIMEOUT)
        .backoff(Backoff::constant(ms(50)));
    let b_client = if propagate {
        b_client.send_deadline(DeadlineHeader::grpc_timeout())
    } else {
        b_client
    };
    let ended = Arc::new(Mutex::new(None));
    let b = B {
        client: client(b_client),
        c: Arc::new(vec![c]),
        ended: Arc::clone(&ended),
    };
    let b = start_b(b, propagate).await;
    let a = ResilientMiddleware::new().timeout(A_BUDGET);
    let a = client(if propagate {
        a.send_deadline(DeadlineHeader::grpc_timeout())
    } else {
        a
    });

    let started = Instant::now();
    let answer = a.get(format!("{b}/work")).send().await;
    let a_took = started.elapsed();
    // A gave up, or B answered 504 as its deadline ran out: no 200 either way.
    assert!(answer.is_err() || answer.unwrap().status() == StatusCode::GATEWAY_TIMEOUT);
    tokio::time::sleep(WATCHED.saturating_sub(started.elapsed())).await;
    let b_ended = ended.lock().unwrap().map(|at| at - started);
    let c = c_hits
        .all()
        .into_iter()
        .map(|(at, deadline)| (at - started, deadline))
        .collect();
    Run { a_took, b_ended, c }
}

#[tokio::test]
async fn with_propagation_the_chain_ends_by_as_budget() {
    let with = slow_chain(true).await;
    let without = slow_chain(false).await;
    let slack = ms(150);

    // A gives up at its budget either way.
    for run in [&with, &without] {
        assert!(run.a_took >= A_BUDGET - ms(5), "{:?}", run.a_took);
        assert!(run.a_took < A_BUDGET + slack, "{:?}", run.a_took);
    }

    // With: B's last call to C ended by A's budget, and every request at C
    // was sent before A gave up, with no more than A had left: B's own
    // timeout (200 ms) at 0 and 250 ms, what was left of A's 600 (about
    // 100 ms) at 500 ms, and none after.
    let b_ended = with.b_ended.expect("B's call ended");
    assert!(b_ended < A_BUDGET + slack, "{b_ended:?}");
    assert_eq!(with.c.len(), 3, "{:?}", with.c);
    for &(at, deadline) in &with.c {
        assert!(at < A_BUDGET, "{at:?}");
        let deadline = deadline.expect("each request carries its deadline");
        assert!(deadline <= B_TIMEOUT, "{deadline:?}");
        assert!(at + deadline <= A_BUDGET + slack, "{at:?} + {deadline:?}");
    }
    let last = with.c[2].1.unwrap();
    assert!(last <= A_BUDGET - ms(450), "{last:?}");

    // Without: B's call still runs when A has long given up, and C keeps
    // getting its attempts, one every 250 ms, with no deadline header.
    assert_eq!(without.b_ended, None);
    assert!(without.c.len() >= 5, "{:?}", without.c);
    assert!(without.c.iter().all(|&(_, deadline)| deadline.is_none()));
    let after = without.c.iter().filter(|&&(at, _)| at > A_BUDGET).count();
    assert!(after >= 2, "{:?}", without.c);
}

#[tokio::test]
async fn one_sick_instance_of_c_opens_only_its_own_breaker_at_b() {
    let (sick, sick_hits) = start_c().await;
    let (well, well_hits) = start_c().await;
    let breakers = Arc::new(
        EndpointBreakers::builder("c")
            .template(
                CircuitBreaker::builder()
                    .failure_threshold(3)
                    .break_duration(Duration::from_secs(60)),
            )
            .build()
            .unwrap(),
    );
    let b_client = ResilientMiddleware::new()
        .timeout(ms(500))
        .per_endpoint(Arc::clone(&breakers))
        .send_deadline(DeadlineHeader::grpc_timeout());
    let b = B {
        client: client(b_client),
        c: Arc::new(vec![sick.clone(), well.clone()]),
        ended: Arc::default(),
    };
    let b = start_b(b, true).await;
    let a = client(
        ResilientMiddleware::new()
            .timeout(ms(1000))
            .send_deadline(DeadlineHeader::grpc_timeout()),
    );

    let open = AtomicU32::new(0);
    for n in 0..20 {
        let response = a.get(format!("{b}/pick/{n}")).send().await.unwrap();
        let status = response.status();
        let text = response.text().await.unwrap();
        if n % 2 == 1 {
            assert_eq!((status, text.as_str()), (StatusCode::OK, "from C"));
        } else if text == "circuit open" {
            open.fetch_add(1, Ordering::Relaxed);
        } else {
            assert_eq!(
                (status, text.as_str()),
                (StatusCode::SERVICE_UNAVAILABLE, "from C")
            );
        }
    }

    // The sick instance saw 3 requests, then its breaker opened; the well
    // one saw all of its 10.
    assert_eq!(sick_hits.all().len(), 3);
    assert_eq!(open.load(Ordering::Relaxed), 7);
    assert_eq!(well_hits.all().len(), 10);
    let key = |url: &str| url.trim_start_matches("http://").to_owned();
    let mut expected = vec![
        (key(&sick), CircuitState::Open),
        (key(&well), CircuitState::Closed),
    ];
    expected.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(breakers.states(), expected);
}

// Retries that don't multiply: with nested calls declining their retries,
// C receives at most A's attempts × 1 × 1 requests, against 4 × 4 × 4 = 64
// when every layer retries. Its test belongs here, on the servers above,
// with the option that declines them.

//! A real chain of services on 127.0.0.1, A → B → C, each an axum server
//! or a reqwest client with `ResilientMiddleware`, on the real clock:
//!
//! * with the deadline propagated (`send_deadline` at A and B,
//!   `ServerDeadlineLayer` at B), the whole chain ends by A's budget: B's
//!   calls to a slow C inherit what A had left, and none reaches C once A
//!   has given up; without, B keeps calling C long after;
//! * with a breaker per host at B and two instances of C, one failing,
//!   only the failing one's breaker opens, and traffic keeps flowing to the
//!   other;
//! * with the hold sent by A (`nested(Nested::NoRetry)` and `send_hold`)
//!   and read at B (`ServerHoldLayer`), retries don't multiply: a failing
//!   C receives one request per attempt of A, 4, against 4 × 4 × 4 = 64
//!   when A, B's own `#[resilient]` function and B's tower client to C
//!   each retry 3 times.
//!
//! Budgets are a few hundred milliseconds, every wait is bounded, and the
//! retries of the last part wait nothing: the file runs in about 3 s.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::get;
use bytes::Bytes;
use http_body_util::Empty;
use hyper_util::client::legacy::Client as Hyper;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use reqwest_middleware::{ClientBuilder, ClientWithMiddleware};
use resilient::deadline::header::{DeadlineHeader, HoldHeader, parse_grpc_timeout};
use resilient::deadline::{self, Nested};
use resilient::endpoint::EndpointBreakers;
use resilient::reqwest::ResilientMiddleware;
use resilient::tower::{
    HttpClassifier, ReportExtension, Resilient, ResilientLayer, SendHold, ServerDeadlineLayer,
    ServerHoldLayer,
};
use resilient::{Backoff, CircuitBreaker, CircuitOpen, CircuitState, TokioClock, resilient};
use tower::Layer;

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

/// B's tower client to C: hyper's legacy client behind a `ResilientLayer`
/// of 4 attempts, no backoff, which sends the hold on.
type ToC = Resilient<
    SendHold<Hyper<HttpConnector, Empty<Bytes>>>,
    HttpClassifier,
    TokioClock,
    ReportExtension,
>;

fn to_c() -> ToC {
    ResilientLayer::new()
        .retries(3)
        .backoff(Backoff::none())
        .classify(HttpClassifier)
        .attach_report(ReportExtension)
        .send_hold(HoldHeader::default())
        .layer(Hyper::builder(TokioExecutor::new()).build_http())
}

#[derive(Debug, thiserror::Error)]
#[error("C is down")]
struct Down;

/// B's own layer of retries, in process, between its handler and its
/// client to C: 4 attempts, no backoff.
#[resilient(retries = 3, backoff = none)]
async fn relay(c: &ToC, url: &str) -> Result<(), Down> {
    let request = http::Request::get(url)
        .body(Empty::new())
        .map_err(|_| Down)?;
    match c.clone().oneshot(request).await {
        Ok(response) if response.status().is_success() => Ok(()),
        _ => Err(Down),
    }
}

/// The hold header of each request a server received, in order.
#[derive(Clone, Default)]
struct Holds(Arc<Mutex<Vec<Option<String>>>>);

impl Holds {
    fn record(&self, headers: &HeaderMap) {
        let hold = headers
            .get(HoldHeader::DEFAULT_NAME)
            .map(|v| v.to_str().unwrap().to_owned());
        self.0.lock().unwrap().push(hold);
    }

    fn all(&self) -> Vec<Option<String>> {
        self.0.lock().unwrap().clone()
    }
}

/// What a run of A → B → C came to: the hold header of each request B
/// and C received, and A's attempts.
struct Chain {
    b: Vec<Option<String>>,
    c: Vec<Option<String>>,
    a_attempts: u32,
}

/// A → B → C, C always 503: A's middleware and B's `relay` and tower
/// client each make up to 4 attempts; with `hold`, A sends the hold and B
/// reads it.
async fn failing_chain(hold: bool) -> Chain {
    let c_holds = Holds::default();
    let c = serve(
        Router::new()
            .route(
                "/busy",
                get(
                    |State(holds): State<Holds>, headers: HeaderMap| async move {
                        holds.record(&headers);
                        StatusCode::SERVICE_UNAVAILABLE
                    },
                ),
            )
            .with_state(c_holds.clone()),
    )
    .await;

    let b_holds = Holds::default();
    let state = (b_holds.clone(), Arc::new(to_c()), format!("{c}/busy"));
    let b =
        Router::new()
            .route(
                "/relay",
                get(
                    |State((holds, c, url)): State<(Holds, Arc<ToC>, String)>,
                     headers: HeaderMap| async move {
                        holds.record(&headers);
                        match relay(&c, &url).await.into_result() {
                            Ok(()) => StatusCode::OK,
                            Err(Down) => StatusCode::SERVICE_UNAVAILABLE,
                        }
                    },
                ),
            )
            .with_state(state);
    let b = serve(if hold {
        b.layer(ServerHoldLayer::new(HoldHeader::default()))
    } else {
        b
    })
    .await;

    let a = ResilientMiddleware::new()
        .retries(3)
        .backoff(Backoff::none());
    let a = client(if hold {
        a.nested(Nested::NoRetry).send_hold(HoldHeader::default())
    } else {
        a
    });
    let response = a.get(format!("{b}/relay")).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
    let report = response
        .extensions()
        .get::<resilient::ExecutionReport>()
        .expect("the middleware's report");
    Chain {
        b: b_holds.all(),
        c: c_holds.all(),
        a_attempts: report.attempt_count(),
    }
}

#[tokio::test]
async fn with_the_hold_c_receives_one_request_per_attempt_of_a() {
    let without = failing_chain(false).await;
    assert_eq!(without.a_attempts, 4);
    assert_eq!(without.b.len(), 4, "A's attempts");
    assert_eq!(without.c.len(), 64, "4 × 4 × 4");
    assert!(without.b.iter().chain(&without.c).all(Option::is_none));

    let with = failing_chain(true).await;
    let one = Some("1".to_owned());
    // A retries, its last attempt too, and says so on each; B's `relay`
    // and its client to C make one attempt each and pass the hold on.
    assert_eq!(with.a_attempts, 4);
    assert_eq!(with.b, vec![one.clone(); 4]);
    assert_eq!(with.c, vec![one; 4], "4 × 1 × 1");
}

//! The options of the reqwest middleware and of the tower layer,
//! composed: every option alone, and every pair of them in both orders,
//! on one call against two real replicas on 127.0.0.1 whose first answer
//! to a call is a 503. Each combination must succeed on its second
//! attempt, and each option's own effect must still be seen beside the
//! other's: an option that another one switched off or broke fails its
//! check, named with the pair. The layer runs over hyper's client; the
//! replay buffer is the middleware's alone.
//!
//! Real time, short: each call takes two quick answers.

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode};
use bytes::Bytes;
use futures_util::stream;
use http_body_util::Full;
use hyper_util::client::legacy::Client as Hyper;
use hyper_util::rt::TokioExecutor;
use reqwest_middleware::ClientBuilder;
use resilient::deadline::header::DeadlineHeader;
use resilient::endpoint::{EndpointBreakers, OutlierDetection, Replicas};
use resilient::limit::Bulkhead;
use resilient::reqwest::ResilientMiddleware;
use resilient::throttle::AdaptiveThrottle;
use resilient::tower::{HttpClassifier, ReportExtension, ResilientLayer};
use resilient::{
    AttemptKind, Backoff, CircuitBreaker, CircuitState, ExecutionReport, RetryThrottle, TokioClock,
};
use tower::Layer;

/// What a replica received: which one, the call's id, the headers, the
/// whole body.
#[derive(Debug, Clone)]
struct Received {
    replica: String,
    call: String,
    headers: HeaderMap,
    body: Bytes,
}

/// The replicas' shared state: the calls seen, and every request.
#[derive(Default)]
struct Backend {
    seen: Mutex<HashMap<String, u32>>,
    received: Mutex<Vec<Received>>,
}

/// A replica: the first request of a call answers 503, the later ones 200.
async fn answer(
    State((backend, replica)): State<(Arc<Backend>, String)>,
    request: Request,
) -> StatusCode {
    let (parts, body) = request.into_parts();
    let body = axum::body::to_bytes(body, 1 << 20)
        .await
        .unwrap_or_default();
    let call = parts
        .headers
        .get("x-call")
        .and_then(|value| value.to_str().ok())
        .unwrap_or("")
        .to_owned();
    backend.received.lock().unwrap().push(Received {
        replica,
        call: call.clone(),
        headers: parts.headers,
        body,
    });
    let mut seen = backend.seen.lock().unwrap();
    let count = seen.entry(call).or_default();
    *count += 1;
    if *count == 1 {
        StatusCode::SERVICE_UNAVAILABLE
    } else {
        StatusCode::OK
    }
}

async fn replica(backend: &Arc<Backend>) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address: SocketAddr = listener.local_addr().unwrap();
    let url = format!("http://{address}");
    let app = Router::new()
        .fallback(answer)
        .with_state((Arc::clone(backend), url.clone()));
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    url
}

/// The two replicas' base URLs.
struct Env {
    replicas: [String; 2],
}

/// One call of a combination, as its checks see it.
struct Call<'a> {
    report: &'a ExecutionReport,
    /// What the replicas received of this call, in order.
    received: Vec<Received>,
    /// The other options of the combination.
    with: &'a [&'static str],
}

type Check = Box<dyn Fn(&Call<'_>)>;

/// A combination being built: the middleware or the layer, whether the
/// body streams, where the call goes, and what each option checks once it
/// ran.
struct Build<M> {
    middleware: M,
    /// The client has no such option: the combination is not run.
    lacks: bool,
    streamed: bool,
    target: String,
    checks: Vec<(&'static str, Check)>,
}

impl<M> Build<M> {
    fn check(mut self, name: &'static str, check: impl Fn(&Call<'_>) + 'static) -> Self {
        self.checks.push((name, Box::new(check)));
        self
    }
}

/// An option: its name, and how it joins a combination.
type Option_<M> = (&'static str, fn(Build<M>, &Env) -> Build<M>);

/// A request of the layer's.
type Req = http::Request<Full<Bytes>>;

/// The layer's copy of a request, for each attempt.
fn copy(request: &Req) -> Option<Req> {
    let mut copy = http::Request::new(request.body().clone());
    *copy.method_mut() = request.method().clone();
    *copy.uri_mut() = request.uri().clone();
    *copy.headers_mut() = request.headers().clone();
    Some(copy)
}

type Copy = fn(&Req) -> Option<Req>;

/// The layer as the matrix builds it: HTTP's verdicts, the report on the
/// response, requests copied by [`copy`].
type HttpLayer = ResilientLayer<HttpClassifier, TokioClock, ReportExtension, Copy>;

/// What the middleware and the layer share, as the matrix sets it, and
/// how each sends one call.
trait Client: With {
    fn base() -> Self;
    fn timeout(self, timeout: Duration) -> Self;
    fn budget(self, budget: Duration) -> Self;
    fn circuit_breaker(self, breaker: Arc<CircuitBreaker>) -> Self;
    fn limit(self, bulkhead: Arc<Bulkhead>) -> Self;
    fn throttle(self, throttle: Arc<RetryThrottle>) -> Self;
    fn adaptive_throttle(self, throttle: Arc<AdaptiveThrottle>) -> Self;
    fn per_endpoint(self, breakers: Arc<EndpointBreakers>) -> Self;
    fn send_deadline(self, header: DeadlineHeader) -> Self;
    fn on_report(self, hook: impl Fn(&ExecutionReport) + Send + Sync + 'static) -> Self;
    fn hedge_at_percentile(self, fallback: Duration, percentile: f64, load: f64) -> Self;
    fn replicas(self, replicas: Replicas) -> Self;
    fn outlier_detection(self, detection: OutlierDetection) -> Self;
    /// `None`: the layer has none.
    fn replay_buffer(self, bytes: usize) -> Option<Self>;
    /// Sends a PUT to `target` with `x-call: label` and the body, whole or
    /// streamed; the status and the report.
    async fn put(self, target: &str, label: &str, streamed: bool) -> (u16, ExecutionReport);
}

/// A client's own type, which the setters both spell alike take and
/// give back.
trait With: Sized {
    type Inner;
    fn with(self, set: impl FnOnce(Self::Inner) -> Self::Inner) -> Self;
}

impl With for ResilientMiddleware {
    type Inner = Self;
    fn with(self, set: impl FnOnce(Self) -> Self) -> Self {
        set(self)
    }
}

/// The layer, and the deadline header its calls send: a layer of its
/// own, stacked outside when the service is made.
struct LayerClient {
    layer: HttpLayer,
    deadline: Option<DeadlineHeader>,
}

impl With for LayerClient {
    type Inner = HttpLayer;
    fn with(self, set: impl FnOnce(HttpLayer) -> HttpLayer) -> Self {
        LayerClient {
            layer: set(self.layer),
            ..self
        }
    }
}

/// The setters both types spell alike.
macro_rules! shared {
    () => {
        fn timeout(self, timeout: Duration) -> Self {
            self.with(|c| c.timeout(timeout))
        }
        fn budget(self, budget: Duration) -> Self {
            self.with(|c| c.budget(budget))
        }
        fn circuit_breaker(self, breaker: Arc<CircuitBreaker>) -> Self {
            self.with(|c| c.circuit_breaker(breaker))
        }
        fn limit(self, bulkhead: Arc<Bulkhead>) -> Self {
            self.with(|c| c.limit(bulkhead))
        }
        fn throttle(self, throttle: Arc<RetryThrottle>) -> Self {
            self.with(|c| c.throttle(throttle))
        }
        fn adaptive_throttle(self, throttle: Arc<AdaptiveThrottle>) -> Self {
            self.with(|c| c.adaptive_throttle(throttle))
        }
        fn on_report(self, hook: impl Fn(&ExecutionReport) + Send + Sync + 'static) -> Self {
            self.with(|c| c.on_report(hook))
        }
        fn hedge_at_percentile(self, fallback: Duration, percentile: f64, load: f64) -> Self {
            self.with(|c| {
                c.hedge(fallback)
                    .hedge_at_percentile(percentile)
                    .max_extra_load(load)
            })
        }
        fn outlier_detection(self, detection: OutlierDetection) -> Self {
            self.with(|c| c.outlier_detection(detection))
        }
    };
}

fn chunks() -> impl futures_util::Stream<Item = Result<Bytes, Infallible>> {
    stream::iter(BODY.iter().map(|chunk| Ok(Bytes::from_static(chunk))))
}

impl Client for ResilientMiddleware {
    shared!();

    fn send_deadline(self, header: DeadlineHeader) -> Self {
        self.send_deadline(header)
    }
    fn base() -> Self {
        ResilientMiddleware::new()
            .retries(2)
            .backoff(Backoff::constant(Duration::from_millis(1)))
    }
    fn per_endpoint(self, breakers: Arc<EndpointBreakers>) -> Self {
        self.per_endpoint(breakers)
    }
    fn replicas(self, replicas: Replicas) -> Self {
        self.replicas(replicas)
    }
    fn replay_buffer(self, bytes: usize) -> Option<Self> {
        Some(self.replay_buffer(bytes))
    }
    async fn put(self, target: &str, label: &str, streamed: bool) -> (u16, ExecutionReport) {
        let client = ClientBuilder::new(reqwest::Client::new())
            .with(self)
            .build();
        // PUT: idempotent, so a 503 is retried; with a body to replay.
        let request = client.put(target).header("x-call", label);
        let request = if streamed {
            request.body(reqwest::Body::wrap_stream(chunks()))
        } else {
            request.body(BODY.concat())
        };
        let response = request
            .send()
            .await
            .unwrap_or_else(|e| panic!("{label}: {e}"));
        let report = response.extensions().get::<ExecutionReport>().cloned();
        (response.status().as_u16(), report.expect("the report"))
    }
}

impl Client for LayerClient {
    shared!();

    fn base() -> Self {
        let layer = ResilientLayer::new()
            .retries(2)
            .backoff(Backoff::constant(Duration::from_millis(1)))
            .classify(HttpClassifier)
            .attach_report(ReportExtension)
            .clone_request(copy as Copy);
        LayerClient {
            layer,
            deadline: None,
        }
    }
    fn send_deadline(self, header: DeadlineHeader) -> Self {
        LayerClient {
            deadline: Some(header),
            ..self
        }
    }
    fn per_endpoint(self, breakers: Arc<EndpointBreakers>) -> Self {
        self.with(|c| {
            c.per_endpoint_by(breakers, |request: &Req| {
                request
                    .uri()
                    .authority()
                    .map(ToString::to_string)
                    .unwrap_or_default()
            })
        })
    }
    fn replicas(self, replicas: Replicas) -> Self {
        self.with(|c| c.replicas(replicas, resilient::http::to_replica::<Full<Bytes>>))
    }
    fn replay_buffer(self, _: usize) -> Option<Self> {
        None
    }
    async fn put(self, target: &str, label: &str, streamed: bool) -> (u16, ExecutionReport) {
        assert!(!streamed, "the layer's bodies are whole");
        let hyper = Hyper::builder(TokioExecutor::new()).build_http::<Full<Bytes>>();
        let request = http::Request::put(target)
            .header("x-call", label)
            .body(Full::new(Bytes::from(BODY.concat())))
            .unwrap();
        let response = match self.deadline {
            Some(header) => {
                let service = self.layer.send_deadline(header).layer(hyper);
                service.oneshot(request).await
            }
            None => self.layer.layer(hyper).oneshot(request).await,
        };
        let response = response.unwrap_or_else(|e| panic!("{label}: {e}"));
        let report = response.extensions().get::<ExecutionReport>().cloned();
        (response.status().as_u16(), report.expect("the report"))
    }
}

const BODY: &[&[u8]] = &[b"first chunk, ", b"second chunk, ", b"third"];

fn options<M: Client>() -> Vec<Option_<M>> {
    vec![
        ("timeout", |build, _| {
            let middleware = build.middleware.timeout(Duration::from_secs(3));
            Build {
                middleware,
                ..build
            }
            .check("timeout", |call| {
                for attempt in call.report.attempts() {
                    let deadline = attempt.deadline().expect("a deadline per attempt");
                    assert!(deadline <= Duration::from_secs(3), "{deadline:?}");
                }
            })
        }),
        ("budget", |build, _| {
            let middleware = build.middleware.budget(Duration::from_secs(4));
            Build {
                middleware,
                ..build
            }
            .check("budget", |call| {
                let last = call.report.attempts().last().unwrap();
                let deadline = last.deadline().expect("the budget bounds the last attempt");
                assert!(last.started_at() + deadline <= Duration::from_secs(4));
            })
        }),
        ("circuit_breaker", |build, _| {
            let breaker = Arc::new(
                CircuitBreaker::builder()
                    .failure_threshold(2)
                    .build()
                    .unwrap(),
            );
            let middleware = build.middleware.circuit_breaker(Arc::clone(&breaker));
            Build {
                middleware,
                ..build
            }
            .check("circuit_breaker", move |_| {
                // One failure and then a success: counted, and closed again.
                assert_eq!(breaker.state(Instant::now()), CircuitState::Closed);
                assert_eq!(breaker.snapshot().consecutive_failures(), 0);
            })
        }),
        ("limit", |build, _| {
            let bulkhead = Arc::new(Bulkhead::new(1));
            let middleware = build.middleware.limit(Arc::clone(&bulkhead));
            Build {
                middleware,
                ..build
            }
            .check("limit", move |call| {
                assert_eq!(bulkhead.available(), 1, "every permit given back");
                let queued = call.report.attempts().iter().map(|a| a.queued());
                assert!(queued.max().unwrap() < Duration::from_secs(1));
            })
        }),
        ("throttle", |build, _| {
            let throttle = Arc::new(RetryThrottle::new(10, 0.1));
            let middleware = build.middleware.throttle(throttle);
            Build {
                middleware,
                ..build
            }
            .check("throttle", |call| {
                assert_eq!(call.report.retry_count(), 1, "the retry was allowed");
            })
        }),
        ("adaptive_throttle", |build, _| {
            // Below its minimum of requests it refuses none: the two
            // attempts are counted, and the retry goes.
            let throttle = Arc::new(AdaptiveThrottle::new().min_requests(10));
            let middleware = build.middleware.adaptive_throttle(Arc::clone(&throttle));
            Build {
                middleware,
                ..build
            }
            .check("adaptive_throttle", move |_| {
                assert_eq!(throttle.requests(), 2, "both attempts counted");
                assert_eq!(throttle.accepts(), 1, "the 200 accepted");
                assert_eq!(throttle.rejections(), 0);
            })
        }),
        ("per_endpoint", |build, _| {
            let breakers = Arc::new(EndpointBreakers::builder("matrix").build().unwrap());
            let middleware = build.middleware.per_endpoint(Arc::clone(&breakers));
            Build {
                middleware,
                ..build
            }
            .check("per_endpoint", move |call| {
                let keys: Vec<String> = breakers.states().into_iter().map(|(key, _)| key).collect();
                assert_eq!(
                    keys.len(),
                    1,
                    "one breaker, for the request's endpoint: {keys:?}"
                );
                if !call.with.contains(&"replicas") {
                    let sent = &call.received[0].replica["http://".len()..];
                    assert_eq!(keys, [sent], "keyed by the request's host:port");
                }
            })
        }),
        ("send_deadline", |build, _| {
            let header = DeadlineHeader::millis(http::HeaderName::from_static("x-deadline-ms"));
            let middleware = build.middleware.send_deadline(header);
            Build {
                middleware,
                ..build
            }
            .check("send_deadline", |call| {
                // The header says what is left of the attempt's deadline,
                // which `timeout` (3 s) or `budget` (4 s) gives; without
                // either, an attempt has none and sends none.
                let bound = if call.with.contains(&"timeout") {
                    Some(3000)
                } else if call.with.contains(&"budget") {
                    Some(4000)
                } else {
                    None
                };
                for received in &call.received {
                    let sent = received.headers.get("x-deadline-ms");
                    let Some(bound) = bound else {
                        assert!(sent.is_none(), "{sent:?} without a deadline");
                        continue;
                    };
                    let ms: u64 = sent.expect("the header").to_str().unwrap().parse().unwrap();
                    assert!(ms > 0 && ms <= bound, "{ms} ms, of {bound}");
                }
            })
        }),
        ("on_report", |build, _| {
            let reports = Arc::new(AtomicU32::new(0));
            let counted = Arc::clone(&reports);
            let middleware = build.middleware.on_report(move |_: &ExecutionReport| {
                counted.fetch_add(1, Ordering::Relaxed);
            });
            Build {
                middleware,
                ..build
            }
            .check("on_report", move |_| {
                assert_eq!(reports.load(Ordering::Relaxed), 1, "once per call");
            })
        }),
        ("hedge_at_percentile", |build, _| {
            let middleware =
                build
                    .middleware
                    .hedge_at_percentile(Duration::from_secs(2), 0.95, 0.5);
            Build {
                middleware,
                ..build
            }
            .check("hedge_at_percentile", |call| {
                // Quick answers: no hedge was due before each ended.
                let kinds: Vec<AttemptKind> =
                    call.report.attempts().iter().map(|a| a.kind()).collect();
                assert_eq!(kinds, [AttemptKind::Primary, AttemptKind::Primary]);
            })
        }),
        ("replicas", |build, env| {
            let set = Replicas::fixed(env.replicas.clone());
            let middleware = build.middleware.replicas(set);
            let target = "http://service.invalid/matrix".to_owned();
            let replicas = env.replicas.clone();
            Build {
                middleware,
                target,
                ..build
            }
            .check("replicas", move |call| {
                let went: Vec<&str> = call.received.iter().map(|r| r.replica.as_str()).collect();
                assert_ne!(went[0], went[1], "the retry went to the other replica");
                for (record, received) in call.report.attempts().iter().zip(&call.received) {
                    assert_eq!(
                        record.endpoint(),
                        Some(&received.replica["http://".len()..]),
                        "each record names its replica"
                    );
                    assert!(replicas.contains(&received.replica));
                }
            })
        }),
        ("outlier_detection", |build, _| {
            let detection = OutlierDetection::new()
                .consecutive_5xx(1)
                .base_ejection_time(Duration::from_secs(60))
                .max_ejection_percent(50);
            let middleware = build.middleware.outlier_detection(detection.clone());
            Build {
                middleware,
                ..build
            }
            .check("outlier_detection", move |call| {
                let ejected = detection.ejected();
                if call.with.contains(&"replicas") {
                    assert_eq!(ejected, [call.received[0].replica.clone()], "the 503 one");
                } else {
                    assert!(ejected.is_empty(), "no set, nothing to eject: {ejected:?}");
                }
            })
        }),
        ("replay_buffer", |build, _| {
            let Some(middleware) = build.middleware.replay_buffer(64 * 1024) else {
                return Build {
                    middleware: M::base(),
                    lacks: true,
                    ..build
                };
            };
            Build {
                middleware,
                streamed: true,
                ..build
            }
            .check("replay_buffer", |call| {
                let whole: Vec<u8> = BODY.concat();
                for received in &call.received {
                    assert_eq!(received.body, whole, "each attempt sent the whole body");
                }
            })
        }),
    ]
}

/// Runs one call of `client` with `chosen` options, in their order, and
/// checks each; `false` when the client lacks one of them.
async fn run<M: Client>(
    client: &str,
    chosen: &[&Option_<M>],
    env: &Env,
    backend: &Backend,
) -> bool {
    let names: Vec<&'static str> = chosen.iter().map(|(name, _)| *name).collect();
    let label = format!("{client}: {}", names.join(" + "));
    let mut build = Build {
        middleware: M::base(),
        lacks: false,
        streamed: false,
        target: format!("{}/matrix", env.replicas[0]),
        checks: Vec::new(),
    };
    for (_, join) in chosen {
        build = join(build, env);
    }
    if build.lacks {
        return false;
    }
    let (status, report) = build
        .middleware
        .put(&build.target, &label, build.streamed)
        .await;
    let received: Vec<Received> = backend
        .received
        .lock()
        .unwrap()
        .iter()
        .filter(|received| received.call == label)
        .cloned()
        .collect();
    assert_eq!(status, 200, "{label}: {report:?}");
    assert_eq!(report.attempt_count(), 2, "{label}: {report:?}");
    assert_eq!(received.len(), 2, "{label}: the replicas saw both attempts");
    let call = Call {
        report: &report,
        received,
        with: &names,
    };
    for (name, check) in &build.checks {
        let others: Vec<&str> = names.iter().copied().filter(|n| n != name).collect();
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(&call)));
        if let Err(panic) = outcome {
            let why = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                .unwrap_or_default();
            panic!("{client}: {name} fails beside {others:?}: {why}");
        }
    }
    true
}

/// Every option of `client` alone and every pair both ways; how many
/// combinations ran.
async fn every_pair<M: Client>(client: &str) -> usize {
    let backend = Arc::new(Backend::default());
    let env = Env {
        replicas: [replica(&backend).await, replica(&backend).await],
    };
    let options = options::<M>();
    let mut runs = 0;
    for (i, a) in options.iter().enumerate() {
        runs += usize::from(run(client, &[a], &env, &backend).await);
        for b in &options[i + 1..] {
            runs += usize::from(run(client, &[a, b], &env, &backend).await);
            runs += usize::from(run(client, &[b, a], &env, &backend).await);
        }
    }
    runs
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_middleware_option_holds_alone_and_beside_every_other_in_either_order() {
    let n = options::<ResilientMiddleware>().len();
    assert_eq!(every_pair::<ResilientMiddleware>("middleware").await, n * n);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_layer_option_holds_alone_and_beside_every_other_in_either_order() {
    // All but the replay buffer, the middleware's alone.
    let n = options::<LayerClient>().len() - 1;
    assert_eq!(every_pair::<LayerClient>("layer").await, n * n);
}

//! The dashboard in a real browser: a service with the dashboard mounted,
//! a load generator calling a flaky server through two operations, and
//! headless Chromium reading what a person would see once the stream has
//! updated the page: a tile per operation, the error % the load generator
//! measured (within 5 points), a breaker shown open while it is open
//! and closed once it has recovered, a connection pool's fill and
//! refusals on its operation's tile, and a breaker per host under the tile
//! of a reqwest middleware's operation: the sick host's open, the other's
//! closed. Saves screenshots to
//! `target/dashboard.png` and `target/dashboard-open.png`.
//!
//! Everything runs on 127.0.0.1, in real time, bounded: each wait gives up
//! after a few seconds.

#[path = "support/chromium.rs"]
mod chromium;

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::get;
use resilient::endpoint::EndpointBreakers;
use resilient::limit::{Bulkhead, Completion, Limiter};
use resilient::reqwest::ResilientMiddleware;
use resilient::{CircuitBreaker, CircuitOpen, CircuitState, LimitExceeded, resilient};
use serde_json::Value;

use chromium::Chromium;

/// The flaky server: `/item` fails 3 requests in 10; `/pay` fails every
/// request while `down` is set.
#[derive(Default)]
struct Flaky {
    items: AtomicU64,
    down: AtomicBool,
}

async fn item(State(flaky): State<Arc<Flaky>>) -> StatusCode {
    if flaky.items.fetch_add(1, Ordering::Relaxed) % 10 < 3 {
        StatusCode::SERVICE_UNAVAILABLE
    } else {
        StatusCode::OK
    }
}

async fn pay(State(flaky): State<Arc<Flaky>>) -> StatusCode {
    if flaky.down.load(Ordering::Relaxed) {
        StatusCode::SERVICE_UNAVAILABLE
    } else {
        StatusCode::OK
    }
}

#[derive(Debug)]
enum CallError {
    Unavailable,
    Transport,
    Open,
}

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{self:?}")
    }
}

impl From<LimitExceeded> for CallError {
    fn from(_: LimitExceeded) -> Self {
        CallError::Unavailable
    }
}

impl From<CircuitOpen> for CallError {
    fn from(_: CircuitOpen) -> Self {
        CallError::Open
    }
}

async fn get_status(client: &reqwest::Client, url: &str) -> Result<(), CallError> {
    let response = client
        .get(url)
        .send()
        .await
        .map_err(|_| CallError::Transport)?;
    if response.status().is_success() {
        Ok(())
    } else {
        Err(CallError::Unavailable)
    }
}

/// The catalog's connections: its tile shows the pool's fill and refusals.
static CATALOG_POOL: Bulkhead = Bulkhead::new(4).named("catalog.pool");

#[resilient(name = "catalog.item", retries = 1, backoff = none, limit = &CATALOG_POOL)]
async fn catalog_item(client: &reqwest::Client, url: &str) -> Result<(), CallError> {
    get_status(client, url).await
}

static PAYMENTS: LazyLock<CircuitBreaker> = LazyLock::new(|| {
    CircuitBreaker::builder()
        .name("payments")
        .failure_threshold(3)
        .break_duration(Duration::from_secs(2))
        .build()
        .expect("a valid breaker")
});

#[resilient(name = "payments.charge", circuit_breaker = &PAYMENTS)]
async fn payments_charge(client: &reqwest::Client, url: &str) -> Result<(), CallError> {
    get_status(client, url).await
}

/// What the load generator saw: each call's end and whether it failed.
#[derive(Default)]
struct Truth(Mutex<VecDeque<(Instant, bool)>>);

impl Truth {
    fn record(&self, failed: bool) {
        let mut calls = self.0.lock().unwrap();
        calls.push_back((Instant::now(), failed));
        while calls.len() > 100_000 {
            calls.pop_front();
        }
    }

    /// The error % of the calls that ended in the `window` before `at`.
    fn error_pct(&self, at: Instant, window: Duration) -> f64 {
        let calls = self.0.lock().unwrap();
        let recent: Vec<bool> = calls
            .iter()
            .filter(|(end, _)| *end <= at && at.duration_since(*end) <= window)
            .map(|(_, failed)| *failed)
            .collect();
        assert!(!recent.is_empty(), "the load generator made no call");
        100.0 * recent.iter().filter(|failed| **failed).count() as f64 / recent.len() as f64
    }
}

async fn serve(app: Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{address}")
}

/// What the page shows of each tile.
const READ_TILES: &str = r#"JSON.stringify(Array.from(document.querySelectorAll("[data-operation]")).map(tile => ({
    name: tile.dataset.operation,
    error_pct: tile.querySelector('[data-field="error-pct"]').textContent,
    calls_per_s: tile.querySelector('[data-field="calls-per-s"]').textContent,
    breaker: (tile.querySelector('[data-field="breaker-state"]') || {}).textContent || null,
    limits: Array.from(tile.querySelectorAll('[data-field="limit"]')).map(row => row.textContent),
    endpoints: Array.from(tile.querySelectorAll('[data-field="endpoint-state"]'))
        .map(badge => badge.closest("[data-key]").dataset.key + "=" + badge.textContent),
    endpoint_rule: (tile.querySelector('[data-field="endpoints-template"]') || {}).textContent || null,
    endpoint_labels: Array.from(tile.querySelectorAll("[data-key] .what")).map(what => what.textContent),
})))"#;

async fn tiles(browser: &mut Chromium) -> Vec<Value> {
    let text = browser.eval(READ_TILES).await;
    serde_json::from_str(text.as_str().unwrap_or("[]")).unwrap_or_default()
}

fn tile<'a>(tiles: &'a [Value], name: &str) -> Option<&'a Value> {
    tiles.iter().find(|tile| tile["name"] == name)
}

/// Polls the page until `check` holds, for at most `within`.
async fn wait_for(
    browser: &mut Chromium,
    within: Duration,
    what: &str,
    check: impl Fn(&[Value]) -> bool,
) -> Vec<Value> {
    let deadline = Instant::now() + within;
    loop {
        let seen = tiles(browser).await;
        if check(&seen) {
            return seen;
        }
        assert!(
            Instant::now() < deadline,
            "{what} within {within:?}; the page shows {seen:?}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_shows_each_operation_its_error_rate_its_breaker_and_its_limits() {
    let Some(mut browser) = Chromium::start().await else {
        return;
    };
    let flaky = Arc::new(Flaky::default());
    let upstream = serve(
        Router::new()
            .route("/item", get(item))
            .route("/pay", get(pay))
            .with_state(flaky.clone()),
    )
    .await;
    let service =
        serve(Router::new().nest_service("/resilience", resilient::dashboard::router())).await;

    // The load: each operation called every 20 ms.
    let truth = Arc::new(Truth::default());
    let client = reqwest::Client::new();
    let (item_url, pay_url) = (format!("{upstream}/item"), format!("{upstream}/pay"));
    let load = {
        let (truth, client) = (truth.clone(), client.clone());
        tokio::spawn(async move {
            let mut every = tokio::time::interval(Duration::from_millis(20));
            loop {
                every.tick().await;
                let item = catalog_item(&client, &item_url).await;
                truth.record(!item.is_ok());
                let _ = payments_charge(&client, &pay_url).await;
            }
        })
    };

    // A search service on two hosts, one of them sick, through a
    // middleware with a breaker per host.
    let sick =
        serve(Router::new().route("/search", get(|| async { StatusCode::SERVICE_UNAVAILABLE })))
            .await;
    let well = serve(Router::new().route("/search", get(|| async { StatusCode::OK }))).await;
    let breakers = Arc::new(
        EndpointBreakers::builder("search")
            .template(
                CircuitBreaker::builder()
                    .failure_threshold(3)
                    .break_duration(Duration::from_secs(60)),
            )
            .build()
            .unwrap(),
    );
    let search = {
        let client = reqwest_middleware::ClientBuilder::new(client.clone())
            .with(
                ResilientMiddleware::new()
                    .name("search.by_host")
                    .per_endpoint(breakers),
            )
            .build();
        let urls = [format!("{sick}/search"), format!("{well}/search")];
        tokio::spawn(async move {
            let mut every = tokio::time::interval(Duration::from_millis(50));
            loop {
                every.tick().await;
                for url in &urls {
                    let _ = client.get(url).send().await;
                }
            }
        })
    };
    let key = |address: &str| address.trim_start_matches("http://").to_owned();
    let (sick_key, well_key) = (key(&sick), key(&well));

    // With the trailing slash: the page and its stream are found there too.
    browser.open(&format!("{service}/resilience/")).await;
    // A tile per operation, with figures from the stream.
    wait_for(
        &mut browser,
        Duration::from_secs(10),
        "a tile per operation",
        |tiles| {
            ["catalog.item", "payments.charge"]
                .iter()
                .all(|name| tile(tiles, name).is_some_and(|tile| tile["calls_per_s"] != "–"))
        },
    )
    .await;

    // Each host's breaker on the middleware's tile: the sick one open.
    let seen = wait_for(
        &mut browser,
        Duration::from_secs(10),
        "a breaker per host",
        |tiles| {
            tile(tiles, "search.by_host").is_some_and(|tile| {
                tile["endpoints"]
                    == serde_json::json!([format!("{sick_key}=open"), format!("{well_key}=closed")])
            })
        },
    )
    .await;
    assert_eq!(
        tile(&seen, "search.by_host").unwrap()["breaker"],
        Value::Null
    );
    // The template's rule once, and each whole key.
    let by_host = tile(&seen, "search.by_host").unwrap();
    assert_eq!(
        by_host["endpoint_rule"],
        "opens after 3 failures, breaks for 60.0 s"
    );
    assert_eq!(
        by_host["endpoint_labels"],
        serde_json::json!([sick_key, well_key])
    );

    // Let the window fill with a few readings, then compare with the truth
    // of the same 10 s.
    tokio::time::sleep(Duration::from_secs(4)).await;
    let seen = tiles(&mut browser).await;
    let truth_pct = truth.error_pct(Instant::now(), Duration::from_secs(10));
    let shown: f64 = tile(&seen, "catalog.item").unwrap()["error_pct"]
        .as_str()
        .and_then(|text| text.parse().ok())
        .expect("an error % on the tile");
    assert!(
        (shown - truth_pct).abs() <= 5.0,
        "the page shows {shown} % errors, the load generator saw {truth_pct:.1} %"
    );
    assert_eq!(tile(&seen, "payments.charge").unwrap()["breaker"], "closed");
    // The pool joined its operation's tile on its own (with as many of
    // the load's calls in flight as the snapshot caught).
    let limits = &tile(&seen, "catalog.item").unwrap()["limits"];
    let row = limits[0].as_str().unwrap_or("");
    assert!(
        limits.as_array().is_some_and(|rows| rows.len() == 1)
            && row.ends_with(" / 4 in flight, 0 refused"),
        "the catalog's pool on its tile: {limits}"
    );

    // The payments dependency goes down: the breaker opens, and the page says so.
    flaky.down.store(true, Ordering::Relaxed);
    wait_for(
        &mut browser,
        Duration::from_secs(8),
        "the breaker shown open",
        |tiles| tile(tiles, "payments.charge").is_some_and(|tile| tile["breaker"] == "open"),
    )
    .await;
    assert_eq!(PAYMENTS.state(Instant::now()), CircuitState::Open);
    browser.save_screenshot("dashboard-open.png").await;

    // It comes back: after the 2 s break a probe succeeds and the breaker closes.
    flaky.down.store(false, Ordering::Relaxed);
    wait_for(
        &mut browser,
        Duration::from_secs(10),
        "the breaker shown closed again",
        |tiles| tile(tiles, "payments.charge").is_some_and(|tile| tile["breaker"] == "closed"),
    )
    .await;
    assert_eq!(PAYMENTS.state(Instant::now()), CircuitState::Closed);

    // Something else holds the catalog's four connections: its calls are
    // refused, and its tile counts them.
    // The load's own calls may hold some for a moment: take each as it
    // frees, for at most 2 s.
    let now = Instant::now();
    let deadline = now + Duration::from_secs(2);
    let mut held = 0;
    while held < 4 {
        if CATALOG_POOL.try_acquire(Instant::now()).is_ok() {
            held += 1;
        } else {
            assert!(
                Instant::now() < deadline,
                "the load kept the catalog's pool"
            );
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
    wait_for(
        &mut browser,
        Duration::from_secs(8),
        "the pool shown full, with refusals",
        |tiles| {
            tile(tiles, "catalog.item").is_some_and(|tile| {
                let row = tile["limits"][0].as_str().unwrap_or("");
                row.starts_with("4 / 4 in flight, ") && !row.ends_with(" 0 refused")
            })
        },
    )
    .await;
    for _ in 0..4 {
        CATALOG_POOL.release(now, Duration::ZERO, Completion::Unused);
    }
    browser.save_screenshot("dashboard.png").await;
    load.abort();
    search.abort();
}

/// Without a browser: the page at both addresses, and the stream under
/// the slash form, from a real server mounted as the guide mounts it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_and_its_stream_answer_with_and_without_a_trailing_slash() {
    let service =
        serve(Router::new().nest_service("/resilience", resilient::dashboard::router())).await;
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(5))
        .build()
        .unwrap();
    for path in ["/resilience", "/resilience/"] {
        let response = client.get(format!("{service}{path}")).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::OK, "GET {path}");
        let page = response.text().await.unwrap();
        assert!(
            page.contains("new EventSource(base + \"events\")"),
            "GET {path}"
        );
    }
    let mut stream = client
        .get(format!("{service}/resilience/events"))
        .send()
        .await
        .unwrap();
    assert_eq!(stream.headers()["content-type"], "text/event-stream");
    let first = tokio::time::timeout(Duration::from_secs(5), stream.chunk())
        .await
        .expect("a snapshot within 5 s")
        .unwrap()
        .expect("a snapshot, not the end of the stream");
    assert!(first.starts_with(b"data: {"), "{first:?}");
}

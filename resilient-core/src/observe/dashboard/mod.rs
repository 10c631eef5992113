//! A live page of every operation and breaker, served by the application
//! itself (feature `dashboard`).
//!
//! [`router`] returns an axum [`Router`] to mount under any path. It serves
//! one self-contained HTML page (no CDN, no build step: it works offline)
//! and a stream of server-sent events that pushes a snapshot every second.
//! Each operation has a tile, over a rolling 10 s window: calls per second,
//! error %, retries per second, fallback %, latency p50, p90 and p99, a
//! sparkline of the last minute, its breaker's state and time in state,
//! its throttle's tokens, and its limits' fill; and the settings its
//! calls run with, with their source: the values the operation was built
//! with, or the installed configuration's entry of its name and that
//! configuration's version (its breaker's threshold and break too, and
//! an open breaker's break left, by the break in force). An operation
//! with a breaker per endpoint
//! ([`EndpointBreakers`](crate::endpoint::EndpointBreakers)) shows each
//! key's breaker as a row under its tile instead, the open ones first.
//!
//! Operations, breakers and limiters appear on their own: an operation on
//! its first call, a breaker when it is built, a limiter with the first
//! call of an operation that uses it (its in-flight count and limit as of
//! the latest call, and that operation's refusals). Nothing is listed by
//! hand.
//!
//! # What the page shows, and who may see it
//!
//! Names and numbers only: operation and breaker names, counts, rates and
//! durations. Never an argument, a result or an error's text. It is a
//! plain `Router`, so it goes behind whatever guards the service's other
//! admin routes: a middleware layer on the mounted router (see [`router`]).
//!
//! # Cost
//!
//! A call adds to its operation's counts in atomics: one add for a call
//! that succeeds at once (its latency bucket), one more per retry count,
//! failure, fallback or rejection, no lock and no allocation. The counts
//! only grow; the windows are differences between readings taken once a
//! second by a task that runs while at least one page is open, and stops
//! when the last one closes. A reading and a snapshot take time linear in
//! the operations; the minute kept holds each operation's latest counts
//! and, for each second, only the operations whose counts moved.
//!
//! # Cardinality
//!
//! A tile per operation name, for as long as the process runs: names
//! given at run time (`name = format!(…)`) get one each up to
//! [`cardinality::limit`](crate::cardinality::limit), 1 000 by default;
//! the calls of every later name share the tile
//! [`resilient.overflow`](crate::cardinality::OVERFLOW), and the page's
//! footer (the snapshot's `names`) says how many names were folded into it.
//! A thousand operations make a snapshot of well under a megabyte.
//!
//! # Control, if asked
//!
//! [`router`] only shows. [`router_with_control`] serves the same page
//! with a control panel, and POST endpoints behind a bearer token that
//! isolate and reset breakers ([`control_breaker`]), switch chaos
//! ([`control_chaos`]) and install a configuration (feature `config`).
//!
//! # Layout
//!
//! This file serves the page and the stream, and runs the sampler;
//! `window` turns readings into tiles; `endpoints` lists the breakers per
//! endpoint under them; `settings` says what settings a tile's calls run
//! with; `control` serves the controls; `page.html` is the page.

mod control;
mod endpoints;
mod health;
mod settings;
mod window;

#[cfg(feature = "tower")]
pub(crate) use endpoints::show_endpoints;
pub(crate) use endpoints::{EndpointRows, control_map};
#[cfg(test)]
pub(crate) use endpoints::{controlled_maps, endpoints_of};

use std::borrow::Cow;
use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{LazyLock, Mutex, PoisonError};
use std::time::{Duration, Instant};

use axum::Router;
use axum::http::header;
use axum::response::sse::{Event, Sse};
use axum::response::{Html, IntoResponse};
use axum::routing::{MethodRouter, get};
use futures_util::Stream;
use serde_json::{Value, json};
use tokio::sync::watch;

pub use control::{control_breaker, control_chaos, router_with_control};
pub use health::health;
use window::History;

/// The page.
const PAGE: &str = include_str!("page.html");

/// How often a snapshot is pushed.
const PERIOD: Duration = Duration::from_secs(1);

/// The dashboard's routes, to mount under any path:
///
/// * `/`: the page;
/// * `/events`: the stream of snapshots (`text/event-stream`), one a second;
/// * `/snapshot`: the latest snapshot, as JSON.
///
/// Mount it with [`Router::nest_service`], which serves the page at both
/// `/resilience` and `/resilience/`. [`Router::nest`] routes a nested
/// router's `/` at the bare path only, so under it `/resilience/` is a 404
/// of the application's own router, which no route of this one can answer.
///
/// ```
/// use axum::Router;
///
/// let app: Router = Router::new().nest_service("/resilience", resilient::dashboard::router());
/// # drop(app);
/// ```
///
/// Behind the service's own authentication, as any other router: a
/// middleware on the mounted router (here one that checks a bearer token).
///
/// ```
/// use axum::Router;
/// use axum::extract::Request;
/// use axum::http::StatusCode;
/// use axum::middleware::{self, Next};
/// use axum::response::Response;
///
/// async fn operators_only(request: Request, next: Next) -> Result<Response, StatusCode> {
///     let token = request.headers().get("authorization").and_then(|v| v.to_str().ok());
///     match token {
///         Some("Bearer let-me-in") => Ok(next.run(request).await),
///         _ => Err(StatusCode::UNAUTHORIZED),
///     }
/// }
///
/// let dashboard = resilient::dashboard::router().layer(middleware::from_fn(operators_only));
/// let app: Router = Router::new().nest_service("/resilience", dashboard);
/// # drop(app);
/// ```
pub fn router() -> Router {
    routes(get(page))
}

/// The page at `/`, served by `page`, and its stream and snapshot.
fn routes(page: MethodRouter) -> Router {
    Router::new()
        .route("/", page)
        .route("/events", get(events))
        .route("/snapshot", get(snapshot))
}

async fn page() -> Html<&'static str> {
    Html(PAGE)
}

async fn snapshot() -> impl IntoResponse {
    let json = SAMPLER.latest_or_now();
    (
        [(header::CONTENT_TYPE, "application/json")],
        json.to_string(),
    )
}

async fn events() -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let mut receiver = SAMPLER.subscribe();
    // The latest snapshot goes out at once, not a second later.
    receiver.mark_changed();
    let stream = futures_util::stream::unfold(receiver, |mut receiver| async move {
        next_snapshot(&mut receiver).await?;
        let json = receiver.borrow_and_update().clone();
        Some((Ok(Event::default().data(json.to_string())), receiver))
    });
    Sse::new(stream)
}

/// Waits for the sampler's next snapshot. The sampling task lives on the
/// runtime of the page that started it; when that runtime shuts down (a
/// second runtime serves the dashboard too, or a test's runtime ends), a
/// stream that hears nothing for two periods starts a task on its own.
async fn next_snapshot(receiver: &mut watch::Receiver<Value>) -> Option<()> {
    loop {
        match tokio::time::timeout(2 * PERIOD, receiver.changed()).await {
            Ok(changed) => return changed.ok(),
            Err(_silent) => SAMPLER.ensure_running(),
        }
    }
}

/// Takes a reading every second while someone watches, and hands out the
/// snapshots.
struct Sampler {
    history: Mutex<History>,
    latest: watch::Sender<Value>,
    running: AtomicBool,
}

static SAMPLER: LazyLock<Sampler> = LazyLock::new(|| Sampler {
    history: Mutex::new(History::default()),
    latest: watch::Sender::new(Value::Null),
    running: AtomicBool::new(false),
});

impl Sampler {
    /// A receiver of the snapshots; starts the sampling task if it isn't
    /// running.
    fn subscribe(&'static self) -> watch::Receiver<Value> {
        let receiver = self.latest.subscribe();
        self.ensure_running();
        receiver
    }

    /// Starts the sampling task on the current runtime unless one runs.
    fn ensure_running(&'static self) {
        if !self.running.swap(true, Ordering::AcqRel) {
            self.sample();
            // The guard is made here, not in the task, so that a task
            // dropped before its first poll lowers the flag too.
            tokio::spawn(self.run(Lowered(Some(&self.running))));
        }
    }

    /// The latest snapshot, or one taken now when nobody watches.
    fn latest_or_now(&self) -> Value {
        if !self.running.load(Ordering::Acquire) {
            self.sample();
        }
        self.latest.borrow().clone()
    }

    fn sample(&self) {
        #[cfg(feature = "metrics")]
        crate::metrics::refresh();
        let mut history = self.history.lock().unwrap_or_else(PoisonError::into_inner);
        history.sample(Instant::now());
        self.latest.send_replace(history.snapshot());
    }

    /// Samples every period while anyone watches. A task dropped while it
    /// waits (its runtime shut down) lowers the flag through `dropped`, so
    /// that the next page to subscribe starts another.
    async fn run(&'static self, mut dropped: Lowered) {
        let mut ticks = tokio::time::interval(PERIOD);
        ticks.tick().await;
        loop {
            ticks.tick().await;
            self.sample();
            if self.latest.receiver_count() == 0 {
                self.running.store(false, Ordering::Release);
                // A page that subscribed meanwhile either saw the flag still
                // up (and counts on this task), or started a task itself.
                if self.latest.receiver_count() == 0 || self.running.swap(true, Ordering::AcqRel) {
                    dropped.0 = None;
                    return;
                }
            }
        }
    }
}

/// Lowers the sampler's flag when dropped, unless disarmed (`None`).
struct Lowered(Option<&'static AtomicBool>);

impl Drop for Lowered {
    fn drop(&mut self) {
        if let Some(running) = self.0 {
            running.store(false, Ordering::Release);
        }
    }
}

/// A limit on an operation's calls, shown on its tile: how many calls hold
/// a permit, how many may, and how many were refused so far, each where
/// the limit knows it.
///
/// The limiters an operation takes permits from (`limit`) are on its tile
/// already. Every [`Limiter`](crate::limit::Limiter) is a gauge (its
/// in-flight count and its current limit), and a limit kept outside the
/// engine can be too:
///
/// ```
/// use resilient::dashboard::{LimitGauge, show_limit};
/// use std::sync::atomic::{AtomicU64, Ordering};
///
/// struct Pool { busy: AtomicU64, refused: AtomicU64 }
///
/// impl LimitGauge for Pool {
///     fn in_flight(&self) -> Option<u64> { Some(self.busy.load(Ordering::Relaxed)) }
///     fn limit(&self) -> Option<u64> { Some(8) }
///     fn rejections(&self) -> Option<u64> { Some(self.refused.load(Ordering::Relaxed)) }
/// }
///
/// static POOL: Pool = Pool { busy: AtomicU64::new(0), refused: AtomicU64::new(0) };
/// show_limit("search.query", "connections", &POOL);
/// ```
pub trait LimitGauge: Send + Sync {
    /// Calls that hold a permit now.
    fn in_flight(&self) -> Option<u64>;
    /// How many calls may hold one at once now.
    fn limit(&self) -> Option<u64>;
    /// Calls refused so far.
    fn rejections(&self) -> Option<u64> {
        None
    }
    /// Of the calls refused, those shed for their priority, by
    /// [`Priority`](crate::limit::Priority) (in `Priority::ALL`'s order,
    /// lowest first); none by default.
    fn shed(&self) -> [u64; 5] {
        [0; 5]
    }
}

impl<L: crate::limit::Limiter + ?Sized> LimitGauge for L {
    fn in_flight(&self) -> Option<u64> {
        crate::limit::Limiter::in_flight(self).map(u64::from)
    }

    fn limit(&self) -> Option<u64> {
        self.current_limit().map(u64::from)
    }
}

struct Limit {
    name: Cow<'static, str>,
    gauge: &'static dyn LimitGauge,
}

/// The limits shown, by operation.
static LIMITS: LazyLock<Mutex<HashMap<Cow<'static, str>, Vec<Limit>>>> =
    LazyLock::new(Default::default);

/// Shows `gauge`, called `name`, on the tile of `operation`: for a limit
/// the engine doesn't see (the operation's own `limit`s are shown on
/// their own). Once per limit and operation; a second report of the same
/// pair is ignored.
///
/// ```
/// use resilient::dashboard::show_limit;
/// use resilient::limit::{AdaptiveLimit, Limiter};
/// use std::sync::LazyLock;
///
/// static DATABASE: LazyLock<AdaptiveLimit> = LazyLock::new(|| AdaptiveLimit::vegas().named("database"));
///
/// show_limit("users.get", DATABASE.name(), &*DATABASE);
/// show_limit("users.get", DATABASE.name(), &*DATABASE); // no second row
/// ```
pub fn show_limit(
    operation: impl Into<Cow<'static, str>>,
    name: impl Into<Cow<'static, str>>,
    gauge: &'static dyn LimitGauge,
) {
    let (operation, name) = (operation.into(), name.into());
    let mut limits = LIMITS.lock().unwrap_or_else(PoisonError::into_inner);
    let shown = limits.entry(operation).or_default();
    if !shown.iter().any(|limit| limit.name == name) {
        shown.push(Limit { name, gauge });
    }
}

/// The calls `gauge` shed, by priority, highest first: only the
/// priorities it shed any of.
fn shed_of(gauge: &dyn LimitGauge) -> Vec<Value> {
    let counts = gauge.shed();
    crate::limit::Priority::ALL
        .iter()
        .zip(counts)
        .rev()
        .filter(|(_, count)| *count > 0)
        .map(|(priority, count)| json!({ "priority": priority.as_str(), "count": count }))
        .collect()
}

/// The limits shown on the tile of `operation`.
fn limits_of(operation: &str) -> Vec<Value> {
    let limits = LIMITS.lock().unwrap_or_else(PoisonError::into_inner);
    limits
        .get(operation)
        .into_iter()
        .flatten()
        .map(|limit| {
            json!({
                "name": limit.name,
                "in_flight": limit.gauge.in_flight(),
                "limit": limit.gauge.limit(),
                "rejections": limit.gauge.rejections(),
                "shed": shed_of(limit.gauge),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use axum::http::StatusCode;

    use super::*;
    use crate::limit::{AdaptiveLimit, Limiter};

    /// The status and body of a GET of `path` on `app`.
    async fn get(app: Router, path: &str) -> (StatusCode, String) {
        use tower::ServiceExt;
        let request = axum::http::Request::get(path)
            .body(axum::body::Body::empty())
            .unwrap();
        let response = app.oneshot(request).await.unwrap();
        let status = response.status();
        let body = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .unwrap();
        (status, String::from_utf8_lossy(&body).into_owned())
    }

    #[tokio::test]
    async fn mounted_as_documented_the_page_is_served_with_and_without_a_trailing_slash() {
        let mounted = || Router::new().nest_service("/resilience", router());
        for path in ["/resilience", "/resilience/"] {
            let (status, body) = get(mounted(), path).await;
            assert_eq!(status, StatusCode::OK, "GET {path}");
            assert_eq!(body, PAGE, "GET {path}");
        }
        let (status, body) = get(mounted(), "/resilience/snapshot").await;
        assert_eq!(status, StatusCode::OK);
        assert!(body.starts_with('{'), "a snapshot: {body}");
        let (status, _) = get(mounted(), "/resilience/nothing").await;
        assert_eq!(status, StatusCode::NOT_FOUND);
        // From either address, the page asks for its stream under its own.
        assert!(PAGE.contains(
            r#"const base = location.pathname.endsWith("/") ? location.pathname : location.pathname + "/";"#
        ));
        assert!(PAGE.contains(r#"new EventSource(base + "events")"#));
        // Nested as a router, the bare path still serves the page.
        let nested = Router::new().nest("/resilience", router());
        assert_eq!(get(nested, "/resilience").await.0, StatusCode::OK);
    }

    #[test]
    fn a_stream_outlives_the_runtime_whose_task_sampled_for_it() {
        use futures_util::StreamExt;
        // The first page's runtime starts the sampling task, then ends.
        let first = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        let first_receiver = first.block_on(async { SAMPLER.subscribe() });
        let second = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .start_paused(true)
            .build()
            .unwrap();
        // A second page subscribes while that task runs, and the first
        // runtime ends under it.
        let response = second.block_on(async { events().await.into_response() });
        drop(first_receiver);
        drop(first);
        second.block_on(async {
            let mut stream = std::pin::pin!(response.into_body().into_data_stream());
            let mut snapshots = 0;
            let waited = tokio::time::timeout(10 * PERIOD, async {
                while snapshots < 3 {
                    let chunk = stream.next().await.expect("an open stream").unwrap();
                    if chunk.starts_with(b"data:") {
                        snapshots += 1;
                    }
                }
            })
            .await;
            assert!(
                waited.is_ok(),
                "{snapshots} snapshots in 10 periods after the sampling runtime ended"
            );
        });
    }

    #[test]
    fn the_page_says_how_names_are_bounded() {
        assert!(PAGE.contains("resilient::cardinality::set_limit"));
        assert!(PAGE.contains("<code>resilient.overflow</code>"));
        assert!(PAGE.contains("if (snapshot.names) names(snapshot.names);"));
        let names = &SAMPLER.latest_or_now()["names"];
        assert_eq!(names["overflow"], crate::cardinality::OVERFLOW);
        assert_eq!(names["limit"], crate::cardinality::limit());
    }

    #[test]
    fn a_limiter_shown_on_a_tile_reports_its_fill_once() {
        static LIMIT: LazyLock<AdaptiveLimit> =
            LazyLock::new(|| AdaptiveLimit::aimd().initial(4).named("pool"));
        show_limit("dashboard.limited", LIMIT.name(), &*LIMIT);
        show_limit("dashboard.limited", LIMIT.name(), &*LIMIT);
        LIMIT.try_acquire(Instant::now()).unwrap();
        assert_eq!(
            limits_of("dashboard.limited"),
            [json!({ "name": "pool", "in_flight": 1, "limit": 4, "rejections": null, "shed": [] })]
        );
        assert_eq!(limits_of("dashboard.unlimited"), Vec::<Value>::new());
    }

    #[derive(Debug)]
    struct Busy;

    impl std::fmt::Display for Busy {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("busy")
        }
    }

    impl From<crate::LimitExceeded> for Busy {
        fn from(_: crate::LimitExceeded) -> Self {
            Busy
        }
    }

    #[test]
    fn an_operations_limiters_join_its_tile_with_its_own_refusals() {
        static POOL: crate::limit::Bulkhead = crate::limit::Bulkhead::new(1).named("tile.pool");
        static ADAPTIVE: LazyLock<AdaptiveLimit> =
            LazyLock::new(|| AdaptiveLimit::vegas().initial(12).named("tile.adaptive"));
        let limiters: [&dyn Limiter; 2] = [&POOL, &*ADAPTIVE];
        let call = |name: &'static str| {
            crate::Operation::new()
                .name(name)
                .clock(crate::FakeClock::new())
                .limit(&limiters)
                .run(|_| Ok::<_, Busy>(()))
        };
        assert!(call("tile.first").is_ok());
        assert!(call("tile.second").is_ok());
        POOL.try_acquire(Instant::now()).unwrap();
        assert!(!call("tile.first").is_ok());
        let row = |name, in_flight, limit: Option<u64>, rejections| json!({ "name": name, "in_flight": in_flight, "limit": limit, "rejections": rejections, "shed": [] });
        assert_eq!(
            limits_of("tile.first"),
            [
                row("tile.pool", 1, Some(1), 1),
                row("tile.adaptive", 0, Some(12), 0)
            ]
        );
        assert_eq!(
            limits_of("tile.second"),
            [
                row("tile.pool", 1, Some(1), 0),
                row("tile.adaptive", 0, Some(12), 0)
            ],
            "the limiter's level is shared, its refusals are the operation's"
        );
    }

    #[test]
    fn a_limiter_that_sheds_by_priority_shows_whom_it_shed() {
        use crate::limit::{Bulkhead, Priorities, Priority};
        // 10 permits: low fills at most half, medium 70 %, high 90 %.
        static POOL: Bulkhead = Bulkhead::new(10)
            .named("tile.shedding")
            .shed_by_priority(Priorities::new());
        let limiters: [&dyn Limiter; 1] = [&POOL];
        let call = |priority| {
            crate::Operation::new()
                .name("tile.shed")
                .clock(crate::FakeClock::new())
                .limit(&limiters)
                .priority(priority)
                .run(|_| Ok::<_, Busy>(()))
        };
        let held: Vec<_> = (0..8)
            .map(|_| POOL.try_acquire(Instant::now()).unwrap())
            .collect();
        for priority in [
            Priority::Low,
            Priority::VeryLow,
            Priority::Low,
            Priority::Medium,
        ] {
            assert!(!call(priority).is_ok(), "{priority} is shed at 8 of 10");
        }
        assert!(call(Priority::High).is_ok());
        let limits = limits_of("tile.shed");
        assert_eq!(limits[0]["rejections"], 4);
        assert_eq!(
            limits[0]["shed"],
            json!([
                { "priority": "medium", "count": 1 },
                { "priority": "low", "count": 2 },
                { "priority": "very_low", "count": 1 },
            ])
        );
        drop(held);
        assert!(PAGE.contains(r#"row("shed", "shed by " + limit.name)"#));
    }
}

//! Deadlines sent downstream by `ResilientMiddleware::send_deadline`, and
//! the hold sent by `send_hold`: the header each attempt carries, read where the request leaves the chain
//! (a last middleware that answers in place of the network), on tokio's
//! paused clock so that every value is exact. And a breaker per key of the
//! user's (`per_endpoint_by`). The real servers of `call_chain.rs` show the
//! headers on the wire.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use reqwest_middleware::{ClientBuilder, ClientWithMiddleware};
use resilient::deadline::Nested;
use resilient::deadline::header::{DeadlineHeader, HoldHeader};
use resilient::endpoint::EndpointBreakers;
use resilient::reqwest::ResilientMiddleware;
use resilient::{
    Backoff, CircuitBreaker, CircuitOpen, CircuitState, Operation, StopReason, TimedOut, TokioClock,
};
use tokio::time::Instant;

const fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// What the network saw: each request's time since the test started, its
/// path, and its deadline header.
type Seen = Arc<Mutex<Vec<(Duration, String, Option<String>)>>>;

/// The end of the chain: records each request and answers it as its path
/// says (`/hang/..` never, `/sick/..` 503, anything else 200).
struct Network {
    header: &'static str,
    start: Instant,
    seen: Seen,
}

type Handled<'a> = std::pin::Pin<
    Box<
        dyn std::future::Future<Output = reqwest_middleware::Result<reqwest::Response>> + Send + 'a,
    >,
>;

impl reqwest_middleware::Middleware for Network {
    fn handle<'a, 'b, 'c, 'd>(
        &'a self,
        request: reqwest::Request,
        _: &'b mut http::Extensions,
        _: reqwest_middleware::Next<'c>,
    ) -> Handled<'d>
    where
        'a: 'd,
        'b: 'd,
        'c: 'd,
        Self: 'd,
    {
        let path = request.url().path().to_owned();
        let value = request
            .headers()
            .get(self.header)
            .map(|v| v.to_str().unwrap().to_owned());
        self.seen
            .lock()
            .unwrap()
            .push((self.start.elapsed(), path.clone(), value));
        Box::pin(async move {
            let status = if path.starts_with("/hang") {
                std::future::pending().await
            } else if path.starts_with("/sick") {
                503
            } else {
                200
            };
            let response = http::Response::builder().status(status).body("").unwrap();
            Ok(reqwest::Response::from(response))
        })
    }
}

fn client(middleware: ResilientMiddleware, header: &'static str) -> (ClientWithMiddleware, Seen) {
    let seen = Seen::default();
    let network = Network {
        header,
        start: Instant::now(),
        seen: Arc::clone(&seen),
    };
    let client = ClientBuilder::new(reqwest::Client::new())
        .with(middleware)
        .with(network)
        .build();
    (client, seen)
}

fn seen(seen: &Seen) -> Vec<(Duration, Option<String>)> {
    let seen = seen.lock().unwrap();
    seen.iter().map(|(at, _, v)| (*at, v.clone())).collect()
}

#[tokio::test(start_paused = true)]
async fn each_attempt_sends_the_deadline_it_has_left() {
    // Attempt 1 at 0 ms: min(300, 500) = 300. Cut at 300, 50 ms of backoff,
    // attempt 2 at 350: min(300, 150) = 150. Cut at 500: no attempt 3.
    let middleware = ResilientMiddleware::new()
        .retries(5)
        .timeout(ms(300))
        .budget(ms(500))
        .backoff(Backoff::constant(ms(50)))
        .send_deadline(DeadlineHeader::grpc_timeout());
    let (client, log) = client(middleware, "grpc-timeout");
    let error = client.get("http://c.test/hang").send().await.unwrap_err();
    assert!(matches!(&error, reqwest_middleware::Error::Middleware(e) if e.is::<TimedOut>()));
    assert_eq!(
        seen(&log),
        [
            (ms(0), Some("300m".to_owned())),
            (ms(350), Some("150m".to_owned()))
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn a_header_of_the_users_naming_in_milliseconds() {
    let name = http::HeaderName::from_static("x-request-timeout-ms");
    let middleware = ResilientMiddleware::new()
        .retries(1)
        .timeout(ms(1500))
        .send_deadline(DeadlineHeader::millis(name));
    let (client, log) = client(middleware, "x-request-timeout-ms");
    let response = client.get("http://c.test/ok").send().await.unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(seen(&log), [(ms(0), Some("1500".to_owned()))]);
}

#[tokio::test(start_paused = true)]
async fn no_header_without_a_deadline_or_without_the_option() {
    let sending = ResilientMiddleware::new()
        .retries(1)
        .send_deadline(DeadlineHeader::grpc_timeout());
    let (client, log) = client(sending, "grpc-timeout");
    client.get("http://c.test/ok").send().await.unwrap();
    // Off by default: a deadline, and no header.
    let quiet = ResilientMiddleware::new().timeout(ms(300));
    let (quiet, quiet_log) = self::client(quiet, "grpc-timeout");
    quiet.get("http://c.test/ok").send().await.unwrap();
    assert_eq!(seen(&log), [(ms(0), None)]);
    assert_eq!(seen(&quiet_log), [(ms(0), None)]);
}

#[tokio::test(start_paused = true)]
async fn a_request_inside_a_budget_sends_what_the_budget_has_left() {
    let middleware = ResilientMiddleware::new()
        .timeout(Duration::from_secs(10))
        .send_deadline(DeadlineHeader::grpc_timeout());
    let (client, log) = client(middleware, "grpc-timeout");
    // As a server's handler runs under the budget its request carried.
    let result = resilient::deadline::with_budget(&TokioClock, ms(800), async {
        tokio::time::sleep(ms(300)).await;
        client.get("http://c.test/hang").send().await
    })
    .await;
    assert!(result.is_err());
    assert_eq!(seen(&log), [(ms(300), Some("500m".to_owned()))]);
}

#[tokio::test(start_paused = true)]
async fn a_holding_middleware_sends_the_hold_on_every_attempt_its_last_too() {
    let middleware = ResilientMiddleware::new()
        .retries(3)
        .backoff(Backoff::constant(ms(100)))
        .nested(Nested::NoRetry)
        .send_deadline(DeadlineHeader::grpc_timeout())
        .send_hold(HoldHeader::default());
    let (client, log) = client(middleware, HoldHeader::DEFAULT_NAME);
    let response = client.get("http://c.test/sick").send().await.unwrap();
    assert_eq!(response.status(), 503);
    let one = || Some("1".to_owned());
    assert_eq!(
        seen(&log),
        [
            (ms(0), one()),
            (ms(100), one()),
            (ms(200), one()),
            (ms(300), one())
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn no_hold_without_retries_to_hold_or_without_the_option() {
    for middleware in [
        // Retries, but no hold asked for.
        ResilientMiddleware::new().retries(3),
        // The hold asked for, but nothing to retry.
        ResilientMiddleware::new().nested(Nested::NoRetry),
    ] {
        let middleware = middleware
            .backoff(Backoff::constant(ms(100)))
            .send_hold(HoldHeader::default());
        let (client, log) = client(middleware, HoldHeader::DEFAULT_NAME);
        client.get("http://c.test/sick").send().await.unwrap();
        assert!(seen(&log).iter().all(|(_, hold)| hold.is_none()));
    }
    // Off by default: held, and no header.
    let quiet = ResilientMiddleware::new()
        .retries(3)
        .nested(Nested::NoRetry)
        .backoff(Backoff::none());
    let (quiet, quiet_log) = self::client(quiet, HoldHeader::DEFAULT_NAME);
    quiet.get("http://c.test/sick").send().await.unwrap();
    assert_eq!(seen(&quiet_log), [ms(0); 4].map(|at| (at, None)));
}

#[tokio::test(start_paused = true)]
async fn a_request_inside_a_holding_call_carries_the_hold_and_declines_its_retries() {
    // The middleware retries on its own (3 retries, 10 ms apart); inside
    // an attempt of a call that holds the retries below, it makes one
    // attempt, which says so downstream.
    let middleware = ResilientMiddleware::new()
        .retries(3)
        .backoff(Backoff::constant(ms(10)))
        .send_hold(HoldHeader::default());
    let (client, log) = client(middleware, HoldHeader::DEFAULT_NAME);
    let stops = Mutex::new(Vec::new());
    let outer = Operation::new()
        .clock(TokioClock)
        .max_attempts(2)
        .backoff(Backoff::constant(ms(500)))
        .nested(Nested::NoRetry)
        .run_async(async |_| {
            let response = client.get("http://c.test/sick").send().await.unwrap();
            let report = response
                .extensions()
                .get::<resilient::ExecutionReport>()
                .unwrap();
            stops
                .lock()
                .unwrap()
                .push((report.stop_reason(), report.attempt_count()));
            Err::<(), _>(response.status().as_u16())
        })
        .await;
    assert_eq!(outer.into_result(), Err(503));
    let one = || Some("1".to_owned());
    assert_eq!(seen(&log), [(ms(0), one()), (ms(500), one())]);
    assert_eq!(*stops.lock().unwrap(), [(StopReason::LeftToCaller, 1); 2]);
}

#[tokio::test(start_paused = true)]
async fn a_breaker_per_key_of_the_users() {
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
    // One host, two routes: a breaker per route.
    let middleware = ResilientMiddleware::new().per_endpoint_by(
        Arc::clone(&breakers),
        |request: &reqwest::Request| {
            let mut segments = request.url().path_segments().unwrap();
            segments.next().unwrap_or("").to_owned()
        },
    );
    let (client, log) = client(middleware, "grpc-timeout");
    let mut rejected = 0;
    for _ in 0..5 {
        match client.get("http://c.test/sick/1").send().await {
            Ok(response) => assert_eq!(response.status(), 503),
            Err(reqwest_middleware::Error::Middleware(e)) if e.is::<CircuitOpen>() => rejected += 1,
            Err(e) => panic!("{e}"),
        }
        let response = client.get("http://c.test/well/1").send().await.unwrap();
        assert_eq!(response.status(), 200);
    }
    assert_eq!(rejected, 3);
    let paths: Vec<String> = log
        .lock()
        .unwrap()
        .iter()
        .map(|(_, p, _)| p.clone())
        .collect();
    assert_eq!(paths.iter().filter(|p| p.starts_with("/sick")).count(), 2);
    assert_eq!(paths.iter().filter(|p| p.starts_with("/well")).count(), 5);
    assert_eq!(
        breakers.states(),
        [
            ("sick".to_owned(), CircuitState::Open),
            ("well".to_owned(), CircuitState::Closed)
        ]
    );
}

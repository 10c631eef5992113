//! A real server on 127.0.0.1 and a tower client stack (hyper's legacy
//! client behind `ResilientLayer`): 503, then 429 with `Retry-After: 1`,
//! then 200; a 404 is asked for exactly once and returned as it is.

#[path = "../examples/support/scripted_server.rs"]
mod scripted_server;
#[path = "../examples/support/tower_client.rs"]
mod tower_client;
// The tests of `resend` count what it received; they read no hit's time or
// body.
#[path = "support/declined.rs"]
mod declined;
#[allow(dead_code)]
#[path = "support/http_server.rs"]
mod http_server;

use std::time::{Duration, Instant};

use http::StatusCode;
use resilient::{DelaySource, ExecutionReport, StopReason};

/// `(source, duration)` of each wait before an attempt.
fn waits(report: &ExecutionReport) -> Vec<(DelaySource, Duration)> {
    report
        .attempts()
        .iter()
        .filter_map(|a| a.delay_before())
        .map(|d| (d.source(), d.duration()))
        .collect()
}

/// Each attempt's failure as the report tells it; `None` for a success.
fn failures(report: &ExecutionReport) -> Vec<Option<(bool, String)>> {
    report
        .attempts()
        .iter()
        .map(|a| a.error().map(|e| (e.retryable(), e.message().to_owned())))
        .collect()
}

fn statuses(report: &ExecutionReport) -> Vec<Option<u16>> {
    report.attempts().iter().map(|a| a.status()).collect()
}

#[tokio::test]
async fn backoff_then_retry_after_then_success_and_a_404_once() {
    let started = Instant::now();
    let (addr, log) = scripted_server::start().await;
    let client = tower_client::client();

    let flaky = tower_client::get(&client, &format!("http://{addr}/flaky"))
        .await
        .unwrap();

    assert_eq!(flaky.status, StatusCode::OK);
    assert_eq!(flaky.body, "hello from the server");
    assert_eq!(flaky.report.name(), "GET");
    assert_eq!(flaky.report.attempt_count(), 3);
    assert_eq!(flaky.report.stop_reason(), StopReason::Succeeded);
    assert_eq!(
        waits(&flaky.report),
        [
            (DelaySource::Backoff, Duration::from_millis(50)),
            (DelaySource::RetryAfter, Duration::from_secs(1)),
        ]
    );
    assert_eq!(
        failures(&flaky.report),
        [
            Some((true, "HTTP 503 Service Unavailable".to_owned())),
            Some((true, "HTTP 429 Too Many Requests".to_owned())),
            None,
        ]
    );

    // Each attempt's record keeps the status its response carried.
    assert_eq!(statuses(&flaky.report), [Some(503), Some(429), Some(200)]);

    let missing = tower_client::get(&client, &format!("http://{addr}/missing"))
        .await
        .unwrap();

    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    assert_eq!(missing.body, "no such thing");
    assert_eq!(missing.report.attempt_count(), 1);
    assert_eq!(missing.report.stop_reason(), StopReason::NotRetryable);
    assert_eq!(
        failures(&missing.report),
        [Some((false, "HTTP 404 Not Found".to_owned()))]
    );
    assert_eq!(statuses(&missing.report), [Some(404)]);

    let paths: Vec<_> = log.requests().iter().map(|seen| seen.path).collect();
    assert_eq!(paths, ["/flaky", "/flaky", "/flaky", "/missing"]);
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "took {:?}",
        started.elapsed()
    );
}

/// Requests a layer with `HttpClassifier` sends again after a failure
/// that may have reached the server, by the server's count of what it
/// received, through hyper's client: the layer's default rule is the
/// classifier's, which sends a POST or a PATCH once.
mod resend {
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use bytes::Bytes;
    use http::{Method, Request, StatusCode};
    use http_body_util::Empty;
    use hyper_util::client::legacy::Client as Hyper;
    use hyper_util::rt::TokioExecutor;
    use resilient::tower::{EveryRequest, HttpClassifier, ResilientLayer};
    use resilient::{Backoff, ExecutionReport, FailureKind, StopReason, TimedOut};
    use tower::{BoxError, Service, ServiceBuilder, ServiceExt};

    use super::declined::{AFTER_A_500, assert_declined, closed_port};
    use super::http_server;

    type Reports = Arc<Mutex<Vec<ExecutionReport>>>;

    /// Up to three attempts, none waited for, each report kept.
    fn layer(reports: &Reports) -> ResilientLayer<HttpClassifier> {
        let seen = Arc::clone(reports);
        ResilientLayer::new()
            .retries(2)
            .backoff(Backoff::none())
            .classify(HttpClassifier)
            .on_report(move |report: &ExecutionReport| seen.lock().unwrap().push(report.clone()))
    }

    fn hyper() -> Hyper<hyper_util::client::legacy::connect::HttpConnector, Empty<Bytes>> {
        Hyper::builder(TokioExecutor::new()).build_http()
    }

    /// Sends `method` to `url` (with an `Idempotency-Key` if `key`) through
    /// `client`; the status the caller gets.
    async fn send<S, B>(
        client: &S,
        method: Method,
        url: &str,
        key: bool,
    ) -> Result<StatusCode, BoxError>
    where
        S: Service<Request<Empty<Bytes>>, Response = http::Response<B>, Error = BoxError> + Clone,
    {
        let mut request = Request::builder().method(method).uri(url);
        if key {
            request = request.header("idempotency-key", "order-7");
        }
        let response = client.clone().oneshot(request.body(Empty::new())?).await?;
        Ok(response.status())
    }

    /// A POST cut by its timeout may have run: it is sent once, and the
    /// call ends with `TimedOut`; a GET is sent again.
    #[tokio::test]
    async fn a_post_that_timed_out_is_not_sent_again() {
        let (addr, hits) = http_server::start().await;
        let reports = Reports::default();
        let client = ServiceBuilder::new()
            .layer(layer(&reports).timeout(Duration::from_millis(200)))
            .service(hyper());

        let error = send(
            &client,
            Method::POST,
            &format!("http://{addr}/hang-first/post"),
            false,
        )
        .await
        .unwrap_err();
        assert!(error.is::<TimedOut>(), "{error}");
        assert_eq!(hits.count("/hang-first/post"), 1);
        assert_declined(
            &reports.lock().unwrap().pop().unwrap(),
            FailureKind::Timeout,
            "attempt timed out",
        );

        let status = send(
            &client,
            Method::GET,
            &format!("http://{addr}/hang-first/get"),
            false,
        )
        .await
        .unwrap();
        assert_eq!(status, StatusCode::OK);
        assert_eq!(hits.count("/hang-first/get"), 2);
    }

    /// After a `500`, the idempotent methods are sent again, as before;
    /// POST and PATCH are not, and the caller gets the `500`.
    #[tokio::test(start_paused = true)]
    async fn after_a_500_only_idempotent_methods_are_sent_again() {
        let (addr, hits) = http_server::start().await;
        let reports = Reports::default();
        let client = ServiceBuilder::new()
            .layer(layer(&reports))
            .service(hyper());

        for (method, calls) in AFTER_A_500 {
            let path = format!("/status/500/{method}");
            let status = send(&client, method, &format!("http://{addr}{path}"), false)
                .await
                .unwrap();
            assert_eq!(hits.count(&path), calls, "{path}");
            let report = reports.lock().unwrap().pop().unwrap();
            if calls == 1 {
                assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR);
                assert_declined(
                    &report,
                    FailureKind::Operation,
                    "HTTP 500 Internal Server Error",
                );
            } else {
                assert_eq!(status, StatusCode::OK, "{path}");
            }
        }
    }

    /// A `429`, a `408` and a `503` with `Retry-After` say the server did not
    /// process the POST: it is sent again. After a bare `503`, it is not.
    #[tokio::test(start_paused = true)]
    async fn a_post_the_server_did_not_process_is_sent_again() {
        let (addr, hits) = http_server::start().await;
        let client = ServiceBuilder::new()
            .layer(layer(&Reports::default()))
            .service(hyper());

        for (path, status, calls) in [
            ("/after/seconds/post", StatusCode::OK, 2),
            ("/status/429/post", StatusCode::OK, 2),
            ("/status/408/post", StatusCode::OK, 2),
            ("/after/date/post", StatusCode::OK, 2),
            ("/status/503/post", StatusCode::SERVICE_UNAVAILABLE, 1),
        ] {
            let got = send(
                &client,
                Method::POST,
                &format!("http://{addr}{path}"),
                false,
            )
            .await
            .unwrap();
            assert_eq!((got, hits.count(path)), (status, calls), "{path}");
        }
    }

    /// A POST with an `Idempotency-Key`, and any POST once the layer opts
    /// in with `resend_if(EveryRequest)`, is sent again after a `500`.
    #[tokio::test(start_paused = true)]
    async fn a_keyed_post_or_an_opt_in_sends_a_post_again_after_a_500() {
        let (addr, hits) = http_server::start().await;
        let reports = Reports::default();
        let default = ServiceBuilder::new()
            .layer(layer(&reports))
            .service(hyper());
        let every = ServiceBuilder::new()
            .layer(layer(&reports).resend_if(EveryRequest))
            .service(hyper());

        for (client, path, key, calls) in [
            (&default, "/status/500/keyed", true, 2),
            (&default, "/status/500/unkeyed", false, 1),
        ] {
            send(client, Method::POST, &format!("http://{addr}{path}"), key)
                .await
                .unwrap();
            assert_eq!(hits.count(path), calls, "{path}");
        }
        for method in [Method::POST, Method::PATCH] {
            let path = format!("/status/500/every-{method}");
            let status = send(&every, method, &format!("http://{addr}{path}"), false)
                .await
                .unwrap();
            assert_eq!((status, hits.count(&path)), (StatusCode::OK, 2), "{path}");
        }
    }

    /// hyper's own error is opaque to the classifier; boxed, its causes
    /// show a refused connection, which never reached a server: the POST
    /// is tried again, while the same client sends a POST that got a
    /// `500` once.
    #[tokio::test(start_paused = true)]
    async fn a_post_to_a_refused_port_is_sent_again() {
        let refused = closed_port();
        let (addr, hits) = http_server::start().await;
        let reports = Reports::default();
        let client = ServiceBuilder::new()
            .layer(layer(&reports))
            .map_err(BoxError::from)
            .service(hyper());

        send(
            &client,
            Method::POST,
            &format!("http://{refused}/orders"),
            false,
        )
        .await
        .unwrap_err();
        let report = reports.lock().unwrap().pop().unwrap();
        assert_eq!(report.attempt_count(), 3, "{report}");
        assert_eq!(report.stop_reason(), StopReason::AttemptsExhausted);

        let status = send(
            &client,
            Method::POST,
            &format!("http://{addr}/status/500/refused"),
            false,
        )
        .await
        .unwrap();
        assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR);
        assert_eq!(hits.count("/status/500/refused"), 1);
    }
}

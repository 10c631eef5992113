//! The tower client under test: hyper's legacy client behind one
//! `ResilientLayer`, with the HTTP classifier and the report in each
//! response's extensions.

use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use hyper_util::client::legacy::Client as Hyper;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use resilient::tower::{HttpClassifier, ReportExtension, Resilient, ResilientLayer};
use resilient::{Backoff, ExecutionReport, Jitter, TokioClock};
use tower::{BoxError, ServiceBuilder};

/// The whole stack, named so that callers can keep it.
pub type Client =
    Resilient<Hyper<HttpConnector, Empty<Bytes>>, HttpClassifier, TokioClock, ReportExtension>;

/// Up to four attempts on a 50 ms exponential backoff, each cut at 2 s,
/// and the server's `Retry-After` honoured without spending one.
pub fn client() -> Client {
    let hyper = Hyper::builder(TokioExecutor::new()).build_http();
    let layer = ResilientLayer::new()
        .name("GET")
        .retries(3)
        .backoff(
            Backoff::exponential(Duration::from_millis(50), Duration::from_secs(1))
                .jitter(Jitter::None),
        )
        .timeout(Duration::from_secs(2))
        .classify(HttpClassifier)
        .attach_report(ReportExtension);
    ServiceBuilder::new().layer(layer).service(hyper)
}

/// What one GET brought back: the status, the body and the report.
pub struct Answer {
    pub status: http::StatusCode,
    pub body: String,
    pub report: ExecutionReport,
}

/// GETs `uri` through `client`.
pub async fn get(client: &Client, uri: &str) -> Result<Answer, BoxError> {
    let request = http::Request::get(uri).body(Empty::new())?;
    let response = client.clone().oneshot(request).await?;
    let report = response
        .extensions()
        .get::<ExecutionReport>()
        .cloned()
        .ok_or("the layer attaches a report to every response")?;
    let status = response.status();
    let body = response.into_body().collect().await?.to_bytes();
    Ok(Answer {
        status,
        body: String::from_utf8_lossy(&body).into_owned(),
        report,
    })
}

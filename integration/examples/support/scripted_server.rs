//! A real HTTP server on 127.0.0.1 that answers from a script, for the
//! HTTP round-trip test and example.
//!
//! `/flaky` answers 503, then 429 with `Retry-After: 1`, then 200. `/missing`
//! always answers 404. The server records every request's path and
//! `X-Retry-Count` header.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header::RETRY_AFTER};
use axum::response::IntoResponse;
use axum::routing::get;

/// One request as the server saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seen {
    pub path: &'static str,
    pub retry_count: Option<String>,
}

/// Requests received so far, shared with the handlers.
#[derive(Clone, Default)]
pub struct Log(Arc<Mutex<Vec<Seen>>>);

impl Log {
    pub fn requests(&self) -> Vec<Seen> {
        self.0.lock().unwrap().clone()
    }

    /// Records a request; returns how many came before it on `path`.
    fn record(&self, path: &'static str, headers: &HeaderMap) -> usize {
        let retry_count = headers
            .get("x-retry-count")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let mut log = self.0.lock().unwrap();
        let earlier = log.iter().filter(|s| s.path == path).count();
        log.push(Seen { path, retry_count });
        earlier
    }
}

async fn flaky(State(log): State<Log>, headers: HeaderMap) -> impl IntoResponse {
    match log.record("/flaky", &headers) {
        0 => (StatusCode::SERVICE_UNAVAILABLE, "busy").into_response(),
        1 => (
            StatusCode::TOO_MANY_REQUESTS,
            [(RETRY_AFTER, "1")],
            "slow down",
        )
            .into_response(),
        _ => (StatusCode::OK, "hello from the server").into_response(),
    }
}

async fn missing(State(log): State<Log>, headers: HeaderMap) -> impl IntoResponse {
    log.record("/missing", &headers);
    (StatusCode::NOT_FOUND, "no such thing")
}

/// Starts the server on an ephemeral port of 127.0.0.1; it runs until the
/// runtime stops.
pub async fn start() -> (SocketAddr, Log) {
    let log = Log::default();
    let app = Router::new()
        .route("/flaky", get(flaky))
        .route("/missing", get(missing))
        .with_state(log.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind 127.0.0.1:0");
    let addr = listener.local_addr().expect("local address");
    tokio::spawn(async move { axum::serve(listener, app).await });
    (addr, log)
}

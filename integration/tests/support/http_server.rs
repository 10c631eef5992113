//! A real HTTP server on 127.0.0.1 for the reqwest tests: each path is
//! its own script, and the server records every request it receives.
//!
//! * `/status/{code}/{id}`: `code` the first time, then 200;
//! * `/after/seconds/{id}`: 429 with `Retry-After: 1` the first time, then 200;
//! * `/after/date/{id}`: 503 with `Retry-After` an HTTP-date 2 s ahead
//!   (to the second) the first time, then 200;
//! * `/hang/{id}`: never answers;
//! * `/hang-first/{id}`: never answers the first time, then 200 at once;
//! * `/down/{id}`: always 503;
//! * `/upload/{id}`: always 503, after reading the whole body;
//! * `/slow/{id}`: after 200 ms, 503 the first time, then 200 with the
//!   number of requests before it (`ok 1`, `ok 2`, …).

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{StatusCode, Uri, header::RETRY_AFTER};
use axum::response::{IntoResponse, Response};

/// One request as the server saw it.
#[derive(Debug, Clone)]
pub struct Hit {
    pub at: SystemTime,
    pub body: Bytes,
}

/// Requests received so far, by path.
#[derive(Clone, Default)]
pub struct Hits(Arc<Mutex<HashMap<String, Vec<Hit>>>>);

impl Hits {
    /// The requests `path` received.
    pub fn of(&self, path: &str) -> Vec<Hit> {
        self.0
            .lock()
            .unwrap()
            .get(path)
            .cloned()
            .unwrap_or_default()
    }

    /// How many requests `path` received.
    pub fn count(&self, path: &str) -> usize {
        self.of(path).len()
    }

    /// Records a request; returns how many came before it on its path.
    fn record(&self, path: &str, body: Bytes) -> usize {
        let mut hits = self.0.lock().unwrap();
        let seen = hits.entry(path.to_owned()).or_default();
        seen.push(Hit {
            at: SystemTime::now(),
            body,
        });
        seen.len() - 1
    }
}

async fn answer(State(hits): State<Hits>, uri: Uri, body: Bytes) -> Response {
    let path = uri.path();
    let earlier = hits.record(path, body);
    let parts: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    match (parts.as_slice(), earlier) {
        (["status", code, _], 0) => StatusCode::from_u16(code.parse().unwrap())
            .unwrap()
            .into_response(),
        (["after", "seconds", _], 0) => {
            (StatusCode::TOO_MANY_REQUESTS, [(RETRY_AFTER, "1")]).into_response()
        }
        (["after", "date", _], 0) => {
            let date = whole_seconds_from_now(2);
            let value = httpdate::fmt_http_date(date);
            (StatusCode::SERVICE_UNAVAILABLE, [(RETRY_AFTER, value)]).into_response()
        }
        (["hang", _], _) | (["hang-first", _], 0) => std::future::pending().await,
        (["down", _] | ["upload", _], _) => StatusCode::SERVICE_UNAVAILABLE.into_response(),
        (["slow", _], earlier) => {
            tokio::time::sleep(Duration::from_millis(200)).await;
            if earlier == 0 {
                StatusCode::SERVICE_UNAVAILABLE.into_response()
            } else {
                (StatusCode::OK, format!("ok {earlier}")).into_response()
            }
        }
        _ => (StatusCode::OK, "ok").into_response(),
    }
}

/// `now + secs`, cut to the second, as an HTTP-date carries it.
pub fn whole_seconds_from_now(secs: u64) -> SystemTime {
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
    UNIX_EPOCH + Duration::from_secs(now.as_secs() + secs)
}

/// Starts the server on an ephemeral port of 127.0.0.1; it runs until the
/// runtime stops.
pub async fn start() -> (SocketAddr, Hits) {
    let hits = Hits::default();
    let app = Router::new().fallback(answer).with_state(hits.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind 127.0.0.1:0");
    let addr = listener.local_addr().expect("local address");
    tokio::spawn(async move { axum::serve(listener, app).await });
    (addr, hits)
}

//! A streamed body sent again (`ResilientMiddleware::replay_buffer`),
//! checked byte for byte against a real server on 127.0.0.1 that records
//! each request's body. Real time: the server is real, the waits short.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::Request;
use axum::http::StatusCode;
use bytes::Bytes;
use futures_util::stream;
use reqwest_middleware::{ClientBuilder, ClientWithMiddleware};
use resilient::reqwest::ResilientMiddleware;
use resilient::{Backoff, ExecutionReport, StopReason};
use tokio::sync::{Notify, mpsc};

/// What the server does with request number `n` (from 0).
#[derive(Clone, Copy)]
enum Answer {
    /// Reads the body, records it, answers 503.
    ReadThen503,
    /// Answers 503 at once, reading nothing.
    At503Unread,
    /// Reads the body, records it, answers 200.
    ReadThen200,
}

/// The bodies the server read, in order, and a signal at each request.
#[derive(Clone, Default)]
struct Seen {
    bodies: Arc<Mutex<Vec<Vec<u8>>>>,
    arrived: Arc<Notify>,
}

async fn server(answers: Vec<Answer>) -> (SocketAddr, Seen) {
    let seen = Seen::default();
    let count = Arc::new(Mutex::new(0usize));
    let kept = seen.clone();
    let app = Router::new().fallback(move |request: Request| {
        let (seen, count) = (kept.clone(), Arc::clone(&count));
        async move {
            let n = {
                let mut count = count.lock().unwrap();
                *count += 1;
                *count - 1
            };
            seen.arrived.notify_one();
            let answer = answers.get(n).copied().unwrap_or(Answer::ReadThen200);
            if let Answer::At503Unread = answer {
                return StatusCode::SERVICE_UNAVAILABLE;
            }
            let body = axum::body::to_bytes(request.into_body(), usize::MAX)
                .await
                .unwrap_or_default();
            seen.bodies.lock().unwrap().push(body.to_vec());
            match answer {
                Answer::ReadThen200 => StatusCode::OK,
                _ => StatusCode::SERVICE_UNAVAILABLE,
            }
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (addr, seen)
}

fn client(buffer: usize) -> ClientWithMiddleware {
    ClientBuilder::new(reqwest::Client::new())
        .with(
            ResilientMiddleware::new()
                .retries(2)
                .backoff(Backoff::none())
                .budget(Duration::from_secs(5))
                .replay_buffer(buffer),
        )
        .build()
}

/// A body of `chunks`, streamed: one that `try_clone` can't copy.
fn streamed(chunks: &[&'static str]) -> reqwest::Body {
    let chunks: Vec<Result<Bytes, Infallible>> = chunks
        .iter()
        .map(|chunk| Ok(Bytes::from_static(chunk.as_bytes())))
        .collect();
    reqwest::Body::wrap_stream(stream::iter(chunks))
}

#[tokio::test]
async fn a_streamed_body_within_the_buffer_is_sent_again_byte_for_byte() {
    let (addr, seen) = server(vec![Answer::ReadThen503, Answer::ReadThen503]).await;
    let chunks = ["first chunk, ", "second chunk, ", "and the last"];
    let response = client(1024)
        // A PUT: after a 503 the server may have run it, and a PUT may run twice.
        .put(format!("http://{addr}/upload"))
        .body(streamed(&chunks))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let report = response.extensions().get::<ExecutionReport>().unwrap();
    assert_eq!(report.attempt_count(), 3);
    let whole = chunks.concat().into_bytes();
    assert_eq!(
        *seen.bodies.lock().unwrap(),
        vec![whole.clone(), whole.clone(), whole],
        "each attempt sent the same bytes"
    );
}

#[tokio::test]
async fn a_body_the_server_did_not_read_is_sent_whole_the_next_time() {
    let (addr, seen) = server(vec![Answer::At503Unread]).await;
    let (chunks, receiver) = mpsc::channel::<Bytes>(4);
    let body = stream::unfold(receiver, |mut receiver| async move {
        let chunk = receiver.recv().await?;
        Some((Ok::<_, Infallible>(chunk), receiver))
    });
    chunks.send(Bytes::from_static(b"head;")).await.unwrap();
    let request = client(1024)
        .put(format!("http://{addr}/upload"))
        .body(reqwest::Body::wrap_stream(body))
        .send();
    let feed = async {
        // The first attempt is answered before the rest of the body
        // exists; the second sends what was kept, then the rest.
        tokio::time::timeout(Duration::from_secs(5), seen.arrived.notified())
            .await
            .unwrap();
        tokio::time::timeout(Duration::from_secs(5), seen.arrived.notified())
            .await
            .unwrap();
        chunks.send(Bytes::from_static(b"tail")).await.unwrap();
        drop(chunks);
    };
    let (response, ()) = tokio::join!(request, feed);
    let response = response.unwrap();
    assert_eq!(response.status(), 200);
    let report = response.extensions().get::<ExecutionReport>().unwrap();
    assert_eq!(report.attempt_count(), 2);
    assert_eq!(*seen.bodies.lock().unwrap(), vec![b"head;tail".to_vec()]);
}

#[tokio::test]
async fn a_body_past_the_buffer_is_committed_sent_once_and_the_report_says_why() {
    let (addr, seen) = server(vec![Answer::ReadThen503]).await;
    let chunks = ["0123456789", "abcdefghij", "KLMNOPQRST"];
    let response = client(16)
        .put(format!("http://{addr}/upload"))
        .body(streamed(&chunks))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 503, "the caller gets the response");
    let report = response.extensions().get::<ExecutionReport>().unwrap();
    assert_eq!(report.attempt_count(), 1);
    assert_eq!(
        report.attempts()[0].error().unwrap().message(),
        "HTTP 503 Service Unavailable \
         (not retried: the request is committed, its streamed body past the replay buffer)"
    );
    assert_eq!(report.stop_reason(), StopReason::NotRetryable);
    assert_eq!(
        *seen.bodies.lock().unwrap(),
        vec![chunks.concat().into_bytes()],
        "sent once, whole"
    );
}

#[tokio::test]
async fn a_body_that_fits_exactly_is_replayed_and_one_byte_more_is_not() {
    for (buffer, attempts) in [(20, 2), (19, 1)] {
        let (addr, seen) = server(vec![Answer::ReadThen503]).await;
        let chunks = ["0123456789", "abcdefghij"];
        let response = client(buffer)
            .put(format!("http://{addr}/upload"))
            .body(streamed(&chunks))
            .send()
            .await
            .unwrap();
        let report = response.extensions().get::<ExecutionReport>().unwrap();
        assert_eq!(report.attempt_count(), attempts, "buffer of {buffer}");
        assert_eq!(seen.bodies.lock().unwrap().len(), attempts as usize);
    }
}

#[tokio::test]
async fn without_a_buffer_a_streamed_body_is_sent_once() {
    let (addr, seen) = server(vec![Answer::ReadThen503]).await;
    let client = ClientBuilder::new(reqwest::Client::new())
        .with(
            ResilientMiddleware::new()
                .retries(2)
                .backoff(Backoff::none()),
        )
        .build();
    let response = client
        .put(format!("http://{addr}/upload"))
        .body(streamed(&["only once"]))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 503);
    assert_eq!(seen.bodies.lock().unwrap().len(), 1);
}

//! Replicas through the reqwest middleware: three real servers on
//! 127.0.0.1, one hanging and one answering 503. Every call succeeds
//! within its budget, no attempt goes back to the replica that just
//! failed, the 503 replica is ejected and comes back after its ejection
//! time, and with two of three bad no more than `max_ejection_percent` of
//! the set is ejected. Real time: the servers are real, the waits short.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use axum::Router;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use reqwest_middleware::{ClientBuilder, ClientWithMiddleware};
use resilient::endpoint::{OutlierDetection, Replicas};
use resilient::reqwest::ResilientMiddleware;
use resilient::{Backoff, ExecutionReport};

#[derive(Clone, Copy)]
enum Behaviour {
    Hang,
    Unavailable,
    Healthy,
}

/// A server that behaves so on every path, counting its requests.
async fn replica(behaviour: Behaviour) -> (SocketAddr, Arc<AtomicU32>) {
    let hits = Arc::new(AtomicU32::new(0));
    let counted = Arc::clone(&hits);
    let app = Router::new().fallback(move || {
        counted.fetch_add(1, Ordering::Relaxed);
        async move {
            match behaviour {
                Behaviour::Hang => std::future::pending().await,
                Behaviour::Unavailable => StatusCode::SERVICE_UNAVAILABLE.into_response(),
                Behaviour::Healthy => (StatusCode::OK, "ok").into_response(),
            }
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (addr, hits)
}

fn endpoints(report: &ExecutionReport) -> Vec<String> {
    report
        .attempts()
        .iter()
        .map(|attempt| attempt.endpoint().unwrap_or("?").to_owned())
        .collect()
}

/// A client whose calls go to `replicas`, each ejected after one failure
/// for 400 ms, half of them at most; and its detection.
fn client_of(replicas: &[SocketAddr]) -> (ClientWithMiddleware, OutlierDetection) {
    let detection = OutlierDetection::new()
        .consecutive_5xx(1)
        .base_ejection_time(Duration::from_millis(400))
        // Every ejection lasts the base: the n-th would last n times it.
        .max_ejection_time(Duration::from_millis(400))
        .max_ejection_percent(50);
    let urls = replicas.iter().map(|addr| format!("http://{addr}"));
    let client = ClientBuilder::new(reqwest::Client::new())
        .with(
            ResilientMiddleware::new()
                .retries(2)
                .backoff(Backoff::none())
                .timeout(Duration::from_millis(100))
                .budget(Duration::from_secs(2))
                .replicas(Replicas::fixed(urls))
                .outlier_detection(detection.clone()),
        )
        .build();
    (client, detection)
}

#[tokio::test]
async fn calls_go_around_a_hanging_and_a_failing_replica() {
    let (hanging, _) = replica(Behaviour::Hang).await;
    let (failing, failing_hits) = replica(Behaviour::Unavailable).await;
    let (healthy, healthy_hits) = replica(Behaviour::Healthy).await;
    let (client, detection) = client_of(&[hanging, failing, healthy]);

    let mut ejected_at_once = 0;
    for _ in 0..9 {
        // The request names none of the replicas: the middleware sends it.
        let response = client
            .get("http://service.invalid/users/7")
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "every call succeeds");
        let report = response.extensions().get::<ExecutionReport>().unwrap();
        assert!(
            report.elapsed() < Duration::from_secs(2),
            "within its budget"
        );
        let went = endpoints(report);
        for pair in went.windows(2) {
            assert_ne!(
                pair[0], pair[1],
                "no attempt goes back to the replica that just failed: {went:?}"
            );
        }
        assert_eq!(went.last().unwrap(), &healthy.to_string());
        ejected_at_once = ejected_at_once.max(detection.ejected().len());
    }
    // Two of three are bad; 50 % of three is one.
    assert_eq!(ejected_at_once, 1, "no more than max_ejection_percent");
    assert!(healthy_hits.load(Ordering::Relaxed) >= 9);

    // A hanging replica is ejected too, its attempts cut at their
    // deadline; with two of three bad, one of them is out at a time.
    assert_eq!(detection.ejected().len(), 1);

    // The 503 replica, once ejected, takes nothing until its time is up:
    // here beside the healthy one alone, so that the hanging one holds no
    // ejection.
    let (client, detection) = client_of(&[failing, healthy]);
    let failing_url = format!("http://{failing}");
    let before = failing_hits.load(Ordering::Relaxed);
    let mut calls = 0;
    while !detection.ejected().contains(&failing_url) {
        client.get("http://service.invalid/").send().await.unwrap();
        calls += 1;
        assert!(calls < 10, "the 503 replica is ejected");
    }
    let ejected_hits = failing_hits.load(Ordering::Relaxed);
    assert!(ejected_hits > before);
    for _ in 0..3 {
        client.get("http://service.invalid/").send().await.unwrap();
    }
    assert_eq!(
        failing_hits.load(Ordering::Relaxed),
        ejected_hits,
        "ejected: no request"
    );
    tokio::time::sleep(Duration::from_millis(450)).await;
    assert!(
        !detection.ejected().contains(&failing_url),
        "back after its ejection time"
    );
    for _ in 0..3 {
        client.get("http://service.invalid/").send().await.unwrap();
    }
    assert!(
        failing_hits.load(Ordering::Relaxed) > ejected_hits,
        "it takes requests again"
    );
}

/// The tower layer routes the same way, pointing each `http::Request` at
/// its replica with `resilient::http::to_replica`; a service of another
/// request type than the function takes fails each call, sending nothing.
#[tokio::test]
async fn the_tower_layer_goes_around_a_hanging_and_a_failing_replica() {
    use bytes::Bytes;
    use http_body_util::Empty;
    use hyper_util::client::legacy::Client;
    use hyper_util::rt::TokioExecutor;
    use resilient::tower::{
        EveryRequest, HttpClassifier, OtherRequestType, ReportExtension, ResilientLayer,
    };
    use tower::Layer;

    let (hanging, _) = replica(Behaviour::Hang).await;
    let (failing, failing_hits) = replica(Behaviour::Unavailable).await;
    let (healthy, _) = replica(Behaviour::Healthy).await;
    let detection = OutlierDetection::new()
        .consecutive_5xx(1)
        .base_ejection_time(Duration::from_secs(60))
        .max_ejection_percent(67);
    let urls = [hanging, failing, healthy].map(|addr| format!("http://{addr}"));
    let layer = ResilientLayer::new()
        .retries(2)
        .backoff(Backoff::none())
        .timeout(Duration::from_millis(100))
        .budget(Duration::from_secs(2))
        .classify(HttpClassifier)
        .attach_report(ReportExtension)
        .outlier_detection(detection.clone())
        .replicas(
            Replicas::fixed(urls),
            resilient::http::to_replica::<Empty<Bytes>>,
        );
    let hyper = Client::builder(TokioExecutor::new()).build_http::<Empty<Bytes>>();
    let client = layer.clone().layer(hyper);

    for _ in 0..6 {
        let request = http::Request::get("http://service.invalid/users/7")
            .body(Empty::new())
            .unwrap();
        let response = client.clone().oneshot(request).await.unwrap();
        assert_eq!(response.status(), 200, "every call succeeds");
        let went = endpoints(response.extensions().get::<ExecutionReport>().unwrap());
        for pair in went.windows(2) {
            assert_ne!(
                pair[0], pair[1],
                "never back to the replica that just failed: {went:?}"
            );
        }
        assert_eq!(went.last().unwrap(), &healthy.to_string());
    }
    let mut bad = vec![format!("http://{hanging}"), format!("http://{failing}")];
    bad.sort();
    assert_eq!(
        detection.ejected(),
        bad,
        "the hanging and the failing replica"
    );
    let hits = failing_hits.load(Ordering::Relaxed);
    assert!(hits >= 1);

    // A service of `String`s behind a layer whose function takes
    // `http::Request`s: each call fails, and nothing is sent.
    let sent = Arc::new(AtomicU32::new(0));
    let counted = Arc::clone(&sent);
    let strings = layer
        .resend_if(EveryRequest)
        .layer(tower::service_fn(move |_: String| {
            counted.fetch_add(1, Ordering::Relaxed);
            async { Ok::<_, std::convert::Infallible>(http::Response::new(())) }
        }));
    let error = strings.oneshot("GET /".to_owned()).await.unwrap_err();
    assert!(error.is::<OtherRequestType>(), "{error}");
    assert_eq!(sent.load(Ordering::Relaxed), 0);
}

//! State per endpoint, through the reqwest middleware: two real
//! instances of one service on 127.0.0.1, one failing. Only the failing
//! one's breaker opens and only its retry throttle drains, and traffic
//! (and retries) keep flowing to the other; one hanging instance fills
//! only its own bulkhead, and a request dropped while it waits gives its
//! permit back.

#[allow(dead_code)]
#[path = "support/http_server.rs"]
mod http_server;

use std::sync::Arc;
use std::time::Duration;

use reqwest_middleware::ClientBuilder;
use resilient::endpoint::{EndpointBreakers, EndpointLimits, EndpointThrottles};
use resilient::limit::Bulkhead;
use resilient::reqwest::ResilientMiddleware;
use resilient::{Backoff, CircuitBreaker, CircuitState, RetryThrottle};

#[tokio::test(start_paused = true)]
async fn one_sick_instance_opens_only_its_own_breaker() {
    let (sick, sick_hits) = http_server::start().await;
    let (well, well_hits) = http_server::start().await;
    let breakers = Arc::new(
        EndpointBreakers::builder("c")
            .template(
                CircuitBreaker::builder()
                    .failure_threshold(3)
                    .break_duration(Duration::from_secs(60)),
            )
            .build()
            .unwrap(),
    );
    let client = ClientBuilder::new(reqwest::Client::new())
        .with(ResilientMiddleware::new().per_endpoint(Arc::clone(&breakers)))
        .build();

    let mut rejected = 0;
    for _ in 0..20 {
        // Round robin over the two instances, as a load balancer would.
        match client.get(format!("http://{sick}/down/c")).send().await {
            Ok(response) => assert_eq!(response.status(), 503),
            Err(_) => rejected += 1,
        }
        let response = client.get(format!("http://{well}/c")).send().await.unwrap();
        assert_eq!(response.status(), 200);
    }

    // The sick instance saw 3 requests, then its breaker opened.
    assert_eq!(sick_hits.count("/down/c"), 3);
    assert_eq!(rejected, 17);
    // The other saw every one of its 20.
    assert_eq!(well_hits.count("/c"), 20);
    let mut expected = vec![
        (format!("127.0.0.1:{}", sick.port()), CircuitState::Open),
        (format!("127.0.0.1:{}", well.port()), CircuitState::Closed),
    ];
    expected.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(breakers.states(), expected);
}

#[tokio::test(start_paused = true)]
async fn one_sick_instance_drains_only_its_own_retry_throttle() {
    let (sick, sick_hits) = http_server::start().await;
    let (well, well_hits) = http_server::start().await;
    // Retries while more than 2 of 4 tokens are left.
    let throttles = Arc::new(
        EndpointThrottles::builder("c")
            .template(RetryThrottle::new(4, 1.0))
            .build()
            .unwrap(),
    );
    let client = ClientBuilder::new(reqwest::Client::new())
        .with(
            ResilientMiddleware::new()
                .retries(3)
                .backoff(Backoff::none())
                .per_endpoint_throttle(Arc::clone(&throttles)),
        )
        .build();

    for call in 0..3 {
        let response = client
            .get(format!("http://{sick}/down/t"))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 503);
        // A 503 the first time: the well instance keeps its retry.
        let path = format!("/status/503/t{call}");
        let response = client
            .get(format!("http://{well}{path}"))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        assert_eq!(well_hits.count(&path), 2);
    }
    // The sick instance: 2 attempts (4 -> 3 -> 2 tokens), then 1 a call.
    assert_eq!(sick_hits.count("/down/t"), 4);
    let mut expected = vec![
        (format!("127.0.0.1:{}", sick.port()), 0.0),
        (format!("127.0.0.1:{}", well.port()), 4.0),
    ];
    expected.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(throttles.tokens(), expected);
}

#[tokio::test(start_paused = true)]
async fn one_hanging_instance_fills_only_its_own_bulkhead() {
    let (hanging, hanging_hits) = http_server::start().await;
    let (well, well_hits) = http_server::start().await;
    let limits = Arc::new(
        EndpointLimits::builder("c")
            .limit(|| Bulkhead::new(1).named("c.instance"))
            .build()
            .unwrap(),
    );
    let client = ClientBuilder::new(reqwest::Client::new())
        .with(ResilientMiddleware::new().per_endpoint_limits(Arc::clone(&limits)))
        .build();
    let hanging_key = format!("127.0.0.1:{}", hanging.port());

    // A request to the hanging instance takes its one permit, and waits.
    let stuck = tokio::spawn({
        let client = client.clone();
        async move { client.get(format!("http://{hanging}/hang/b")).send().await }
    });
    while hanging_hits.count("/hang/b") == 0 {
        tokio::task::yield_now().await;
    }
    assert_eq!(limits.get(&hanging_key)[0].in_flight(), Some(1));

    // The next one to it is refused without being sent...
    let refused = client.get(format!("http://{hanging}/hang/c")).send().await;
    assert!(refused.unwrap_err().to_string().contains("c.instance"));
    assert_eq!(hanging_hits.count("/hang/c"), 0);
    // ...and the other instance's requests flow.
    for _ in 0..3 {
        let response = client.get(format!("http://{well}/b")).send().await.unwrap();
        assert_eq!(response.status(), 200);
    }
    assert_eq!(well_hits.count("/b"), 3);

    // The caller gives up on the stuck request: its permit comes back.
    stuck.abort();
    assert!(stuck.await.unwrap_err().is_cancelled());
    assert_eq!(limits.get(&hanging_key)[0].in_flight(), Some(0));
}

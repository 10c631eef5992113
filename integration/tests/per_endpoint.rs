//! A breaker per endpoint, through the reqwest middleware: two real
//! instances of one service on 127.0.0.1, one failing. Only the failing
//! one's breaker opens, and traffic keeps flowing to the other.

#[allow(dead_code)]
#[path = "support/http_server.rs"]
mod http_server;

use std::sync::Arc;
use std::time::Duration;

use reqwest_middleware::ClientBuilder;
use resilient::endpoint::EndpointBreakers;
use resilient::reqwest::ResilientMiddleware;
use resilient::{CircuitBreaker, CircuitState};

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

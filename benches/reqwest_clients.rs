// The server and the clients `reqwest.rs` measures and `profile.rs` runs
// under callgrind, written once so that the two measure the same chains.
// Each binary `include!`s this file, as it does `scenarios.rs`.

/// An axum server on 127.0.0.1 answering `ok` to `GET /`, spawned on the
/// current runtime; its URL.
async fn local_server() -> String {
    let app = axum::Router::new().route("/", axum::routing::get(|| async { "ok" }));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{addr}/")
}

/// The chains compared, each with its own `reqwest::Client`: none, the
/// middleware, reqwest-retry's; both allowed three retries.
struct Chains {
    empty: reqwest_middleware::ClientWithMiddleware,
    resilient: reqwest_middleware::ClientWithMiddleware,
    reqwest_retry: reqwest_middleware::ClientWithMiddleware,
}

impl Chains {
    fn new() -> Self {
        let builder = || reqwest_middleware::ClientBuilder::new(reqwest::Client::new());
        let policy = reqwest_retry::policies::ExponentialBackoff::builder().build_with_max_retries(3);
        Chains {
            empty: builder().build(),
            resilient: builder()
                .with(resilient::reqwest::ResilientMiddleware::new().retries(3))
                .build(),
            reqwest_retry: builder()
                .with(reqwest_retry::RetryTransientMiddleware::new_with_policy(policy))
                .build(),
        }
    }
}

/// One successful GET through `client`: its status.
async fn get(client: &reqwest_middleware::ClientWithMiddleware, url: &str) -> reqwest::StatusCode {
    let response = client.get(black_box(url)).send().await.unwrap();
    assert!(response.status().is_success());
    response.status()
}

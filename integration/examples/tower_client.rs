//! A real HTTP round trip through a tower stack: a local server answers
//! 503, then 429 with `Retry-After: 1`, then 200; hyper's client behind
//! `ResilientLayer` retries it, and each response carries its report.
//!
//! Run with `cargo run -p resilient-integration --example tower_client`.

#[path = "support/scripted_server.rs"]
mod scripted_server;
#[path = "support/tower_client.rs"]
mod tower_client;

#[tokio::main]
async fn main() -> Result<(), tower::BoxError> {
    let (addr, log) = scripted_server::start().await;
    let client = tower_client::client();

    for path in ["/flaky", "/missing"] {
        let answer = tower_client::get(&client, &format!("http://{addr}{path}")).await?;
        println!("GET {path} -> {} {:?}", answer.status, answer.body);
        println!("{}\n", answer.report);
    }

    println!("the server saw {} request(s):", log.requests().len());
    for seen in log.requests() {
        println!("  {}", seen.path);
    }
    Ok(())
}

//! A real HTTP round trip: a local server answers 503, then 429 with
//! `Retry-After: 1`, then 200; the client retries with one attribute.
//!
//! Run with `cargo run -p resilient-integration --example http_client`.

#[path = "support/client.rs"]
mod client;
#[path = "support/scripted_server.rs"]
mod scripted_server;

#[tokio::main]
async fn main() {
    let (addr, log) = scripted_server::start().await;
    let http = reqwest::Client::new();

    let outcome = client::fetch(&http, &format!("http://{addr}/flaky")).await;
    match outcome.result() {
        Ok(body) => println!("GET /flaky -> {body:?}"),
        Err(error) => println!("GET /flaky failed: {error}"),
    }
    println!("{}\n", outcome.report());

    let outcome = client::fetch(&http, &format!("http://{addr}/missing")).await;
    match outcome.result() {
        Ok(body) => println!("GET /missing -> {body:?}"),
        Err(error) => println!("GET /missing failed: {error}"),
    }
    println!("{}\n", outcome.report());

    println!("the server saw {} request(s):", log.requests().len());
    for seen in log.requests() {
        println!("  {} X-Retry-Count: {:?}", seen.path, seen.retry_count);
    }
}

//! One process of a fleet sharing a rate limit through Redis; the fleet
//! test (`tests/limit_redis.rs`) starts four of them at once.
//!
//! ```text
//! limit_child <redis-url> <name> <per-second> <burst> <run-ms>
//! ```
//!
//! For `run-ms` milliseconds it takes cells of the `RedisRateLimiter`
//! called `name` as fast as the limiter lets it, through the engine: each
//! attempt of an `Operation` with `limit` and `limit_wait`. It prints one
//! line per call admitted, the microseconds since the Unix epoch when its
//! attempt ran, then `done`.

use std::process::ExitCode;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use resilient::limit::{Limiter, RateLimiter, RedisRateLimiter};
use resilient::{LimitExceeded, Operation, StopReason};

#[derive(Debug)]
struct Refused;

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("refused")
    }
}

impl From<LimitExceeded> for Refused {
    fn from(_: LimitExceeded) -> Self {
        Refused
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [url, name, rate, burst, run_ms] = args.as_slice() else {
        eprintln!("usage: limit_child <redis-url> <name> <per-second> <burst> <run-ms>");
        return ExitCode::FAILURE;
    };
    let name: &'static str = Box::leak(name.clone().into_boxed_str());
    let limit = RateLimiter::per_second(rate.parse().expect("a rate"))
        .burst(burst.parse().expect("a burst"))
        .named(name);
    let limiter = RedisRateLimiter::new(url.as_str(), limit)
        .await
        .expect("redis answers");
    let limiters: [&dyn Limiter; 1] = [&limiter];
    let end = Instant::now() + Duration::from_millis(run_ms.parse().expect("a duration"));
    while Instant::now() < end {
        let outcome = Operation::new()
            .name("fleet.call")
            .limit(&limiters)
            .limit_wait(Duration::from_millis(200))
            .run_async(async |_| {
                let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
                Ok::<_, Refused>(now.as_micros())
            })
            .await;
        match outcome.into_parts() {
            (Ok(at), _) => println!("{at}"),
            (Err(_), report) => assert_eq!(report.stop_reason(), StopReason::LimitExceeded),
        }
    }
    println!("done");
    ExitCode::SUCCESS
}

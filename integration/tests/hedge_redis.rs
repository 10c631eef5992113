//! A hedged call whose limiter is a `RedisRateLimiter`, against a real
//! `redis-server` on 127.0.0.1: the hedge's admission asks Redis without
//! blocking the runtime's one thread, and an attempt that ends while the
//! hedge is being admitted ends the call at once.

#[path = "support/redis_server.rs"]
mod redis_server;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use redis_server::RedisServer;
use resilient::limit::{Limiter, RateLimiter, RedisRateLimiter};
use resilient::{LimitExceeded, Operation, TokioClock};

#[derive(Debug, PartialEq)]
struct Busy;

impl std::fmt::Display for Busy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("busy")
    }
}

impl From<LimitExceeded> for Busy {
    fn from(_: LimitExceeded) -> Self {
        Busy
    }
}

/// The longest gap between the ticks of a task that wakes every 5 ms.
fn longest_gap(ticks: &[Instant]) -> Duration {
    ticks
        .windows(2)
        .map(|pair| pair[1] - pair[0])
        .max()
        .unwrap_or_default()
}

/// On a `current_thread` runtime, the first attempt pauses Redis for
/// 400 ms and answers 60 ms later; the hedge, due at 10 ms, is admitted
/// while Redis is paused. A check made on the runtime's thread would stop
/// every task on it (here, a ticker) until Redis answered; the
/// asynchronous check leaves them running, and the first attempt's answer
/// ends the call at 60 ms, without the hedge.
#[test]
fn a_hedge_asks_redis_without_blocking_the_runtime_thread() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let quota =
            RedisRateLimiter::new(server.url(), RateLimiter::per_second(1000).named("hedged"))
                .await
                .unwrap();
        let limiters: [&dyn Limiter; 1] = [&quota];
        let ticks = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&ticks);
        let ticker = tokio::spawn(async move {
            loop {
                seen.lock().unwrap().push(Instant::now());
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        });
        let client = server.client();
        let started = Instant::now();
        let outcome = Operation::new()
            .clock(TokioClock)
            .limit(&limiters)
            .hedge(Duration::from_millis(10))
            .run_async(async |attempt| {
                if attempt.number() == 1 {
                    let mut pause = client.get_multiplexed_async_connection().await.unwrap();
                    let () = redis::cmd("CLIENT")
                        .arg("PAUSE")
                        .arg(400)
                        .query_async(&mut pause)
                        .await
                        .unwrap();
                    tokio::time::sleep(Duration::from_millis(60)).await;
                    Ok::<_, Busy>("first")
                } else {
                    Ok("hedge")
                }
            })
            .await;
        let took = started.elapsed();
        ticker.abort();
        assert_eq!(outcome.result(), &Ok("first"));
        assert_eq!(outcome.report().attempt_count(), 1, "{}", outcome.report());
        assert!(took < Duration::from_millis(300), "the call took {took:?}");
        let ticks = ticks.lock().unwrap();
        let gap = longest_gap(&ticks);
        assert!(
            gap < Duration::from_millis(100),
            "the runtime's thread was held for {gap:?}"
        );
    });
}

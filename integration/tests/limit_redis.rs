//! `RedisRateLimiter` against a real `redis-server` on 127.0.0.1: governor's
//! vectors at given times, the same answers as `RateLimiter` under one
//! clock, the engine's refusals, calls cut while Redis is paused, what
//! happens when Redis goes away, and a fleet of four processes that
//! together never exceed the limit.

#[path = "support/child.rs"]
mod child;
#[path = "support/redis_server.rs"]
mod redis_server;

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use child::Process;
use redis_server::RedisServer;
use resilient::limit::{Bulkhead, Limiter, RateLimiter, RedisRateLimiter, WhenUnreachable};
use resilient::{LimitExceeded, Operation, StopReason};

const MS: Duration = Duration::from_millis(1);

/// A fixed time, so that every run checks the same instants.
fn start() -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(1_750_000_000)
}

async fn limiter(server: &RedisServer, limit: RateLimiter) -> RedisRateLimiter {
    RedisRateLimiter::new(server.url(), limit).await.unwrap()
}

async fn check(limiter: &RedisRateLimiter, at: SystemTime) -> Result<(), Duration> {
    limiter.check_at(at).await.expect("redis answers")
}

/// governor `tests/direct.rs`, `rejects_too_many`, `accepts_first_cell`
/// and the 5/s burst of `correct_wait_time`, at given times, on one key
/// each: the vectors `RateLimiter` passes (`limit/rate.rs`).
#[tokio::test]
async fn governors_vectors_hold_on_redis() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    // rejects_too_many: at 2/s, two cells, a refusal, two more a second on.
    let two = limiter(&server, RateLimiter::per_second(2).named("two")).await;
    let mut now = start();
    assert_eq!(check(&two, now).await, Ok(()));
    now += MS;
    assert_eq!(check(&two, now).await, Ok(()));
    now += MS;
    assert_eq!(check(&two, now).await, Err(MS * 498));
    now += MS * 1000;
    assert_eq!(check(&two, now).await, Ok(()));
    now += MS;
    assert_eq!(check(&two, now).await, Ok(()));
    now += MS;
    assert!(check(&two, now).await.is_err());

    // accepts_first_cell.
    let first = limiter(&server, RateLimiter::per_second(5).named("first")).await;
    assert_eq!(check(&first, start()).await, Ok(()));

    // correct_wait_time: sleeping the wait returned makes the next check
    // conform.
    let five = limiter(&server, RateLimiter::per_second(5).named("five")).await;
    let mut now = start();
    for _ in 0..20 {
        now += MS;
        if let Err(wait) = check(&five, now).await {
            now += wait;
            assert_eq!(check(&five, now).await, Ok(()));
        }
    }

    // At 5/s, after 2 s idle, exactly 5 again, never more.
    let burst = limiter(&server, RateLimiter::per_second(5).named("burst")).await;
    let mut admitted = 0;
    for _ in 0..15 {
        admitted += u32::from(check(&burst, start()).await.is_ok());
    }
    assert_eq!(admitted, 5);
    let later = start() + Duration::from_secs(2);
    let mut admitted = 0;
    for _ in 0..15 {
        admitted += u32::from(check(&burst, later).await.is_ok());
    }
    assert_eq!(admitted, 5);
}

/// Under one clock, every answer is `RateLimiter`'s, waits included, for
/// an irregular schedule of checks.
#[tokio::test]
async fn under_one_clock_it_answers_as_the_local_rate_limiter() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let shape = || RateLimiter::per_second(8).burst(3).named("same");
    let remote = limiter(&server, shape()).await;
    let local = shape();
    let (remote_start, local_start) = (start(), Instant::now());
    let mut offset = Duration::ZERO;
    for step in 0..200u64 {
        // Steps of 0 to 96 ms, in an order that repeats only every 13.
        offset += MS * u32::try_from((step * 37) % 13 * 8).unwrap();
        let theirs = local.check_at(local_start + offset);
        let ours = check(&remote, remote_start + offset).await;
        assert_eq!(ours, theirs, "at {offset:?}");
    }
    // The key expires when its cells are all back: nothing is left behind.
    let mut raw = server.client().get_connection().unwrap();
    let ttl: i64 = redis::cmd("PTTL")
        .arg(remote.key())
        .query(&mut raw)
        .unwrap();
    assert!(
        ttl <= 375 && ttl > 0,
        "the key expires with its last cell: {ttl} ms"
    );
}

#[derive(Debug, PartialEq)]
struct Busy(LimitExceeded);

impl std::fmt::Display for Busy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl From<LimitExceeded> for Busy {
    fn from(refusal: LimitExceeded) -> Self {
        Busy(refusal)
    }
}

/// Through the engine, async and blocking: the burst runs, the next call
/// is refused with the wait Redis gave, and is not retried.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_engine_awaits_redis_and_a_blocking_call_asks_it_too() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let quota = limiter(
        &server,
        RateLimiter::per_minute(60).burst(2).named("engine"),
    )
    .await;
    let limiters: [&dyn Limiter; 1] = [&quota];
    let call = async || {
        Operation::new()
            .max_attempts(3)
            .limit(&limiters)
            .run_async(async |_| Ok::<_, Busy>(()))
            .await
    };
    assert!(call().await.is_ok());
    let blocking = tokio::task::block_in_place(|| {
        Operation::new().limit(&limiters).run(|_| Ok::<_, Busy>(()))
    });
    assert!(blocking.is_ok());
    let refused = call().await;
    assert_eq!(refused.report().stop_reason(), StopReason::LimitExceeded);
    assert_eq!(
        refused.report().attempt_count(),
        1,
        "a refusal is not retried"
    );
    let Err(Busy(refusal)) = refused.into_result() else {
        panic!("refused");
    };
    assert_eq!(refusal.limiter(), "engine");
    let wait = refusal.retry_after().expect("Redis says when");
    assert!(
        wait > MS * 900 && wait <= Duration::from_secs(1),
        "{wait:?}"
    );
}

/// The guide's shape, `limit = [&CONNECTIONS, &QUOTA]` with the quota on
/// Redis: two calls cut at 50 ms while Redis is paused (`CLIENT PAUSE
/// 400`) give back the bulkhead's permits they took before asking Redis,
/// and once the pause is over the calls after them are admitted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_cut_while_redis_is_paused_return_their_permits() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    let quota = limiter(
        &server,
        RateLimiter::per_second(100).burst(10).named("paused"),
    )
    .await;
    let connections = Bulkhead::new(2);
    let limiters: [&dyn Limiter; 2] = [&connections, &quota];
    let call = || {
        Operation::new()
            .limit(&limiters)
            .run_async(async |_| Ok::<_, Busy>(()))
    };
    assert!(call().await.is_ok(), "admitted before the pause");

    let mut raw = server.client().get_connection().unwrap();
    let () = redis::cmd("CLIENT")
        .arg("PAUSE")
        .arg(400)
        .query(&mut raw)
        .unwrap();
    let paused = Instant::now();
    let cut = || tokio::time::timeout(MS * 50, call());
    let (first, second) = tokio::join!(cut(), cut());
    assert!(
        first.is_err() && second.is_err(),
        "both calls were cut while Redis was paused"
    );
    assert_eq!(
        connections.available(),
        2,
        "the bulkhead's permits are back"
    );

    // Past the pause (and well within the 500 ms answer timeout of the
    // checks it held), Redis answers again.
    tokio::time::sleep_until((paused + MS * 450).into()).await;
    for _ in 0..3 {
        let later = call().await;
        assert!(later.is_ok(), "{:?}", later.report());
    }
    assert_eq!(connections.available(), 2);
}

/// When Redis is gone: by default each process limits on its own, with
/// the same rate and burst; `Refuse` admits nothing. Both answer within
/// the connection's timeouts, not forever.
#[tokio::test]
async fn without_redis_it_limits_locally_or_refuses_as_told() {
    let Some(mut server) = RedisServer::start() else {
        return;
    };
    let local = limiter(&server, RateLimiter::per_second(1).burst(2).named("gone")).await;
    let strict = limiter(&server, RateLimiter::per_second(1).burst(2).named("strict"))
        .await
        .when_unreachable(WhenUnreachable::Refuse);
    server.stop();

    let now = Instant::now();
    let started = Instant::now();
    let answers = [
        local.try_acquire_async(now).unwrap().await,
        local.try_acquire_async(now).unwrap().await,
        local.try_acquire_async(now).unwrap().await,
    ];
    assert_eq!(
        answers,
        [
            Ok(()),
            Ok(()),
            Err(LimitExceeded::new("gone", Some(Duration::from_secs(1))))
        ],
        "the local limiter's burst, then its refusal"
    );
    assert_eq!(
        strict.try_acquire_async(now).unwrap().await,
        Err(LimitExceeded::new("strict", None))
    );
    assert_eq!(
        tokio::task::spawn_blocking(move || strict.try_acquire(now))
            .await
            .unwrap(),
        Err(LimitExceeded::new("strict", None)),
        "the blocking path too"
    );
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
}

/// Four processes take cells of one limiter, 40 a second with a burst of
/// 4, for 2.5 s, as fast as it lets them. Together, in every window of a
/// second, they run at most what the limit allows (the burst and 40 cells,
/// plus one for the clocks' skew between the server and the processes),
/// and they do get about that many: the limit is shared, not split.
#[test]
fn four_processes_never_exceed_the_limit_together() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    const RATE: usize = 40;
    const BURST: usize = 4;
    const RUN: Duration = Duration::from_millis(2_500);
    let url = server.url();
    let (rate, burst, run) = (
        RATE.to_string(),
        BURST.to_string(),
        RUN.as_millis().to_string(),
    );
    let args = [
        url.as_str(),
        "fleet",
        rate.as_str(),
        burst.as_str(),
        run.as_str(),
    ];
    let fleet: Vec<Process> = (0..4)
        .map(|_| Process::of(env!("CARGO_BIN_EXE_limit_child"), &args))
        .collect();
    let mut admitted = Vec::new();
    let mut per_process = Vec::new();
    for process in fleet {
        let (lines, ok) = process.rest(child::STEP);
        assert!(ok, "a process failed: {lines:?}");
        assert_eq!(lines.last().map(String::as_str), Some("done"));
        let times: Vec<u128> = lines[..lines.len() - 1]
            .iter()
            .map(|line| line.parse().expect("microseconds"))
            .collect();
        per_process.push(times.len());
        admitted.extend(times);
    }
    admitted.sort_unstable();
    let window = 1_000_000;
    let allowed = BURST + RATE + 1;
    for (index, &from) in admitted.iter().enumerate() {
        let within = admitted[index..]
            .iter()
            .take_while(|&&at| at < from + window)
            .count();
        assert!(
            within <= allowed,
            "{within} calls in the second from {from} µs, at most {allowed}"
        );
    }
    // Over the whole run (the processes started a little apart), at most
    // the burst and one cell per 25 ms; and at least four fifths of what
    // 2.5 s allow, whoever took them.
    let span = admitted.last().unwrap() - admitted.first().unwrap();
    let most = BURST + usize::try_from(span * RATE as u128 / window).unwrap() + 1;
    let least = (BURST + RATE * 5 / 2) * 8 / 10;
    assert!(
        (least..=most).contains(&admitted.len()),
        "{} calls in all ({per_process:?} by process) in {span} µs: between {least} and {most} expected",
        admitted.len()
    );
    assert!(
        per_process.iter().all(|&n| n > 0),
        "every process got cells: {per_process:?}"
    );
}

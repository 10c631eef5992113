use std::sync::Arc;
use std::thread;
use std::time::Duration;

use super::{EndpointBreakers, EndpointLimits, EndpointThrottles};
use crate::breaker::{CircuitBreaker, CircuitState};
use crate::limit::{Bulkhead, Completion, Limiter, RateLimiter};
use crate::testing::FakeClock;
use crate::throttle::RetryThrottle;

fn map(capacity: usize, clock: &FakeClock) -> EndpointBreakers {
    EndpointBreakers::builder("svc")
        .template(
            CircuitBreaker::builder()
                .failure_threshold(1)
                .break_duration(Duration::from_secs(30)),
        )
        .capacity(capacity)
        .idle_after(Duration::from_secs(60))
        .clock(clock.clone())
        .build()
        .unwrap()
}

fn open(breakers: &EndpointBreakers, key: &str, clock: &FakeClock) {
    let now = clock.now();
    breakers
        .get(key)
        .try_acquire(now)
        .unwrap()
        .record_failure(now);
}

#[test]
fn one_sick_key_opens_only_its_breaker() {
    let clock = FakeClock::new();
    let breakers = map(64, &clock);
    open(&breakers, "a:80", &clock);
    let now = clock.now();
    assert_eq!(breakers.get("a:80").state(now), CircuitState::Open);
    assert_eq!(breakers.get("b:80").state(now), CircuitState::Closed);
    assert!(breakers.get("b:80").try_acquire(now).is_ok());
    assert_eq!(breakers.get("a:80").name(), "svc/a:80");
}

#[test]
fn a_full_map_evicts_a_closed_key_before_an_open_one() {
    let clock = FakeClock::new();
    // 16 shards of two keys each.
    let breakers = map(32, &clock);
    open(&breakers, "sick:80", &clock);
    for i in 0..1000 {
        clock.advance(Duration::from_millis(1));
        breakers.get(&format!("h{i}:80"));
    }
    assert_eq!(breakers.len(), 32);
    // The sick key's shard always held a closed key too, older or not: it
    // was evicted each time instead of the open one.
    let states = breakers.states();
    assert!(
        states.contains(&("sick:80".to_owned(), CircuitState::Open)),
        "{states:?}"
    );
}

#[test]
fn idle_keys_are_dropped_by_the_clock() {
    let clock = FakeClock::new();
    let breakers = map(1024, &clock);
    breakers.get("a:80");
    clock.advance(Duration::from_secs(59));
    breakers.get("b:80");
    assert_eq!(breakers.evictions(), 0);
    clock.advance(Duration::from_secs(1));
    // Touching every shard drops "a", idle for 60 s, and keeps "b".
    for i in 0..200 {
        breakers.get(&format!("n{i}:80"));
    }
    assert_eq!(breakers.evictions(), 1);
    let keys: Vec<_> = breakers.states().into_iter().map(|(k, _)| k).collect();
    assert!(!keys.contains(&"a:80".to_owned()));
    assert!(keys.contains(&"b:80".to_owned()));
}

#[test]
fn a_hundred_thousand_hosts_stay_bounded() {
    let clock = FakeClock::new();
    let breakers = map(1024, &clock);
    for i in 0..100_000u32 {
        breakers.get(&format!(
            "10.{}.{}.{}:443",
            i >> 16,
            (i >> 8) & 255,
            i & 255
        ));
        assert!(breakers.len() <= 1024 || i % 1000 != 0);
    }
    assert_eq!(breakers.len(), 1024);
    assert_eq!(breakers.evictions(), 100_000 - 1024);
    assert_eq!(breakers.states().len(), 1024);
}

#[test]
fn many_threads_share_one_map() {
    let clock = FakeClock::new();
    let breakers = Arc::new(map(64, &clock));
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let breakers = Arc::clone(&breakers);
            thread::spawn(move || {
                for i in 0..5_000 {
                    let breaker = breakers.get(&format!("h{}:80", (i * 7 + t) % 2_000));
                    assert!(breaker.name().starts_with("svc/h"));
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
    // Two thousand keys fill each of the 16 shards: with 200, a shard that
    // the random hash gave fewer than its 4 keys held the map under 64.
    assert_eq!(breakers.len(), 64);
    // Every key made was kept or evicted once.
    assert!(breakers.evictions() >= 2_000 - 64);
}

fn throttles(capacity: usize, clock: &FakeClock) -> EndpointThrottles {
    EndpointThrottles::builder("svc")
        .template(RetryThrottle::new(4, 0.5))
        .capacity(capacity)
        .idle_after(Duration::from_secs(60))
        .clock(clock.clone())
        .build()
        .unwrap()
}

fn limits(capacity: usize, clock: &FakeClock) -> EndpointLimits {
    EndpointLimits::builder("svc")
        .limit(|| Bulkhead::new(2).named("svc.host"))
        .limit(|| RateLimiter::per_second(100).named("svc.rate"))
        .capacity(capacity)
        .idle_after(Duration::from_secs(60))
        .clock(clock.clone())
        .build()
        .unwrap()
}

#[test]
fn a_full_map_evicts_a_full_throttle_before_a_drained_one() {
    let clock = FakeClock::new();
    let throttles = throttles(32, &clock);
    let sick = throttles.get("sick:80");
    for _ in 0..4 {
        sick.record_failure();
    }
    for i in 0..1000 {
        clock.advance(Duration::from_millis(1));
        throttles.get(&format!("h{i}:80"));
    }
    assert_eq!(throttles.len(), 32);
    assert_eq!(throttles.evictions(), 1001 - 32);
    // Still the drained one: it was never at rest, and its shard always
    // held a full throttle to evict instead.
    assert!(Arc::ptr_eq(&throttles.get("sick:80"), &sick));
    assert!(throttles.tokens().contains(&("sick:80".to_owned(), 0.0)));
    // The other hosts' throttles are full.
    assert_eq!(throttles.get("h999:80").tokens(), 4.0);
}

#[test]
fn a_full_map_evicts_limiters_at_rest_before_ones_in_use() {
    let clock = FakeClock::new();
    let limits = limits(32, &clock);
    let busy = limits.get("busy:80");
    busy[0].try_acquire(clock.now()).unwrap();
    for i in 0..1000 {
        clock.advance(Duration::from_millis(1));
        limits.get(&format!("h{i}:80"));
    }
    assert_eq!(limits.len(), 32);
    // The bulkhead in use was kept: a new one would admit two more.
    assert!(Arc::ptr_eq(&limits.get("busy:80"), &busy));
    assert_eq!(busy[0].in_flight(), Some(1));
    busy[0].release(clock.now(), Duration::ZERO, Completion::Succeeded);
    assert_eq!(limits.get("h999:80").len(), 2, "each key has both limiters");
}

#[test]
fn idle_throttles_and_limits_are_dropped_by_the_clock() {
    let clock = FakeClock::new();
    let (throttles, limits) = (throttles(1024, &clock), limits(1024, &clock));
    // Drained and in use: only idleness drops them.
    throttles.get("a:80").record_failure();
    limits.get("a:80")[0].try_acquire(clock.now()).unwrap();
    clock.advance(Duration::from_secs(59));
    throttles.get("b:80");
    limits.get("b:80");
    assert_eq!((throttles.evictions(), limits.evictions()), (0, 0));
    clock.advance(Duration::from_secs(1));
    // Touching every shard drops "a", idle for 60 s, and keeps "b".
    for i in 0..200 {
        throttles.get(&format!("n{i}:80"));
        limits.get(&format!("n{i}:80"));
    }
    assert_eq!((throttles.evictions(), limits.evictions()), (1, 1));
    let keys: Vec<_> = throttles.tokens().into_iter().map(|(k, _)| k).collect();
    assert!(!keys.contains(&"a:80".to_owned()) && keys.contains(&"b:80".to_owned()));
    let keys: Vec<_> = limits.in_flight().into_iter().map(|(k, _)| k).collect();
    assert!(!keys.contains(&"a:80".to_owned()) && keys.contains(&"b:80".to_owned()));
    // A new "a" starts afresh.
    assert_eq!(throttles.get("a:80").tokens(), 4.0);
    assert_eq!(limits.get("a:80")[0].in_flight(), Some(0));
}

use std::sync::Arc;
use std::thread;
use std::time::Duration;

use super::EndpointBreakers;
use crate::breaker::{CircuitBreaker, CircuitState};
use crate::testing::FakeClock;

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
                    let breaker = breakers.get(&format!("h{}:80", (i * 7 + t) % 200));
                    assert!(breaker.name().starts_with("svc/h"));
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
    assert_eq!(breakers.len(), 64);
    // Every key made was kept or evicted once.
    assert!(breakers.evictions() >= 200 - 64);
}

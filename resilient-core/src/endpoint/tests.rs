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
    let breakers = map(32, &clock);
    open(&breakers, "sick:80", &clock);
    for i in 0..1000 {
        clock.advance(Duration::from_millis(1));
        breakers.get(&format!("h{i}:80"));
    }
    assert_eq!(breakers.len(), 32);
    // The map always held a closed key too, older or not: it was evicted
    // each time instead of the open one.
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
    // The next new key drops "a", idle for 60 s, and keeps "b".
    breakers.get("n:80");
    assert_eq!(breakers.evictions(), 1);
    assert_eq!(keys(&breakers), ["b:80", "n:80"]);
    // "b" turns idle 60 s after its use, to the second: the pass noted
    // when, and the first new key from then on drops it.
    clock.advance(Duration::from_secs(58));
    breakers.get("m:80");
    assert_eq!(breakers.evictions(), 1, "b is idle for 59 s only");
    clock.advance(Duration::from_secs(1));
    breakers.get("o:80");
    assert_eq!(breakers.evictions(), 2);
    assert_eq!(keys(&breakers), ["m:80", "n:80", "o:80"]);
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
                    assert!(breakers.len() <= 64);
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
    // The bound is the map's, whatever shard the keys hash to.
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
    // Still the drained one: it was never at rest, and the map always
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
    // Drained and used: only idleness drops them.
    throttles.get("a:80").record_failure();
    let a = limits.get("a:80");
    a[0].try_acquire(clock.now()).unwrap();
    a[0].release(clock.now(), Duration::ZERO, Completion::Succeeded);
    clock.advance(Duration::from_secs(59));
    throttles.get("b:80");
    limits.get("b:80");
    assert_eq!((throttles.evictions(), limits.evictions()), (0, 0));
    clock.advance(Duration::from_secs(1));
    // The next new key drops "a", idle for 60 s, and keeps "b".
    throttles.get("n:80");
    limits.get("n:80");
    assert_eq!((throttles.evictions(), limits.evictions()), (1, 1));
    let keys: Vec<_> = throttles.tokens().into_iter().map(|(k, _)| k).collect();
    assert!(!keys.contains(&"a:80".to_owned()) && keys.contains(&"b:80".to_owned()));
    let keys: Vec<_> = limits.in_flight().into_iter().map(|(k, _)| k).collect();
    assert!(!keys.contains(&"a:80".to_owned()) && keys.contains(&"b:80".to_owned()));
    // A new "a" starts afresh.
    assert_eq!(throttles.get("a:80").tokens(), 4.0);
    assert!(!Arc::ptr_eq(&limits.get("a:80"), &a));
}

/// The keys a map holds, in order.
fn keys(breakers: &EndpointBreakers) -> Vec<String> {
    breakers.states().into_iter().map(|(key, _)| key).collect()
}

#[test]
fn no_key_is_evicted_below_the_capacity_whatever_the_keys_hash_to() {
    let clock = FakeClock::new();
    for round in 0..50 {
        // A fresh map has a fresh hasher: 50 ways to spread 16 keys.
        let breakers = map(16, &clock);
        open(&breakers, "sick:80", &clock);
        let sick = breakers.get("sick:80");
        for i in 0..15 {
            clock.advance(Duration::from_millis(1));
            breakers.get(&format!("h{i}:80"));
        }
        assert_eq!(
            (breakers.len(), breakers.evictions()),
            (16, 0),
            "round {round}"
        );
        assert!(Arc::ptr_eq(&breakers.get("sick:80"), &sick));
        assert_eq!(sick.state(clock.now()), CircuitState::Open);
    }
}

#[test]
fn over_the_capacity_the_least_recently_used_key_at_rest_goes_map_wide() {
    let clock = FakeClock::new();
    let breakers = map(4, &clock);
    open(&breakers, "sick:80", &clock);
    for key in ["a:80", "b:80", "c:80"] {
        clock.advance(Duration::from_millis(1));
        breakers.get(key);
    }
    // "a" is used again: "b" is now the least recently used at rest.
    clock.advance(Duration::from_millis(1));
    breakers.get("a:80");
    clock.advance(Duration::from_millis(1));
    breakers.get("d:80");
    assert_eq!(keys(&breakers), ["a:80", "c:80", "d:80", "sick:80"]);
    assert_eq!(breakers.evictions(), 1);
}

#[test]
fn an_open_key_goes_only_when_none_is_at_rest_and_the_oldest_open_goes_first() {
    let clock = FakeClock::new();
    let breakers = map(3, &clock);
    for key in ["x:80", "y:80", "z:80"] {
        clock.advance(Duration::from_millis(1));
        open(&breakers, key, &clock);
    }
    clock.advance(Duration::from_millis(1));
    breakers.get("new:80");
    assert_eq!(keys(&breakers), ["new:80", "y:80", "z:80"]);
}

#[test]
fn an_isolated_breaker_is_never_idle_and_goes_last() {
    let clock = FakeClock::new();
    let breakers = map(2, &clock);
    let isolated = breakers.get("iso:80");
    isolated.isolate();
    clock.advance(Duration::from_secs(3600));
    // Idle for an hour, 60 times `idle_after`: still there, still isolated.
    breakers.get("a:80");
    clock.advance(Duration::from_millis(1));
    open(&breakers, "b:80", &clock);
    assert_eq!(keys(&breakers), ["b:80", "iso:80"]);
    assert_eq!(
        breakers.evictions(),
        1,
        "only the idle-free closed a:80 went"
    );
    assert!(Arc::ptr_eq(&breakers.get("iso:80"), &isolated));
    assert_eq!(isolated.state(clock.now()), CircuitState::Isolated);
    // An operator's reset lets it rest again: the next idle pass drops it.
    isolated.reset();
    clock.advance(Duration::from_secs(60));
    breakers.get("c:80");
    assert!(!keys(&breakers).contains(&"iso:80".to_owned()));
}

#[test]
fn a_bulkhead_with_a_permit_out_is_neither_evicted_nor_idle() {
    let clock = FakeClock::new();
    let limits = EndpointLimits::builder("svc")
        .limit(|| Bulkhead::new(1).named("svc.host"))
        .capacity(16)
        .idle_after(Duration::from_secs(60))
        .clock(clock.clone())
        .build()
        .unwrap();
    let busy = limits.get("busy:80");
    busy[0].try_acquire(clock.now()).unwrap();
    for i in 0..100 {
        clock.advance(Duration::from_secs(1));
        limits.get(&format!("h{i}:80"));
    }
    assert_eq!(limits.len(), 16);
    // A second request to the busy host is still held to its limit of 1.
    assert!(limits.get("busy:80")[0].try_acquire(clock.now()).is_err());
    assert!(Arc::ptr_eq(&limits.get("busy:80"), &busy));
}

#[test]
fn with_no_key_at_rest_the_least_recently_used_open_key_goes() {
    let clock = FakeClock::new();
    let breakers = map(3, &clock);
    // Three open breakers, none at rest, used in this order: whichever
    // order the shards list them in, "b" is the oldest.
    for key in ["b:80", "a:80", "c:80"] {
        open(&breakers, key, &clock);
        clock.advance(Duration::from_secs(1));
    }
    breakers.get("n:80");
    assert_eq!(keys(&breakers), ["a:80", "c:80", "n:80"]);
}

#[test]
fn a_candidate_used_again_since_it_was_found_is_not_evicted() {
    let clock = FakeClock::new();
    let breakers = map(2, &clock);
    breakers.get("a:80");
    clock.advance(Duration::from_secs(1));
    breakers.get("b:80");
    clock.advance(Duration::from_secs(1));
    // Full: a pass finds "a" then "b" at rest, and "a" goes.
    breakers.get("c:80");
    assert_eq!(keys(&breakers), ["b:80", "c:80"]);
    // "b", the next candidate, is used again: now "c" is the oldest.
    clock.advance(Duration::from_secs(1));
    breakers.get("b:80");
    clock.advance(Duration::from_secs(1));
    breakers.get("d:80");
    assert_eq!(keys(&breakers), ["b:80", "d:80"]);
}

#[test]
fn a_key_that_turned_idle_makes_room_and_spares_the_last_resort() {
    let clock = FakeClock::new();
    let breakers = map(2, &clock);
    // "a" isolated: in use, so never idle while it stays so.
    let a = breakers.get("a:80");
    a.isolate();
    clock.advance(Duration::from_secs(61));
    // A pass (the first key's idle time has come) keeps "a" for later.
    open(&breakers, "c:80", &clock);
    clock.advance(Duration::from_secs(1));
    // Reset, "a" is idle since long: the next pass drops it, which makes
    // room for "d" without evicting "c", open and not idle.
    // (Reset through the breaker held, not the map, which would mark the
    // key used.)
    a.reset();
    clock.advance(Duration::from_secs(1));
    breakers.get("d:80");
    assert_eq!(keys(&breakers), ["c:80", "d:80"]);
    assert_eq!(breakers.get("c:80").state(clock.now()), CircuitState::Open);
}

#[test]
fn a_map_tells_its_capacity_at_least_one() {
    let clock = FakeClock::new();
    assert_eq!(map(3, &clock).capacity(), 3);
    assert_eq!(map(0, &clock).capacity(), 1, "a map holds one key at least");
}

#[cfg(feature = "dashboard")]
#[test]
fn the_panel_controls_a_key_the_map_holds_and_makes_none() {
    use crate::observe::dashboard::EndpointRows;

    let clock = FakeClock::new();
    let breakers = map(64, &clock);
    for i in 0..20 {
        breakers.get(&format!("h{i}:80"));
    }
    let now = clock.now();
    // Every key is found where it was put, whichever shard that is.
    for i in 0..20 {
        let key = format!("h{i}:80");
        assert_eq!(
            breakers.control(&key, true, now),
            Some(CircuitState::Isolated),
            "{key}"
        );
        assert_eq!(breakers.get(&key).state(now), CircuitState::Isolated);
    }
    assert_eq!(breakers.control("other:80", true, now), None);
    assert_eq!(breakers.len(), 20, "no key made");
}

#[test]
fn a_map_tells_its_prefix_capacity_and_evictions_in_debug() {
    let clock = FakeClock::new();
    let breakers = map(1, &clock);
    breakers.get("a:1");
    clock.advance(Duration::from_millis(1));
    breakers.get("b:1");
    assert_eq!(breakers.evictions(), 1);
    assert_eq!(
        format!("{breakers:?}"),
        "EndpointBreakers { prefix: \"svc\", capacity: 1, evictions: 1, .. }"
    );
}

#[cfg(feature = "dashboard")]
#[test]
fn the_panel_reads_a_maps_evictions() {
    use crate::observe::dashboard::EndpointRows;

    let clock = FakeClock::new();
    let breakers = map(1, &clock);
    breakers.get("a:1");
    clock.advance(Duration::from_millis(1));
    breakers.get("b:1");
    assert_eq!(EndpointRows::evictions(&breakers), 1);
    assert_eq!(EndpointRows::keys(&breakers), 1);
}

#[cfg(feature = "dashboard")]
#[test]
fn a_map_under_control_is_listed_by_the_panel_before_any_call() {
    let clock = FakeClock::new();
    let breakers = Arc::new(
        EndpointBreakers::builder("under.control.listed")
            .clock(clock.clone())
            .build()
            .unwrap(),
    );
    let listed = || {
        crate::observe::dashboard::controlled_maps()
            .iter()
            .any(|map| map.prefix() == "under.control.listed")
    };
    assert!(!listed());
    breakers.under_control();
    assert!(listed());
}

#[cfg(all(feature = "dashboard", feature = "tower"))]
#[test]
fn a_map_used_under_two_operations_shows_under_both_tiles() {
    let clock = FakeClock::new();
    let breakers = Arc::new(map(4, &clock));
    breakers.get("h:1");
    let tiles =
        |operation: &str| crate::observe::dashboard::endpoints_of(operation, clock.now()).len();
    assert_eq!(tiles("shown.first"), 0);
    breakers.show_under("shown.first");
    breakers.show_under("shown.first");
    assert_eq!(tiles("shown.first"), 1, "shown once");
    breakers.show_under("shown.second");
    assert_eq!(tiles("shown.second"), 1, "shown under the second tile too");
}

#[cfg(feature = "tower")]
#[test]
fn per_key_state_is_set_only_with_a_map_and_says_what_it_holds() {
    let per_key = super::PerKey::default();
    assert!(!per_key.is_set());
    assert_eq!(
        format!("{per_key:?}"),
        "PerKey { breakers: None, throttles: None, limits: None, key: false }"
    );
    let clock = FakeClock::new();
    let with_limits = super::PerKey {
        limits: Some(Arc::new(limits(4, &clock))),
        ..super::PerKey::default()
    };
    assert!(with_limits.is_set());
}

#[cfg(feature = "http")]
#[test]
fn the_default_key_is_host_and_port_with_the_schemes_port() {
    use super::endpoint_key;

    let key = |uri: &str| endpoint_key(&uri.parse().unwrap());
    assert_eq!(key("https://a.example/x").as_deref(), Some("a.example:443"));
    assert_eq!(key("http://a.example/x").as_deref(), Some("a.example:80"));
    assert_eq!(
        key("http://10.0.0.7:8080/").as_deref(),
        Some("10.0.0.7:8080")
    );
    assert_eq!(key("ftp://a.example/").as_deref(), Some("a.example"));
    assert_eq!(key("/no/host"), None);
}

#[cfg(feature = "http")]
#[test]
fn a_requests_key_is_its_uris_or_empty_without_a_host() {
    use super::{host_port, key_of};

    let request = |uri: &str| http::Request::get(uri).body(()).unwrap();
    assert_eq!(
        host_port(&request("http://10.0.0.7:8080/users")),
        "10.0.0.7:8080"
    );
    assert_eq!(host_port(&request("/users")), "");
    assert_eq!(key_of("h", Some(1)), "h:1");
    assert_eq!(key_of("h", None), "h");
}

#[test]
fn limits_tell_the_most_in_flight_under_a_keys_limiters() {
    let clock = FakeClock::new();
    let limits = limits(4, &clock);
    let held = limits.get("h:1");
    held[0].try_acquire(clock.now()).unwrap();
    held[0].try_acquire(clock.now()).unwrap();
    // The rate limiter counts nothing in flight: the bulkhead's 2 stand.
    held[1].try_acquire(clock.now()).unwrap();
    limits.get("h:2");
    let mut in_flight = limits.in_flight();
    in_flight.sort();
    assert_eq!(in_flight, [("h:1".to_owned(), 2), ("h:2".to_owned(), 0)]);
    assert_eq!(
        format!("{limits:?}"),
        "EndpointLimits { prefix: \"svc\", limiters: 2, capacity: 4, evictions: 0, .. }"
    );
}

#[test]
fn throttles_say_their_template_and_bounds_in_debug() {
    let clock = FakeClock::new();
    let throttles = throttles(8, &clock);
    let text = format!("{throttles:?}");
    assert!(
        text.starts_with("EndpointThrottles { prefix: \"svc\", template: "),
        "{text}"
    );
    assert!(text.ends_with("capacity: 8, evictions: 0, .. }"), "{text}");
}

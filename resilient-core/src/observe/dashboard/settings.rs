//! What a tile says of the settings its calls run with: the operation's
//! retries, deadlines and backoff, and its breaker's threshold and break,
//! each as the engine resolves them (the values it was built with, and
//! over them the installed configuration's entry of its name), and where
//! they came from.
//!
//! Read once a second, for the snapshot: one lookup by name per
//! operation and breaker, none on a call's way.

use std::time::Duration;

use serde_json::{Value, json};

use crate::Jitter;
use crate::breaker::View;
use crate::settings::Settings;

/// Milliseconds, as the page shows durations.
fn millis(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

/// Where the configuration installed as `version` came from, as a tile
/// says it: `code`, `control panel`, `file <path>`.
fn origin(version: u64) -> Option<String> {
    #[cfg(feature = "config")]
    return crate::config::origin(version).map(|origin| origin.to_string());
    #[cfg(not(feature = "config"))]
    {
        let _ = version;
        None
    }
}

fn jitter_name(jitter: Jitter) -> &'static str {
    match jitter {
        Jitter::Full => "full",
        Jitter::Equal => "equal",
        Jitter::None => "none",
        Jitter::Decorrelated => "decorrelated",
        Jitter::Additive => "additive",
        Jitter::AdditiveUncapped => "additive, uncapped",
    }
}

/// The settings of the operation `name`, built with `built` (`None` while
/// no call of it built its operation): the effective values, `source`
/// (`"attribute"`, or `"config"` with the configuration's `version`) and
/// the keys the configuration sets (`configured`).
pub(super) fn operation(name: &str, built: Option<&Settings>) -> Value {
    #[cfg(feature = "config")]
    if let Some(resolved) = crate::config::resolve(name, None) {
        let entry = &resolved.entry;
        let mut shown = match built {
            Some(built) => effective(&resolved.apply(*built)),
            None => json!({}),
        };
        let set = |key: &'static str, value: Option<Value>| (key, value);
        let configured = [
            set("retries", entry.retries.map(Value::from)),
            set("min_retries", entry.min_retries.map(Value::from)),
            set("timeout_ms", entry.timeout.map(|d| millis(d).into())),
            set("budget_ms", entry.budget.map(|d| millis(d).into())),
            set(
                "max_elapsed_ms",
                entry.max_elapsed.map(|d| millis(d).into()),
            ),
            set("base_delay_ms", entry.base_delay.map(|d| millis(d).into())),
            set("max_delay_ms", entry.max_delay.map(|d| millis(d).into())),
            set("multiplier", entry.multiplier.map(Value::from)),
            set("jitter", entry.jitter.map(|j| jitter_name(j).into())),
            set(
                "retry_after_max_ms",
                entry.retry_after_max.map(|d| millis(d).into()),
            ),
            set(
                "hedge_delay_ms",
                entry.hedge_delay.map(|d| millis(d).into()),
            ),
        ];
        let mut keys = Vec::new();
        for (key, value) in configured {
            if let Some(value) = value {
                // Without the built values, the entry's own stand in; the
                // hedge delay is the entry's alone (an operation's own is
                // not in its settings).
                if built.is_none() || key == "hedge_delay_ms" {
                    shown[key] = value;
                }
                keys.push(key);
            }
        }
        shown["source"] = "config".into();
        shown["version"] = resolved.version.into();
        shown["origin"] = origin(resolved.version).into();
        shown["known"] = built.is_some().into();
        shown["configured"] = keys.into();
        return shown;
    }
    #[cfg(not(feature = "config"))]
    let _ = name;
    let mut shown = built.map_or_else(|| json!({}), effective);
    shown["source"] = "attribute".into();
    shown["version"] = Value::Null;
    shown["origin"] = Value::Null;
    shown["known"] = built.is_some().into();
    shown["configured"] = json!([]);
    shown
}

/// The values of `settings`, as the tile shows them; a value not set
/// (no timeout, no budget) is left out, which keeps a thousand tiles'
/// snapshot small.
fn effective(settings: &Settings) -> Value {
    let mut shown = values(settings);
    if let Value::Object(fields) = &mut shown {
        fields.retain(|_, value| !value.is_null());
    }
    shown
}

fn values(settings: &Settings) -> Value {
    let backoff = settings.backoff;
    // The longest delay: the backoff's, or the cap over it if lower.
    let max_delay = settings
        .max_delay
        .get_optional()
        .map_or(backoff.max(), |cap| cap.min(backoff.max()));
    json!({
        "retries": settings.max_attempts.saturating_sub(1),
        "min_retries": settings.min_retries,
        "timeout_ms": settings.timeout.map(millis),
        "budget_ms": settings.budget.map(millis),
        "max_elapsed_ms": settings.max_elapsed.map(millis),
        "base_delay_ms": millis(backoff.base()),
        "max_delay_ms": millis(max_delay),
        "multiplier": backoff.multiplier_value(),
        "jitter": jitter_name(backoff.jitter_kind()),
        "retry_after_max_ms": millis(settings.max_retry_after_wait.get()),
    })
}

/// The settings of the breaker of `view`: its failure threshold and
/// break as its next opening would use them (a growing break: the latest
/// one, up to its cap), the break in force, and where they came from.
pub(super) fn breaker(view: &View) -> Value {
    let built = view.built;
    let configured = configured_breaker(view);
    let threshold = configured.threshold.or(built.failure_threshold);
    let break_nanos = configured.break_nanos.unwrap_or(built.break_nanos);
    let seconds = |nanos: u64| Duration::from_nanos(nanos).as_secs_f64();
    json!({
        "failure_threshold": threshold,
        // A growing break's next one depends on its openings: the tile
        // shows the one in force and the cap.
        "break_s": (!built.grows).then(|| seconds(break_nanos)),
        "break_in_force_s": view.break_in_force().as_secs_f64(),
        "grows": built.grows,
        "max_break_s": (built.grows && built.max_break_nanos != u64::MAX)
            .then(|| seconds(built.max_break_nanos)),
        "source": if configured.keys.is_empty() { "attribute" } else { "config" },
        "version": configured.version,
        "origin": configured.version.and_then(origin),
        "configured": configured.keys,
    })
}

/// What the installed configuration changes of a breaker.
#[derive(Default)]
struct ConfiguredBreaker {
    threshold: Option<u32>,
    break_nanos: Option<u64>,
    /// The configuration's version, where it changes anything.
    version: Option<u64>,
    keys: Vec<&'static str>,
}

/// The entry of `view`'s breaker in the installed configuration, as the
/// breaker reads it: a threshold only where it counts failures, a break
/// only where it doesn't grow.
fn configured_breaker(view: &View) -> ConfiguredBreaker {
    #[cfg_attr(not(feature = "config"), allow(unused_mut))]
    let mut configured = ConfiguredBreaker::default();
    #[cfg(feature = "config")]
    if let Some(config) = crate::config::current()
        && let Some(entry) = config.breaker(&view.name)
    {
        let built = view.built;
        if let (Some(threshold), Some(_)) = (entry.failure_threshold, built.failure_threshold) {
            configured.threshold = Some(threshold);
            configured.keys.push("failure_threshold");
        }
        if let Some(duration) = entry.break_duration
            && !built.grows
        {
            configured.break_nanos = Some(crate::time::duration_nanos(duration).max(1));
            configured.keys.push("break_duration");
        }
        if !configured.keys.is_empty() {
            configured.version = Some(config.version());
        }
    }
    #[cfg(not(feature = "config"))]
    let _ = view;
    configured
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use serde_json::json;

    use super::*;
    use crate::observe::dashboard::window::History;
    use crate::{Backoff, CircuitBreaker, CircuitState, FakeClock, Operation};

    /// The tile of `name` in a snapshot taken now.
    fn tile_of(name: &str) -> Value {
        let mut history = History::default();
        history.sample(Instant::now());
        let snapshot = history.snapshot();
        let tiles = snapshot["operations"].as_array().unwrap();
        tiles
            .iter()
            .find(|tile| tile["name"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("no tile {name} in {snapshot}"))
    }

    #[test]
    fn a_tile_shows_the_settings_its_operation_was_built_with_as_compiled() {
        let clock = FakeClock::new();
        let outcome = Operation::new()
            .name("tile.settings.built")
            .clock(&clock)
            .max_attempts(3)
            .backoff(
                Backoff::exponential(Duration::from_millis(50), Duration::from_secs(2))
                    .jitter(Jitter::Equal),
            )
            .budget(Duration::from_secs(10))
            .run(|_| Err::<(), _>("down".to_owned()));
        assert_eq!(outcome.report().attempt_count(), 3);
        let settings = &tile_of("tile.settings.built")["settings"];
        assert_eq!(
            *settings,
            json!({
                "source": "attribute",
                "version": null,
                "origin": null,
                "known": true,
                "configured": [],
                "retries": 2,
                "min_retries": 0,
                "budget_ms": 10_000.0,
                "base_delay_ms": 50.0,
                "max_delay_ms": 2_000.0,
                "multiplier": 2.0,
                "jitter": "equal",
                "retry_after_max_ms": 60_000.0,
            })
        );
        // An operation no call built yet says so, and shows no value.
        assert_eq!(
            operation("tile.settings.unbuilt", None),
            json!({ "source": "attribute", "version": null, "origin": null, "known": false, "configured": [] })
        );
    }

    #[test]
    fn a_growing_break_is_shown_by_the_break_in_force_not_the_first() {
        let breaker = CircuitBreaker::builder()
            .name("tile.growing")
            .failure_threshold(1)
            .break_duration_with(|n| Duration::from_secs(u64::from(n) * 2))
            .max_break_duration(Duration::from_secs(5))
            .build()
            .unwrap();
        let view = breaker.view();
        let t0 = Instant::now();
        let secs = |s: u64| Duration::from_secs(s);
        breaker.try_acquire(t0).unwrap().record_failure(t0);
        assert_eq!(view.break_left(t0), Some(secs(2)));
        // Its probe fails: the second break is 4 s.
        let t1 = t0 + secs(2);
        breaker.try_acquire(t1).unwrap().record_failure(t1);
        assert_eq!(view.break_left(t1 + secs(1)), Some(secs(3)));
        // Where the builder's first break would have ended, still open.
        assert_eq!(breaker.state(t1 + secs(3)), CircuitState::Open);
        assert_eq!(view.state_at(t1 + secs(3)).0, CircuitState::Open);
        let (state, held) = view.state_at(t1 + secs(5));
        assert_eq!((state, held), (CircuitState::HalfOpen, secs(1)));
        assert_eq!(view.break_left(t1 + secs(4)), None);
        let shown = super::super::window::breaker(view, t1 + secs(1));
        assert_eq!(shown["state"], "open");
        assert_eq!(shown["break_left_s"], 3.0);
        assert_eq!(
            shown["settings"],
            json!({
                "failure_threshold": 1,
                "break_s": null,
                "break_in_force_s": 4.0,
                "grows": true,
                "max_break_s": 5.0,
                "source": "attribute",
                "version": null,
                "origin": null,
                "configured": [],
            })
        );
    }
}

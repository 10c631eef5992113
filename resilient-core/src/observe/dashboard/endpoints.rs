//! The breakers per endpoint each operation uses, as rows under its tile:
//! a map enters with the first call of an operation that uses it, and
//! shows each key's breaker, its open and half-open ones first.
//!
//! A map holds up to its capacity of keys (1024 by default): a tile shows
//! [`ROWS`] of them, and says how many it holds and evicted.
//!
//! The replicas of an operation's outlier detections are rows there too:
//! each replica the detection knows, the ejected ones first, with how
//! long each stays out.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex, PoisonError, Weak};
use std::time::Instant;

use serde_json::{Value, json};

use crate::breaker::{CircuitState, View};

/// The most keys a tile lists per map.
pub(crate) const ROWS: usize = 16;

/// A map of breakers per key, as the dashboard reads it.
pub(crate) trait EndpointRows: Send + Sync {
    /// The map's prefix: its breakers are named `"{prefix}/{key}"`.
    fn prefix(&self) -> &str;
    /// How many keys it holds.
    fn keys(&self) -> usize;
    /// How many keys it evicted.
    fn evictions(&self) -> u64;
    /// Each key with its breaker's view.
    fn views(&self) -> Vec<(String, Arc<View>)>;
    /// Isolates (`true`) or resets the breaker of `key`, if the map holds
    /// it: its state after, or `None` for a key it doesn't hold.
    fn control(&self, key: &str, isolate: bool, now: Instant) -> Option<CircuitState>;
}

/// The maps shown under one operation's tile.
type Maps = Vec<Weak<dyn EndpointRows>>;

/// The maps shown, by operation.
static SHOWN: LazyLock<Mutex<HashMap<String, Maps>>> = LazyLock::new(Default::default);

/// Shows the breakers of `map` under the tile of `operation`; once per
/// map and operation.
#[cfg_attr(not(feature = "tower"), allow(dead_code))]
pub(crate) fn show_endpoints(operation: &str, map: Weak<dyn EndpointRows>) {
    let mut shown = SHOWN.lock().unwrap_or_else(PoisonError::into_inner);
    let maps = shown.entry(operation.to_owned()).or_default();
    maps.retain(|map| map.strong_count() > 0);
    if !maps.iter().any(|known| Weak::ptr_eq(known, &map)) {
        maps.push(map);
    }
}

/// Maps handed over to the control panel before any operation used them
/// (`EndpointBreakers::under_control`).
static CONTROLLED: Mutex<Maps> = Mutex::new(Vec::new());

/// Lets the control panel list and control `map`'s breakers, by key.
pub(crate) fn control_map(map: Weak<dyn EndpointRows>) {
    let mut controlled = CONTROLLED.lock().unwrap_or_else(PoisonError::into_inner);
    controlled.retain(|map| map.strong_count() > 0);
    if !controlled.iter().any(|known| Weak::ptr_eq(known, &map)) {
        controlled.push(map);
    }
}

/// Every map the panel controls: those shown under a tile, and those
/// handed over; each once, by prefix.
pub(crate) fn controlled_maps() -> Vec<Arc<dyn EndpointRows>> {
    let mut maps: Vec<Arc<dyn EndpointRows>> = Vec::new();
    let shown = SHOWN.lock().unwrap_or_else(PoisonError::into_inner);
    let controlled = CONTROLLED.lock().unwrap_or_else(PoisonError::into_inner);
    for map in shown.values().flatten().chain(controlled.iter()) {
        if let Some(map) = map.upgrade()
            && !maps.iter().any(|known| Arc::ptr_eq(known, &map))
        {
            maps.push(map);
        }
    }
    maps.sort_by(|a, b| a.prefix().cmp(b.prefix()));
    maps
}

/// The maps of `operation`'s tile, each with its rows as of `now`.
pub(crate) fn endpoints_of(operation: &str, now: Instant) -> Vec<Value> {
    let maps: Vec<Arc<dyn EndpointRows>> = {
        let shown = SHOWN.lock().unwrap_or_else(PoisonError::into_inner);
        shown
            .get(operation)
            .into_iter()
            .flatten()
            .filter_map(Weak::upgrade)
            .collect()
    };
    maps.iter().map(|map| rows(&**map, now)).collect()
}

/// The outlier detections of `operation`'s tile as of `now`: each with
/// its replicas, up to [`ROWS`], the ejected ones first, then by URL;
/// and how many are ejected.
pub(crate) fn replicas_of(operation: &str, now: Instant) -> Vec<Value> {
    crate::observe::replicas::replicas_of(operation, now)
        .into_iter()
        .map(|mut rows| {
            let ejected = rows.iter().filter(|row| row.ejected_for.is_some()).count();
            rows.sort_by_key(|row| row.ejected_for.is_none());
            let known = rows.len();
            rows.truncate(ROWS);
            json!({
                "known": known,
                "ejected": ejected,
                "rows": rows.into_iter().map(|row| json!({
                    "replica": row.replica,
                    "ejected_for_s": row.ejected_for.map(|left| left.as_secs_f64()),
                    "times_ejected": row.times_ejected,
                    "consecutive_failures": row.consecutive_failures,
                })).collect::<Vec<_>>(),
            })
        })
        .collect()
}

/// One map: its prefix, size, evictions, and up to [`ROWS`] keys, those
/// whose breaker is not closed first, then by key.
fn rows(map: &dyn EndpointRows, now: Instant) -> Value {
    let mut rows: Vec<(String, CircuitState, f64, &'static str)> = map
        .views()
        .into_iter()
        .map(|(key, view)| {
            let (state, held) = view.state_at(now);
            (key, state, held.as_secs_f64(), state.as_str())
        })
        .collect();
    rows.sort_by(|a, b| {
        let closed = |state: CircuitState| state == CircuitState::Closed;
        closed(a.1).cmp(&closed(b.1)).then_with(|| a.0.cmp(&b.0))
    });
    rows.truncate(ROWS);
    // The template every key's breaker is built from, as any one shows it.
    let template = map
        .views()
        .first()
        .map(|(_, view)| super::settings::breaker(view));
    json!({
        "prefix": map.prefix(),
        "template": template,
        "keys": map.keys(),
        "evictions": map.evictions(),
        "rows": rows
            .into_iter()
            .map(|(key, _, held, state)| json!({ "key": key, "state": state, "for_s": held }))
            .collect::<Vec<_>>(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CircuitBreaker;
    use crate::endpoint::EndpointBreakers;

    #[test]
    fn a_tile_lists_the_open_keys_first_and_at_most_its_rows() {
        let breakers = Arc::new(
            EndpointBreakers::builder("dashboard.endpoints")
                .template(CircuitBreaker::builder().failure_threshold(1))
                .build()
                .unwrap(),
        );
        let now = Instant::now();
        for i in 0..40 {
            breakers.get(&format!("h{i:02}:80"));
        }
        let sick = breakers.get("h37:80");
        sick.try_acquire(now).unwrap().record_failure(now);
        let rows: Weak<dyn EndpointRows> = Arc::downgrade(&breakers) as _;
        show_endpoints("dashboard.endpoints.op", rows.clone());
        show_endpoints("dashboard.endpoints.op", rows);

        let maps = endpoints_of("dashboard.endpoints.op", now);
        assert_eq!(maps.len(), 1, "one map, shown once");
        let map = &maps[0];
        assert_eq!(map["prefix"], "dashboard.endpoints");
        assert_eq!(map["keys"], 40);
        assert_eq!(map["evictions"], 0);
        let rows = map["rows"].as_array().unwrap();
        assert_eq!(rows.len(), ROWS);
        assert_eq!(rows[0]["key"], "h37:80");
        assert_eq!(rows[0]["state"], "open");
        assert_eq!(rows[1]["key"], "h00:80");
        assert_eq!(rows[1]["state"], "closed");

        // A map dropped leaves the tile.
        drop((sick, breakers));
        assert!(endpoints_of("dashboard.endpoints.op", now).is_empty());
    }
}

//! [`Tally`]: one operation's running counts, kept in atomics so that a
//! finished call adds to them without a lock or an allocation.
//!
//! Every count only grows. Rates over a window are differences between two
//! readings taken by whoever watches (the dashboard reads every second),
//! so the call itself never looks at the time: a call that succeeds at once
//! costs one atomic add, to its latency bucket, and a failed call one more
//! per thing that went wrong.

#[cfg(any(feature = "metrics", feature = "dashboard"))]
use std::sync::atomic::AtomicBool;
#[cfg(feature = "dashboard")]
use std::sync::atomic::AtomicU64;
#[cfg(any(feature = "metrics", feature = "dashboard"))]
use std::sync::atomic::Ordering;

/// Counts of one operation, for metrics and the dashboard. Not public API:
/// the attribute gives each annotated function one, in a `static`, so that
/// finding it costs nothing; other operations find theirs by name.
#[doc(hidden)]
#[derive(Debug)]
pub struct Tally {
    /// Whether the operation has announced itself (its zero series, its
    /// entry in the registry).
    #[cfg(any(feature = "metrics", feature = "dashboard"))]
    registered: AtomicBool,
    #[cfg(feature = "dashboard")]
    pub(crate) counts: Counts,
    /// The operation's limiters, as its first call found them.
    #[cfg(any(feature = "metrics", feature = "dashboard"))]
    limit_rows: std::sync::OnceLock<Box<[&'static super::levels::Row]>>,
    /// The keys of the series its calls record, made on their first use.
    #[cfg(feature = "metrics")]
    keys: super::keys::CallKeys,
    /// The operation's entry in the installed configuration, by
    /// generation.
    #[cfg(feature = "config")]
    pub(crate) config: crate::config::Cache,
}

/// The keys a tally keeps: none without the `metrics` feature.
#[cfg(feature = "metrics")]
type Keys = super::keys::CallKeys;
#[cfg(not(feature = "metrics"))]
type Keys = ();

impl Tally {
    /// An empty tally, for a `static`.
    #[allow(clippy::new_without_default)]
    pub const fn new() -> Self {
        #[cfg(feature = "metrics")]
        let keys = super::keys::CallKeys::new();
        #[cfg(not(feature = "metrics"))]
        let keys = ();
        Tally::with_keys(keys)
    }

    /// An empty tally, for the `static` of the operation called
    /// `operation`: with the `metrics` feature, it holds the labels of the
    /// series each call records, written by the compiler, so that no call
    /// makes a key.
    #[cfg_attr(not(feature = "metrics"), allow(unused_variables))]
    pub const fn named(operation: &'static str) -> Self {
        #[cfg(feature = "metrics")]
        let keys = super::keys::CallKeys::named(operation);
        #[cfg(not(feature = "metrics"))]
        let keys = ();
        Tally::with_keys(keys)
    }

    /// The tally of every operation past the limit on names, counted
    /// under `label` ([`OVERFLOW`](super::cardinality::OVERFLOW)) whatever
    /// its name.
    #[cfg(any(feature = "metrics", feature = "dashboard"))]
    #[cfg_attr(not(feature = "metrics"), allow(unused_variables))]
    pub(crate) const fn overflow(label: &'static str) -> Self {
        #[cfg(feature = "metrics")]
        let keys = super::keys::CallKeys::folding(label);
        #[cfg(not(feature = "metrics"))]
        let keys = ();
        Tally::with_keys(keys)
    }

    const fn with_keys(keys: Keys) -> Self {
        #[cfg(not(feature = "metrics"))]
        let () = keys;
        Tally {
            #[cfg(any(feature = "metrics", feature = "dashboard"))]
            registered: AtomicBool::new(false),
            #[cfg(feature = "dashboard")]
            counts: Counts::new(),
            #[cfg(any(feature = "metrics", feature = "dashboard"))]
            limit_rows: std::sync::OnceLock::new(),
            #[cfg(feature = "metrics")]
            keys,
            #[cfg(feature = "config")]
            config: crate::config::Cache::new(),
        }
    }

    /// The keys of the series the operation's calls record.
    #[cfg(feature = "metrics")]
    #[inline]
    pub(crate) fn keys(&'static self) -> &'static super::keys::CallKeys {
        &self.keys
    }

    /// The operation's limiters, as its first call found them.
    #[cfg(any(feature = "metrics", feature = "dashboard"))]
    #[inline]
    pub(crate) fn limit_rows(&self) -> &[&'static super::levels::Row] {
        self.limit_rows.get().map_or(&[], |rows| rows)
    }

    #[cfg(any(feature = "metrics", feature = "dashboard"))]
    pub(crate) fn set_limit_rows(&self, rows: Box<[&'static super::levels::Row]>) {
        let _ = self.limit_rows.set(rows);
    }

    /// Whether this call is the first to see the tally: true exactly once.
    #[cfg(any(feature = "metrics", feature = "dashboard"))]
    #[inline]
    pub(crate) fn first_use(&self) -> bool {
        !self.registered.load(Ordering::Relaxed) && !self.registered.swap(true, Ordering::AcqRel)
    }
}

/// Latency buckets: four per doubling, from 1 µs (everything shorter is in
/// the first) to about 18 minutes (everything longer is in the last).
/// A percentile read from them is within 12.5 % of the truth.
#[cfg(feature = "dashboard")]
pub(crate) const BUCKETS: usize = 122;

/// The first bucket's upper bound, 2¹⁰ ns.
#[cfg(feature = "dashboard")]
const FLOOR_BITS: u32 = 10;

/// The bucket of a call that took `nanos`.
#[cfg(feature = "dashboard")]
#[inline]
pub(crate) fn bucket(nanos: u64) -> usize {
    if nanos < 1 << FLOOR_BITS {
        return 0;
    }
    let exponent = 63 - nanos.leading_zeros();
    let quarter = (nanos >> (exponent - 2)) & 3;
    let index = (exponent - FLOOR_BITS) as usize * 4 + quarter as usize + 1;
    index.min(BUCKETS - 1)
}

/// The nanoseconds bucket `index` stands for: the middle of its range.
#[cfg(feature = "dashboard")]
pub(crate) fn bucket_middle(index: usize) -> u64 {
    if index == 0 {
        return 1 << (FLOOR_BITS - 1);
    }
    let step = (index - 1) as u32;
    let exponent = FLOOR_BITS + step / 4;
    let low = (4 + u64::from(step % 4)) << (exponent - 2);
    let width = 1u64 << (exponent - 2);
    low + width / 2
}

/// The counts themselves.
#[cfg(feature = "dashboard")]
#[derive(Debug)]
pub(crate) struct Counts {
    /// Finished calls by duration; their sum is the number of calls.
    pub(crate) latency: [AtomicU64; BUCKETS],
    /// Calls whose result was an error, after any fallback.
    pub(crate) failed: AtomicU64,
    pub(crate) retries: AtomicU64,
    /// Calls that ran a fallback.
    pub(crate) fallbacks: AtomicU64,
    /// Calls an open breaker ended.
    pub(crate) rejected: AtomicU64,
    /// The throttle's tokens after the latest call, in thousandths;
    /// `u64::MAX` for an operation without a throttle.
    pub(crate) throttle_milli: AtomicU64,
    /// The throttle's `max_tokens`, with the same convention.
    pub(crate) throttle_max: AtomicU64,
    /// The adaptive throttle's state after the latest call.
    pub(crate) adaptive: AdaptiveRow,
    /// The settings the operation was built with (the attribute's, the
    /// builder's, the layer's), as the first call that built them had
    /// them: its tile shows them, with the installed configuration's
    /// entry applied. Unknown while its calls only succeeded at once
    /// without a build (a function under the attribute builds its
    /// operation when a first attempt fails, or when the configuration has
    /// its name).
    pub(crate) settings: std::sync::OnceLock<crate::settings::Settings>,
}

#[cfg(feature = "dashboard")]
impl Counts {
    const fn new() -> Self {
        Counts {
            latency: [const { AtomicU64::new(0) }; BUCKETS],
            failed: AtomicU64::new(0),
            retries: AtomicU64::new(0),
            fallbacks: AtomicU64::new(0),
            rejected: AtomicU64::new(0),
            throttle_milli: AtomicU64::new(u64::MAX),
            throttle_max: AtomicU64::new(u64::MAX),
            adaptive: AdaptiveRow::new(),
            settings: std::sync::OnceLock::new(),
        }
    }
}

/// An operation's adaptive throttle, as of its latest call: its name,
/// its window's requests and accepts, its probability (the bits of an
/// `f64`) and its rejections.
#[cfg(feature = "dashboard")]
#[derive(Debug)]
pub(crate) struct AdaptiveRow {
    name: std::sync::OnceLock<&'static str>,
    requests: AtomicU64,
    accepts: AtomicU64,
    probability: AtomicU64,
    rejections: AtomicU64,
}

#[cfg(feature = "dashboard")]
impl AdaptiveRow {
    const fn new() -> Self {
        AdaptiveRow {
            name: std::sync::OnceLock::new(),
            requests: AtomicU64::new(0),
            accepts: AtomicU64::new(0),
            probability: AtomicU64::new(0),
            rejections: AtomicU64::new(0),
        }
    }

    /// Keeps `reading`, the latest.
    pub(crate) fn keep(&self, reading: &crate::throttle::Reading) {
        use std::sync::atomic::Ordering::Relaxed;
        let _ = self.name.set(reading.name);
        self.requests.store(reading.requests, Relaxed);
        self.accepts.store(reading.accepts, Relaxed);
        self.probability
            .store(reading.probability.to_bits(), Relaxed);
        self.rejections.store(reading.rejections, Relaxed);
    }

    /// The latest reading kept: `(name, requests, accepts, probability,
    /// rejections)`; `None` for an operation without an adaptive throttle.
    pub(crate) fn read(&self) -> Option<(&'static str, u64, u64, f64, u64)> {
        use std::sync::atomic::Ordering::Relaxed;
        let name = *self.name.get()?;
        Some((
            name,
            self.requests.load(Relaxed),
            self.accepts.load(Relaxed),
            f64::from_bits(self.probability.load(Relaxed)),
            self.rejections.load(Relaxed),
        ))
    }
}

#[cfg(all(test, feature = "dashboard"))]
mod tests {
    use super::*;

    #[test]
    fn buckets_cover_every_duration_in_order() {
        assert_eq!(bucket(0), 0);
        assert_eq!(bucket(1023), 0);
        assert_eq!(bucket(1024), 1);
        assert_eq!(bucket(u64::MAX), BUCKETS - 1);
        let mut last = 0;
        for shift in 10..62 {
            for quarter in 0..4u64 {
                let nanos = (4 + quarter) << (shift - 2);
                let index = bucket(nanos);
                assert!(index >= last, "{nanos} ns fell before a shorter time");
                last = index;
            }
        }
    }

    #[test]
    fn a_bucket_middle_is_within_an_eighth_of_the_times_it_holds() {
        for nanos in [
            1_500u64,
            10_000,
            250_000,
            3_000_000,
            45_000_000,
            2_000_000_000,
        ] {
            let middle = bucket_middle(bucket(nanos)) as f64;
            let error = (middle - nanos as f64).abs() / nanos as f64;
            assert!(error <= 0.125, "{nanos} ns read back as {middle}");
        }
    }
}

//! The bound on operation names (features `metrics` and `dashboard`): how
//! many names given at run time are counted apart, and where the rest go.
//!
//! An operation's counts, its series' labels and its dashboard tile are
//! kept by name for as long as the process runs. A name made at run time
//! (`name = format!("tenant-{id}")`, `Operation::name(String)`) makes one
//! more of each, so a name per tenant or per request would grow memory,
//! the scrape and the dashboard without end. Instead:
//!
//! * the first [`limit()`] distinct names (1 000 by default) are counted
//!   apart, each under its own name;
//! * the calls of every later name are counted together, under
//!   [`OVERFLOW`]: one tile, one set of series;
//! * [`folded()`] tells how many distinct names were counted that way (an
//!   estimate within a few percent, kept in a fixed kilobyte), as does the
//!   gauge `resilient_operation_names_folded` with `metrics`.
//!
//! A function under the attribute without a `name` has counts of its own,
//! in a `static`: their number is fixed by the program, so it is never
//! folded and doesn't count against the limit.
//!
//! The breakers of an [`EndpointBreakers`](crate::endpoint::EndpointBreakers)
//! are named at run time too, one per key: the first [`limit()`] of their
//! names label their `resilient_circuit_state` gauge, each its own; the
//! gauges of every later one share the label `"{prefix}/resilient.overflow"`
//! (the state of the latest transition among them).
//!
//! Name operations after what they do (`"users.get"`), and put the
//! tenant, the user or the request in the report, a `tracing` span or a
//! log line, which keep no state per value.
//!
//! ```
//! use resilient::{FakeClock, Operation, cardinality};
//!
//! for tenant in 0..3 {
//!     let result = Operation::new()
//!         .name(format!("cardinality.doc.tenant-{tenant}"))
//!         .clock(FakeClock::new())
//!         .run(|_| Ok::<_, String>(tenant))
//!         .into_result();
//!     assert_eq!(result, Ok(tenant));
//! }
//! assert!(cardinality::counted() <= cardinality::limit());
//! ```

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::{LazyLock, PoisonError, RwLock};

use super::Tally;
use super::sketch::Sketch;

/// The name under which the calls of operations past the [`limit()`] are
/// counted: on their series' `operation` label and as a tile of the
/// dashboard.
pub const OVERFLOW: &str = "resilient.overflow";

/// How many names are counted apart unless [`set_limit`] says otherwise.
///
/// A thousand names hold about 4 MB of counts with both features, keep a
/// dashboard snapshot under a megabyte, and leave room for an operation
/// per endpoint or per dependency; a name per tenant, user or request
/// exceeds any limit, and belongs in a report or a log line instead.
pub const DEFAULT_LIMIT: usize = 1_000;

static LIMIT: AtomicUsize = AtomicUsize::new(DEFAULT_LIMIT);

/// The counts of every name past the limit.
static OVERFLOWED: Tally = Tally::overflow(OVERFLOW);

/// The distinct names past the limit.
static FOLDED: Sketch = Sketch::new();

/// The tallies of operations that have none of their own, by name. Each
/// lives as long as the process, like a `static` one; there are at most
/// [`limit()`] of them, whatever the limit was when each was made.
static NAMED: LazyLock<RwLock<HashMap<Cow<'static, str>, &'static Tally>>> =
    LazyLock::new(Default::default);

/// How many names given at run time are counted apart at most: those seen
/// first. Default [`DEFAULT_LIMIT`].
///
/// ```
/// assert_eq!(resilient::cardinality::limit(), resilient::cardinality::DEFAULT_LIMIT);
/// ```
pub fn limit() -> usize {
    LIMIT.load(Relaxed)
}

/// Sets how many names given at run time are counted apart, for the whole
/// process: at start-up, before the first call. Any number is accepted; 0
/// counts every such name under [`OVERFLOW`]. A limit lowered under the
/// names already counted keeps them, and folds every new one; a limit
/// raised counts the next new names apart again.
///
/// ```
/// resilient::cardinality::set_limit(5_000);
/// assert_eq!(resilient::cardinality::limit(), 5_000);
/// ```
pub fn set_limit(limit: usize) {
    LIMIT.store(limit, Relaxed);
}

/// How many names given at run time are counted apart now: at most the
/// limit, unless it was lowered under them.
///
/// ```
/// use resilient::{FakeClock, Operation, cardinality};
///
/// let before = cardinality::counted();
/// Operation::new()
///     .name(String::from("cardinality.doc.counted"))
///     .clock(FakeClock::new())
///     .run(|_| Ok::<_, String>(()))
///     .into_result()
///     .unwrap();
/// assert_eq!(cardinality::counted(), before + 1);
/// ```
pub fn counted() -> usize {
    NAMED.read().unwrap_or_else(PoisonError::into_inner).len()
}

/// How many distinct names were counted under [`OVERFLOW`] so far, since
/// the limit was reached: an estimate, exact for a few and within about
/// 3 % for many.
///
/// ```
/// // Nothing folded unless more names than the limit were seen.
/// let _folded: u64 = resilient::cardinality::folded();
/// ```
pub fn folded() -> u64 {
    FOLDED.estimate()
}

/// The tally of the operation called `name`, made on its first call while
/// fewer names than the limit are counted; the overflow's once they are.
pub(crate) fn tally_named(name: &str) -> &'static Tally {
    let named = NAMED.read().unwrap_or_else(PoisonError::into_inner);
    if let Some(tally) = named.get(name) {
        return tally;
    }
    if named.len() >= limit() {
        return &OVERFLOWED;
    }
    drop(named);
    make(name)
}

#[cold]
#[inline(never)]
fn make(name: &str) -> &'static Tally {
    let mut named = NAMED.write().unwrap_or_else(PoisonError::into_inner);
    if let Some(tally) = named.get(name) {
        return tally;
    }
    if named.len() >= limit() {
        return &OVERFLOWED;
    }
    let tally: &'static Tally = Box::leak(Box::new(Tally::new()));
    named.insert(Cow::Owned(name.to_owned()), tally);
    tally
}

/// The names of per-endpoint breakers that label their gauges.
#[cfg(feature = "metrics")]
static BREAKER_LABELS: LazyLock<RwLock<std::collections::HashSet<String>>> =
    LazyLock::new(Default::default);

/// The `breaker` label of the gauge of a breaker of the endpoint map
/// `prefix`, called `name`: its name, for the first [`limit()`] names;
/// `"{prefix}/resilient.overflow"` past them.
#[cfg(feature = "metrics")]
pub(crate) fn breaker_label(prefix: &str, name: &str) -> Cow<'static, str> {
    let labels = BREAKER_LABELS
        .read()
        .unwrap_or_else(PoisonError::into_inner);
    if labels.contains(name) {
        return Cow::Owned(name.to_owned());
    }
    if labels.len() >= limit() {
        return Cow::Owned(format!("{prefix}/{OVERFLOW}"));
    }
    drop(labels);
    let mut labels = BREAKER_LABELS
        .write()
        .unwrap_or_else(PoisonError::into_inner);
    if labels.len() >= limit() && !labels.contains(name) {
        return Cow::Owned(format!("{prefix}/{OVERFLOW}"));
    }
    labels.insert(name.to_owned());
    Cow::Owned(name.to_owned())
}

/// Whether `tally` is the one of the names past the limit.
#[inline]
pub(crate) fn is_overflow(tally: &Tally) -> bool {
    std::ptr::eq(tally, &OVERFLOWED)
}

/// The name the counts of an operation called `name`, kept in `tally`,
/// go under.
#[inline]
pub(crate) fn name_of<'a>(name: &'a str, tally: &Tally) -> &'a str {
    if is_overflow(tally) { OVERFLOW } else { name }
}

/// A call of `name` was counted under [`OVERFLOW`].
#[cold]
pub(crate) fn fold(name: &str) {
    if FOLDED.see(name) {
        #[cfg(feature = "metrics")]
        folded_gauge(FOLDED.estimate());
    }
}

/// Sets the gauge of names counted under [`OVERFLOW`].
#[cfg(feature = "metrics")]
pub(crate) fn folded_gauge(estimate: u64) {
    ::metrics::gauge!(crate::catalog::NAMES_FOLDED).set(estimate as f64);
}

/// The `operation` label of a series an operation called `name` records
/// without its tally: [`OVERFLOW`] for a name made at run time that isn't
/// counted apart now that the limit is reached.
///
/// A `&'static str` name is its own label: such names are as many as the
/// program writes, and an attribute's function, whose counts are its own,
/// is named by one.
// The `Cow` itself, not a `&str`: whether it borrows a `&'static str` is
// what decides.
#[allow(clippy::ptr_arg)]
pub(crate) fn label(name: &Cow<'static, str>) -> Cow<'static, str> {
    match name {
        Cow::Borrowed(_) => name.clone(),
        Cow::Owned(owned) => {
            let named = NAMED.read().unwrap_or_else(PoisonError::into_inner);
            if named.len() < limit() || named.contains_key(owned.as_str()) {
                name.clone()
            } else {
                Cow::Borrowed(OVERFLOW)
            }
        }
    }
}

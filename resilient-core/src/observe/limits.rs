//! The limiters operations use, as operators see them: each limiter's
//! in-flight count and current limit, and each operation's refusals by
//! each of its limiters. Nothing is listed by hand: a limiter enters on
//! the first call of an operation that uses it (or its first refusal).
//!
//! A limiter is any `&dyn Limiter`, borrowed for one call only, so what is
//! kept is a reading of it: a [`Level`] per limiter name, written when each
//! call that used it ends (after its permits came back) and read by
//! [`refresh`](super::series::refresh) and the dashboard. Writing it costs
//! two virtual calls and two relaxed stores per limiter, no lock and no
//! allocation: the operation's [`Tally`] keeps its rows, found on its
//! first call.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{LazyLock, Mutex, PoisonError};

use super::Tally;
use super::levels::{Row, level_of};
use crate::limit::{LimitExceeded, Limiter};

/// Every row, by operation and limiter name.
static ROWS: LazyLock<Mutex<HashMap<(String, &'static str), &'static Row>>> =
    LazyLock::new(Default::default);

/// The row of `limiter` on the operation called `operation`, made the
/// first time, when the limiter joins the operation's tile.
fn row_of(operation: &str, limiter: &dyn Limiter) -> &'static Row {
    let key = (operation.to_owned(), limiter.name());
    let mut rows = ROWS.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(row) = rows.get(&key) {
        return row;
    }
    let row: &'static Row = Box::leak(Box::new(Row {
        level: level_of(limiter),
        rejections: AtomicU64::new(0),
        shed: Default::default(),
    }));
    rows.insert(key, row);
    #[cfg(feature = "metrics")]
    super::series::limiter_joined(operation, row.level);
    #[cfg(feature = "dashboard")]
    super::dashboard::show_limit(operation.to_owned(), row.level.name, row);
    row
}

/// The first call of an operation: its limiters join it, in order.
#[cold]
pub(crate) fn first_call(operation: &str, tally: &Tally, limiters: &[&dyn Limiter]) {
    let rows = limiters
        .iter()
        .map(|limiter| row_of(operation, *limiter))
        .collect();
    tally.set_limit_rows(rows);
}

/// A call of `operation` ended: reads the levels of its limiters. A
/// limiter its first call didn't use is read on a slower way.
#[inline]
pub(crate) fn call_ended(operation: &str, tally: &Tally, limiters: &[&dyn Limiter]) {
    let rows = tally.limit_rows();
    for (index, limiter) in limiters.iter().enumerate() {
        match rows.get(index) {
            Some(row) if row.level.name == limiter.name() => row.level.sample(*limiter),
            _ => not_on_first_call(operation, *limiter),
        }
    }
}

#[cold]
#[inline(never)]
fn not_on_first_call(operation: &str, limiter: &dyn Limiter) {
    row_of(operation, limiter).level.sample(limiter);
}

/// The limiter of `limiters` named in `refusal` refused an attempt of
/// `operation`: counted on the overflow's row for a name past the limit on
/// names.
#[cold]
// The `Cow` itself, for `cardinality::label`.
#[allow(clippy::ptr_arg)]
pub(crate) fn refused(
    operation: &Cow<'static, str>,
    limiters: &[&dyn Limiter],
    refusal: &LimitExceeded,
) {
    let Some(limiter) = limiters.iter().find(|l| l.name() == refusal.limiter()) else {
        return;
    };
    let row = row_of(&super::cardinality::label(operation), *limiter);
    row.rejections.fetch_add(1, Relaxed);
    if let Some(priority) = refusal.shed_priority() {
        row.shed[priority as usize].fetch_add(1, Relaxed);
    }
    row.level.sample(*limiter);
}

/// A row on its operation's tile: the limiter's level, and the
/// operation's refusals.
#[cfg(feature = "dashboard")]
impl super::dashboard::LimitGauge for Row {
    fn in_flight(&self) -> Option<u64> {
        self.level.in_flight()
    }

    fn limit(&self) -> Option<u64> {
        self.level.current()
    }

    fn rejections(&self) -> Option<u64> {
        Some(self.rejections.load(Relaxed))
    }

    fn shed(&self) -> [u64; 5] {
        self.shed.each_ref().map(|count| count.load(Relaxed))
    }
}

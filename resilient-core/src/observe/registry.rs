//! The operations the dashboard shows, found without a list to maintain:
//! an operation enters on its first call.
//!
//! Nothing here is on a call's way: only an operation's first call adds
//! to it. The operations are as many as the tallies: the functions under
//! the attribute, at most [`limit()`](super::cardinality::limit) names
//! given at run time, and the overflow.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, LazyLock, PoisonError, RwLock, Weak};

use super::Tally;
use crate::breaker::View;

/// An operation's name.
pub(crate) type Name = Cow<'static, str>;

/// An operation, as the dashboard lists it.
#[derive(Debug)]
pub(crate) struct Registered {
    pub(crate) name: Name,
    pub(crate) tally: &'static Tally,
    /// The breaker its first call consulted.
    pub(crate) breaker: Option<Weak<View>>,
    /// Its tile, numbered in the order of first calls: operations of one
    /// name (two methods called `get`) share one.
    pub(crate) row: usize,
}

#[derive(Default)]
struct Operations {
    entries: Vec<Arc<Registered>>,
    /// The row of each name.
    rows: HashMap<Name, usize>,
}

static OPERATIONS: LazyLock<RwLock<Operations>> = LazyLock::new(Default::default);

/// Registers an operation on its first call.
pub(crate) fn add_operation(name: Name, tally: &'static Tally, breaker: Option<Weak<View>>) {
    let mut operations = OPERATIONS.write().unwrap_or_else(PoisonError::into_inner);
    let next = operations.rows.len();
    let row = *operations.rows.entry(name.clone()).or_insert(next);
    operations.entries.push(Arc::new(Registered {
        name,
        tally,
        breaker,
        row,
    }));
}

/// Every operation called so far, in the order of their first calls.
pub(crate) fn operations() -> Vec<Arc<Registered>> {
    OPERATIONS
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .entries
        .clone()
}

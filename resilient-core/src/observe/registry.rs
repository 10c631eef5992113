//! The operations in use, found without a list to maintain: an operation
//! enters on its first call.
//!
//! Nothing here is on a call's way: an operation with a tally of its own
//! (every function under the attribute) reads none of it after its first
//! call. An operation without one finds its tally here by name, under a
//! read lock.

use std::borrow::Cow;
use std::collections::HashMap;
#[cfg(feature = "dashboard")]
use std::sync::{Arc, Weak};
use std::sync::{LazyLock, PoisonError, RwLock};

use super::Tally;
#[cfg(feature = "dashboard")]
use crate::breaker::View;

/// An operation's name.
pub(crate) type Name = Cow<'static, str>;

/// The tallies of operations that have none of their own, by name. Each
/// lives as long as the process, like a `static` one: there is one per
/// name an operation was ever given.
static NAMED: LazyLock<RwLock<HashMap<Name, &'static Tally>>> = LazyLock::new(Default::default);

/// The tally of the operation called `name`, made on its first call.
pub(crate) fn tally_named(name: &str) -> &'static Tally {
    let found = NAMED
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .get(name)
        .copied();
    found.unwrap_or_else(|| {
        let mut named = NAMED.write().unwrap_or_else(PoisonError::into_inner);
        named
            .entry(Cow::Owned(name.to_owned()))
            .or_insert_with(|| Box::leak(Box::new(Tally::new())))
    })
}

/// An operation, as the dashboard lists it.
#[cfg(feature = "dashboard")]
#[derive(Debug)]
pub(crate) struct Entry {
    pub(crate) name: Name,
    pub(crate) tally: &'static Tally,
    /// The breaker its first call consulted.
    pub(crate) breaker: Option<Weak<View>>,
}

#[cfg(feature = "dashboard")]
static OPERATIONS: RwLock<Vec<Arc<Entry>>> = RwLock::new(Vec::new());

/// Registers an operation on its first call.
#[cfg(feature = "dashboard")]
pub(crate) fn add_operation(entry: Entry) {
    let mut operations = OPERATIONS.write().unwrap_or_else(PoisonError::into_inner);
    operations.push(Arc::new(entry));
}

/// Every operation called so far, in the order of their first calls.
#[cfg(feature = "dashboard")]
pub(crate) fn operations() -> Vec<Arc<Entry>> {
    OPERATIONS
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .clone()
}

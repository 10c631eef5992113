//! Orders given to breakers by name ([`isolate`], [`reset`]): what an
//! operator does to a breaker without holding it, as the dashboard's
//! controls do to the breakers handed to them.
//!
//! Every breaker registers its end of the orders ([`BreakerOrders`]) when
//! it is built. An order is a number, later orders larger, written to each
//! live breaker of the name; a breaker obeys the latest one it has not
//! obeyed when it is next consulted (a call's `try_acquire`, a `state`
//! read): one load of its own and a compare until then.

use std::borrow::Cow;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};

/// The latest order for the breakers of one name.
#[derive(Debug)]
struct Orders {
    name: Cow<'static, str>,
    /// `sequence << 1 | isolate`; 0: none yet.
    latest: AtomicU64,
}

/// Every breaker's orders (a dropped breaker leaves a dead entry, swept
/// when a breaker is built or an order given).
static BREAKERS: Mutex<Vec<Weak<Orders>>> = Mutex::new(Vec::new());

/// The order's bit that says isolate (else reset).
const ISOLATE: u64 = 1;

/// A breaker's end of the orders given by its name.
#[derive(Debug)]
pub(crate) struct BreakerOrders {
    orders: Arc<Orders>,
    /// The latest order obeyed.
    obeyed: AtomicU64,
    /// Held while an order is obeyed, so that two are obeyed in turn.
    obeying: Mutex<()>,
}

impl BreakerOrders {
    /// The orders of a breaker named `name`, registered.
    pub(crate) fn new(name: Cow<'static, str>) -> Self {
        let orders = Arc::new(Orders {
            name,
            latest: AtomicU64::new(0),
        });
        let mut breakers = BREAKERS.lock().unwrap_or_else(PoisonError::into_inner);
        breakers.retain(|breaker| breaker.strong_count() > 0);
        breakers.push(Arc::downgrade(&orders));
        BreakerOrders {
            orders,
            obeyed: AtomicU64::new(0),
            obeying: Mutex::new(()),
        }
    }

    /// Obeys the latest order not obeyed yet, if there is one: `apply`
    /// isolates the breaker (`true`) or resets it (`false`).
    #[inline(always)]
    pub(crate) fn obey(&self, apply: impl FnOnce(bool)) {
        if self.orders.latest.load(Ordering::Acquire) != self.obeyed.load(Ordering::Acquire) {
            self.obey_slow(apply);
        }
    }

    #[cold]
    #[inline(never)]
    fn obey_slow(&self, apply: impl FnOnce(bool)) {
        let _turn = self.obeying.lock().unwrap_or_else(PoisonError::into_inner);
        let latest = self.orders.latest.load(Ordering::Acquire);
        if latest == self.obeyed.load(Ordering::Acquire) {
            return;
        }
        apply(latest & ISOLATE != 0);
        self.obeyed.store(latest, Ordering::Release);
    }
}

/// Gives `isolate` (or a reset) to every live breaker named `name`;
/// whether there was one.
fn order(name: &str, isolate: bool) -> bool {
    static SEQUENCE: AtomicU64 = AtomicU64::new(0);
    let mut breakers = BREAKERS.lock().unwrap_or_else(PoisonError::into_inner);
    breakers.retain(|breaker| breaker.strong_count() > 0);
    // Under the lock: orders are written in the order of their numbers.
    let sequence = SEQUENCE.fetch_add(1, Ordering::Relaxed).saturating_add(1);
    let order = sequence << 1 | u64::from(isolate);
    let mut found = false;
    for orders in breakers.iter().filter_map(Weak::upgrade) {
        if orders.name == name {
            orders.latest.store(order, Ordering::Release);
            found = true;
        }
    }
    found
}

/// Holds every live breaker built with [`.name(name)`](crate::CircuitBreakerBuilder::name)
/// open until [`reset`], as [`CircuitBreaker::isolate`](crate::CircuitBreaker::isolate)
/// does; `false` when no live breaker has that name (nothing is
/// remembered for one built later).
///
/// A breaker obeys when it is next consulted: its next call (`try_acquire`)
/// or a read of its `state`, which then reads
/// [`CircuitState::Isolated`](crate::CircuitState::Isolated).
///
/// ```
/// use resilient::{CircuitBreaker, CircuitState, config};
/// use std::time::Instant;
///
/// let breaker = CircuitBreaker::builder().name("ledger.isolate_example").build().unwrap();
/// assert!(config::isolate("ledger.isolate_example"));
/// assert_eq!(breaker.state(Instant::now()), CircuitState::Isolated);
/// assert!(config::reset("ledger.isolate_example"));
/// assert_eq!(breaker.state(Instant::now()), CircuitState::Closed);
/// assert!(!config::isolate("no.such.breaker"));
/// ```
pub fn isolate(name: &str) -> bool {
    order(name, true)
}

/// Closes every live breaker built with [`.name(name)`](crate::CircuitBreakerBuilder::name)
/// and clears its counts, lifting an [`isolate`], as
/// [`CircuitBreaker::reset`](crate::CircuitBreaker::reset) does; `false`
/// when no live breaker has that name. Obeyed as [`isolate`] is.
pub fn reset(name: &str) -> bool {
    order(name, false)
}

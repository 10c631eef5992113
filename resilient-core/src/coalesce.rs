//! [`Coalesce`]: concurrent calls with the same key share one execution
//! (Go's `singleflight`, tower-resilience's `coalesce`), and each gets
//! its result.
//!
//! The first caller of a key starts the execution; a caller that comes
//! while it runs joins it, and is handed a clone of its value or error
//! and of its report, marked [`coalesced`](crate::ExecutionReport::coalesced)
//! with how long that caller waited. Whichever caller is polled drives
//! the execution, so a caller that gives up (its future dropped at any
//! await) doesn't cancel it while others wait; the last one to give up
//! does, and a later caller of the key starts afresh. A key whose
//! execution ended is never joined again, and its entry goes when the
//! next execution starts, so memory is bounded by the executions in
//! flight and those ended since the last one started.

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::task::{Context, Poll, Wake, Waker};

use tokio::time::Instant;

use crate::report::{ExecutionReport, Outcome};

/// What one execution of a key hands each of its callers.
type Shared<T, E> = (Result<T, E>, ExecutionReport);

/// The execution itself, boxed: it outlives any one caller.
type Execution<T, E> = Pin<Box<dyn Future<Output = Outcome<T, E>> + Send>>;

/// Concurrent calls that share one execution per key. Keep one in a
/// `static` per kind of call; the value and the error must be `Clone`
/// (an `Arc` around either serves).
///
/// ```
/// use resilient::coalesce::Coalesce;
/// use resilient::{Operation, Outcome};
/// use std::sync::atomic::{AtomicU32, Ordering};
///
/// static PROFILES: Coalesce<String, String> = Coalesce::new();
/// static FETCHES: AtomicU32 = AtomicU32::new(0);
///
/// async fn profile(id: u32) -> Outcome<String, String> {
///     PROFILES
///         .run(id.to_string(), move || async move {
///             Operation::new()
///                 .max_attempts(3)
///                 .run_async(|_| async move {
///                     FETCHES.fetch_add(1, Ordering::Relaxed);
///                     tokio::task::yield_now().await;
///                     Ok::<_, String>(format!("user {id}"))
///                 })
///                 .await
///         })
///         .await
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let (a, b) = tokio::join!(profile(7), profile(7));
/// assert_eq!(FETCHES.load(Ordering::Relaxed), 1, "one execution for both");
/// assert_eq!(a.result(), &Ok("user 7".to_owned()));
/// assert_eq!(b.result(), &Ok("user 7".to_owned()));
/// assert_eq!(a.report().coalesced(), None, "the first caller ran it");
/// assert!(b.report().coalesced().is_some(), "the second joined it");
/// # }
/// ```
pub struct Coalesce<T, E> {
    flights: Mutex<BTreeMap<String, Weak<Flight<T, E>>>>,
    name: &'static str,
}

impl<T, E> Default for Coalesce<T, E> {
    fn default() -> Self {
        Coalesce::new()
    }
}

impl<T, E> std::fmt::Debug for Coalesce<T, E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Coalesce")
            .field("name", &self.name)
            .field("in_flight", &self.in_flight())
            .finish()
    }
}

impl<T, E> Coalesce<T, E> {
    /// No execution in flight, named `"coalesce"`. `const`, for a `static`.
    pub const fn new() -> Coalesce<T, E> {
        Coalesce {
            flights: Mutex::new(BTreeMap::new()),
            name: "coalesce",
        }
    }

    /// The same group under another name: the `group` label of the
    /// counter of its calls (feature `metrics`),
    /// `resilient_coalesced_calls_total{group, joined}`.
    ///
    /// ```
    /// use resilient::coalesce::Coalesce;
    ///
    /// static PROFILES: Coalesce<String, String> = Coalesce::new().named("profiles");
    /// assert_eq!(PROFILES.name(), "profiles");
    /// ```
    pub const fn named(mut self, name: &'static str) -> Coalesce<T, E> {
        self.name = name;
        self
    }

    /// Its name.
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// The keys whose execution is in flight.
    pub fn in_flight(&self) -> usize {
        self.flights
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .values()
            .filter_map(Weak::upgrade)
            .filter(|flight| flight.running())
            .count()
    }
}

impl<T, E> Coalesce<T, E>
where
    T: Clone + Send + 'static,
    E: Clone + Send + 'static,
{
    /// Runs `execute()` for `key`, or joins the execution of `key` in
    /// flight: either way, its outcome. `execute` runs only when no
    /// execution of `key` is in flight, and its future must be `'static`,
    /// since a caller other than the one that started it may drive it to
    /// its end.
    pub fn run<F, Fut>(&self, key: impl Into<String>, execute: F) -> Joined<T, E>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Outcome<T, E>> + Send + 'static,
    {
        let key = key.into();
        let mut flights = self.flights.lock().unwrap_or_else(PoisonError::into_inner);
        // A flight that has ended is not joined: its callers were
        // concurrent with it, and this one comes after.
        if let Some(flight) = flights.get(&key).and_then(Weak::upgrade)
            && flight.running()
        {
            counted(self.name, true);
            return Joined {
                flight,
                joined: Some(Instant::now()),
            };
        }
        // Forgetting a key whose callers all gave up happens here, where
        // a new one is added, so the map holds at most the flights alive
        // plus those given up since the last addition.
        flights.retain(|_, flight| flight.strong_count() > 0);
        let flight = Arc::new(Flight {
            state: Mutex::new(State::Running(Some(Box::pin(execute())))),
            wakers: Arc::new(Wakers::default()),
        });
        flights.insert(key, Arc::downgrade(&flight));
        counted(self.name, false);
        Joined {
            flight,
            joined: None,
        }
    }
}

/// Counts a call of the group `name`: one that joined an execution in
/// flight, or one that started its own.
#[cfg_attr(not(feature = "metrics"), allow(unused_variables))]
fn counted(name: &'static str, joined: bool) {
    #[cfg(feature = "metrics")]
    {
        crate::catalog::describe();
        metrics::counter!(
            crate::catalog::COALESCED,
            "group" => name,
            "joined" => if joined { "true" } else { "false" }
        )
        .increment(1);
    }
}

/// One key's execution, shared by its callers.
struct Flight<T, E> {
    state: Mutex<State<T, E>>,
    /// The callers waiting while another polls the execution.
    wakers: Arc<Wakers>,
}

impl<T, E> Flight<T, E> {
    fn running(&self) -> bool {
        matches!(
            *self.state.lock().unwrap_or_else(PoisonError::into_inner),
            State::Running(_)
        )
    }
}

enum State<T, E> {
    /// In flight; `None` while a caller is polling it.
    Running(Option<Execution<T, E>>),
    Done(Shared<T, E>),
    /// It panicked while a caller polled it; that caller's panic goes on,
    /// and every other caller panics too rather than wait for ever.
    Panicked,
}

/// Marks the flight panicked if the execution panics: held while a
/// caller polls it outside the lock.
struct Polling<'f, T, E>(&'f Flight<T, E>);

impl<T, E> Drop for Polling<'_, T, E> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            *self.0.state.lock().unwrap_or_else(PoisonError::into_inner) = State::Panicked;
            Wake::wake_by_ref(&self.0.wakers);
        }
    }
}

/// Wakes every caller waiting on an execution: the waker its future is
/// polled with, so that whichever caller is woken drives it on.
#[derive(Default)]
struct Wakers(Mutex<Vec<Waker>>);

impl Wakers {
    fn add(&self, waker: &Waker) {
        let mut wakers = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if !wakers.iter().any(|known| known.will_wake(waker)) {
            wakers.push(waker.clone());
        }
    }
}

impl Wake for Wakers {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        let wakers = std::mem::take(&mut *self.0.lock().unwrap_or_else(PoisonError::into_inner));
        for waker in wakers {
            waker.wake();
        }
    }
}

/// A caller's share of an execution: a future of its outcome. Dropping
/// it gives up on the execution, which goes on while another caller
/// waits on it.
#[must_use = "a joined call does nothing unless awaited"]
pub struct Joined<T, E> {
    flight: Arc<Flight<T, E>>,
    /// When this caller joined an execution it didn't start (tokio's
    /// clock, which is the system's outside a paused runtime).
    joined: Option<Instant>,
}

impl<T: Clone, E: Clone> Future for Joined<T, E> {
    type Output = Outcome<T, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Outcome<T, E>> {
        let this = self.get_mut();
        let flight = &*this.flight;
        let mut execution = {
            let mut state = flight.state.lock().unwrap_or_else(PoisonError::into_inner);
            match &mut *state {
                State::Done(shared) => return Poll::Ready(this.outcome(shared)),
                State::Panicked => panic!("the execution this call joined panicked"),
                State::Running(execution) => match execution.take() {
                    Some(execution) => execution,
                    None => {
                        // Another caller is polling it; it wakes us.
                        flight.wakers.add(cx.waker());
                        return Poll::Pending;
                    }
                },
            }
        };
        flight.wakers.add(cx.waker());
        let waker = Waker::from(Arc::clone(&flight.wakers));
        let polling = Polling(flight);
        let polled = execution.as_mut().poll(&mut Context::from_waker(&waker));
        drop(polling);
        let mut state = flight.state.lock().unwrap_or_else(PoisonError::into_inner);
        match polled {
            Poll::Pending => {
                *state = State::Running(Some(execution));
                Poll::Pending
            }
            Poll::Ready(outcome) => {
                let (result, report) = outcome.into_parts();
                *state = State::Done((result, report));
                let State::Done(shared) = &*state else {
                    unreachable!("just set")
                };
                let ready = this.outcome(shared);
                drop(state);
                // The others take their clones.
                Wake::wake_by_ref(&flight.wakers);
                Poll::Ready(ready)
            }
        }
    }
}

impl<T: Clone, E: Clone> Joined<T, E> {
    /// This caller's outcome of the shared one: a joined caller's report
    /// says how long it waited.
    fn outcome(&self, (result, report): &Shared<T, E>) -> Outcome<T, E> {
        let mut report = report.clone();
        if let Some(joined) = self.joined {
            report.mark_coalesced(joined.elapsed());
        }
        Outcome::new(result.clone(), report)
    }
}

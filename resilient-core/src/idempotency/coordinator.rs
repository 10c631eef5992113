//! The coordinator: replay, join, or claim-run-settle one idempotent call,
//! against any [`IdempotencyStore`] (async) or a [`MemoryStore`] (blocking).

use std::future::{Future, poll_fn};
use std::marker::PhantomData;
use std::pin::pin;
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use super::{
    Claim, ClaimToken, IdempotencyError, IdempotencyInFlight, IdempotencyStatus, IdempotencyStore,
    MemoryStore,
};
use crate::Clock;

/// The shortest pause between two renewals, or before claiming a key whose
/// lease is about to end: no store's answer can make a loop spin.
const MIN_PAUSE: Duration = Duration::from_millis(1);

/// Runs `run` at most once per `key` and TTL, as far as `store` guarantees
/// it, or returns the value of the call that did.
///
/// * A success stored under `key` within its TTL is returned without running
///   anything ([`Replayed`](IdempotencyStatus::Replayed)).
/// * If another call holds `key`, this one waits for it to settle and returns
///   its value ([`Joined`](IdempotencyStatus::Joined)); if it fails, is
///   cancelled or its lease runs out, this call claims the key and runs.
///   The wait lasts at most `max_wait` (`None`: as long as the holder keeps
///   its claim alive); past it the call fails with
///   [`IdempotencyError::InFlight`].
/// * Otherwise it claims `key` and calls `run` once
///   ([`Executed`](IdempotencyStatus::Executed)), renewing the claim every
///   half lease while `run` is pending (in the same task: nothing is
///   spawned). `run` yields the result and whether its value may be stored:
///   `true` for the primary body's success, `false` for a value that must
///   not be replayed (a fallback's). A storable success is stored for `ttl`;
///   any other outcome releases the claim and stores nothing.
///
/// Dropping the returned future while `run` is pending, or a panic in
/// `run`, releases the claim at once (a store whose release needs I/O, such
/// as Redis, is released by a task spawned on the current tokio runtime;
/// without one, the claim runs out its lease).
///
/// Time comes from `clock`: `now` for the store, sleeps for the bounded wait
/// and the renewals. So `#[tokio::test(start_paused = true)]` with
/// [`TokioClock`](crate::TokioClock) drives the whole protocol in virtual
/// time.
///
/// # Errors
///
/// [`IdempotencyError`] only before `run` was called: the wait ran out, or
/// the store failed while claiming or waiting. Once `run` has been called,
/// its result is returned whatever the store does next: if storing the value
/// fails, it is returned unstored and the claim is released (or, if the
/// store is unreachable, runs out its lease), so a later call runs again. A
/// call that lost its claim (its lease ran out unrenewed and another call
/// took the key) also returns its value unstored.
///
/// ```
/// use resilient::TokioClock;
/// use resilient::idempotency::{run_idempotent, IdempotencyError, IdempotencyStatus, MemoryStore, DEFAULT_TTL};
/// use std::time::Duration;
///
/// # #[tokio::main(flavor = "current_thread", start_paused = true)]
/// # async fn main() {
/// let store = MemoryStore::new();
/// let slow = || async {
///     tokio::time::sleep(Duration::from_secs(10)).await;
///     (Ok::<_, String>("done"), true)
/// };
/// let impatient = || async { (Ok::<_, String>("never runs"), true) };
///
/// let (leader, waiter) = tokio::join!(
///     run_idempotent(&store, "job-1", DEFAULT_TTL, None, &TokioClock, slow),
///     run_idempotent(&store, "job-1", DEFAULT_TTL, Some(Duration::from_secs(2)), &TokioClock, impatient),
/// );
/// assert_eq!(leader.unwrap(), (Ok("done"), IdempotencyStatus::Executed));
/// assert!(matches!(waiter, Err(IdempotencyError::InFlight(_))));
/// # }
/// ```
pub async fn run_idempotent<T, E, S, C, F, Fut>(
    store: &S,
    key: &str,
    ttl: Duration,
    max_wait: Option<Duration>,
    clock: &C,
    run: F,
) -> Result<(Result<T, E>, IdempotencyStatus), IdempotencyError>
where
    S: IdempotencyStore<T>,
    C: Clock,
    F: FnOnce() -> Fut,
    Fut: Future<Output = (Result<T, E>, bool)>,
{
    let deadline = max_wait.and_then(|wait| clock.now().checked_add(wait));
    let mut waited = false;
    loop {
        match store.claim(key, clock.now()).await? {
            Claim::Stored(value) => return Ok((Ok(value), replay_status(waited))),
            Claim::Acquired { token, lease } => {
                let held = Held::new(store, key, token);
                let (result, storable) = keep_claim_while(run(), &held, lease, clock).await;
                let completed = match storable_value(&result, storable, ttl) {
                    Some(value) => {
                        let stored = store.complete(key, token, value, ttl, clock.now());
                        stored.await.is_ok()
                    }
                    None => false,
                };
                if !completed {
                    // A failure, a value not to replay, or one the store
                    // refused (say, it didn't serialise): free the key
                    // rather than block it for a lease.
                    let _ = store.release(key, token).await;
                }
                held.settled();
                return Ok((result, IdempotencyStatus::Executed));
            }
            Claim::InFlight { expires_in } => {
                let pause = pause_before_claiming_again(deadline, clock.now(), expires_in)?;
                match pause {
                    Some(pause) => {
                        first_of(store.wait(key), clock.sleep_async(pause)).await?;
                    }
                    None => store.wait(key).await?,
                }
                waited = true;
            }
        }
    }
}

/// [`run_idempotent`] for blocking code, with a [`MemoryStore`]: no tokio
/// runtime needed.
///
/// The same protocol, with these differences: a blocking claim has no lease
/// (the thread running `run` is alive until `run` returns or panics, and a
/// panic releases the claim), and `max_wait` is measured in real time, since
/// a waiting thread is parked and only the holder or the OS timer can wake
/// it; `clock` gives the store's `now` (TTLs).
///
/// ```
/// use resilient::SystemClock;
/// use resilient::idempotency::{run_idempotent_blocking, IdempotencyStatus, MemoryStore, DEFAULT_TTL};
///
/// static INVOICES: MemoryStore<u32> = MemoryStore::new();
///
/// let issue = || (Ok::<u32, String>(1041), true);
/// let first = run_idempotent_blocking(&INVOICES, "march", DEFAULT_TTL, None, &SystemClock, issue).unwrap();
/// let again = run_idempotent_blocking(&INVOICES, "march", DEFAULT_TTL, None, &SystemClock, issue).unwrap();
/// assert_eq!(first, (Ok(1041), IdempotencyStatus::Executed));
/// assert_eq!(again, (Ok(1041), IdempotencyStatus::Replayed));
/// ```
///
/// # Errors
///
/// [`IdempotencyError::InFlight`] when `max_wait` ran out while another call
/// held `key`; `run` was not called.
pub fn run_idempotent_blocking<T, E, C, F>(
    store: &MemoryStore<T>,
    key: &str,
    ttl: Duration,
    max_wait: Option<Duration>,
    clock: &C,
    run: F,
) -> Result<(Result<T, E>, IdempotencyStatus), IdempotencyError>
where
    T: Clone,
    C: Clock,
    F: FnOnce() -> (Result<T, E>, bool),
{
    let deadline = max_wait.and_then(|wait| Instant::now().checked_add(wait));
    let mut waited = false;
    loop {
        match store.claim_now(key, clock.now(), None) {
            Claim::Stored(value) => return Ok((Ok(value), replay_status(waited))),
            Claim::Acquired { token, .. } => {
                // Released when dropped: after a failure, a panic in `run`
                // or in `T::clone`, and as a no-op after a completion.
                let _held = HeldInMemory { store, key, token };
                let (result, storable) = run();
                if let Some(value) = storable_value(&result, storable, ttl) {
                    store.complete_now(key, token, value, ttl, clock.now());
                }
                return Ok((result, IdempotencyStatus::Executed));
            }
            Claim::InFlight { expires_in } => {
                let pause = pause_before_claiming_again(deadline, Instant::now(), expires_in)?;
                store.wait_blocking(key, pause);
                waited = true;
            }
        }
    }
}

/// A value found in the store: replayed, or joined if this call waited
/// for the run that stored it.
fn replay_status(waited: bool) -> IdempotencyStatus {
    if waited {
        IdempotencyStatus::Joined
    } else {
        IdempotencyStatus::Replayed
    }
}

/// The value to store, if any: only a storable success, and only for a TTL
/// that would keep it at all.
fn storable_value<T, E>(result: &Result<T, E>, storable: bool, ttl: Duration) -> Option<&T> {
    match result {
        Ok(value) if storable && !ttl.is_zero() => Some(value),
        _ => None,
    }
}

/// How long to wait for an in-flight key before claiming again: until the
/// deadline or the holder's lease ends, whichever is first (`None`: until
/// the store says the key settled). Fails once the deadline has passed.
///
/// A lease reported as ending now is waited on for [`MIN_PAUSE`], so that a
/// store whose clock lags ours can't make the loop spin.
fn pause_before_claiming_again(
    deadline: Option<Instant>,
    now: Instant,
    expires_in: Option<Duration>,
) -> Result<Option<Duration>, IdempotencyInFlight> {
    let expires_in = expires_in.map(|expires_in| expires_in.max(MIN_PAUSE));
    let left = match deadline {
        Some(deadline) => match deadline.checked_duration_since(now) {
            Some(left) if !left.is_zero() => Some(left),
            _ => return Err(IdempotencyInFlight),
        },
        None => None,
    };
    Ok(match (left, expires_in) {
        (Some(left), Some(expires_in)) => Some(left.min(expires_in)),
        (left, expires_in) => left.or(expires_in),
    })
}

/// Waits for `settled` or `timer`, whichever is first; only `settled` can
/// fail.
async fn first_of<W, Z, Err>(settled: W, timer: Z) -> Result<(), Err>
where
    W: Future<Output = Result<(), Err>>,
    Z: Future<Output = ()>,
{
    let mut settled = pin!(settled);
    let mut timer = pin!(timer);
    poll_fn(|cx| {
        if let Poll::Ready(result) = settled.as_mut().poll(cx) {
            return Poll::Ready(result);
        }
        timer.as_mut().poll(cx).map(Ok)
    })
    .await
}

/// Polls `body` to completion, renewing the claim every half lease while it
/// is pending. Renewals run in this task, between polls of `body`, so no
/// task is spawned and `body` needs not be `'static`.
async fn keep_claim_while<B, S, T, C>(
    body: B,
    held: &Held<'_, S, T>,
    lease: Duration,
    clock: &C,
) -> B::Output
where
    B: Future,
    S: IdempotencyStore<T>,
    C: Clock,
{
    let mut body = pin!(body);
    let mut renewals = pin!(renew_every_half_lease(held, lease, clock));
    let mut renewing = true;
    poll_fn(|cx| {
        if let Poll::Ready(output) = body.as_mut().poll(cx) {
            return Poll::Ready(output);
        }
        if renewing && renewals.as_mut().poll(cx).is_ready() {
            renewing = false;
        }
        Poll::Pending
    })
    .await
}

/// Renews the claim every half lease; ends when the claim is lost. A failed
/// renewal is retried after an eighth of the lease, while enough of it is
/// left for a retry to matter.
async fn renew_every_half_lease<S, T, C>(held: &Held<'_, S, T>, lease: Duration, clock: &C)
where
    S: IdempotencyStore<T>,
    C: Clock,
{
    let mut pause = lease / 2;
    loop {
        clock.sleep_async(pause.max(MIN_PAUSE)).await;
        pause = match held.store.renew(held.key, held.token, clock.now()).await {
            Ok(true) => lease / 2,
            Ok(false) => return,
            Err(_) => lease / 8,
        };
    }
}

/// A claim that this call holds; dropped before [`settled`](Held::settled)
/// (cancellation, panic), it releases the claim.
struct Held<'a, S: IdempotencyStore<T>, T> {
    store: &'a S,
    key: &'a str,
    token: ClaimToken,
    value: PhantomData<fn() -> T>,
}

impl<'a, S: IdempotencyStore<T>, T> Held<'a, S, T> {
    fn new(store: &'a S, key: &'a str, token: ClaimToken) -> Self {
        Held {
            store,
            key,
            token,
            value: PhantomData,
        }
    }

    /// The claim was completed or released the ordinary way.
    fn settled(self) {
        std::mem::forget(self);
    }
}

impl<S: IdempotencyStore<T>, T> Drop for Held<'_, S, T> {
    fn drop(&mut self) {
        // Drop can't await: a store that answers at once (memory) is done
        // after one poll; one that needs I/O finishes on the runtime.
        let mut release = Box::pin(self.store.release(self.key, self.token));
        let first_poll = release
            .as_mut()
            .poll(&mut Context::from_waker(Waker::noop()));
        if first_poll.is_pending()
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            drop(runtime.spawn(release));
        }
    }
}

/// [`Held`] for the blocking path, where releasing is a plain call.
struct HeldInMemory<'a, T: Clone> {
    store: &'a MemoryStore<T>,
    key: &'a str,
    token: ClaimToken,
}

impl<T: Clone> Drop for HeldInMemory<'_, T> {
    fn drop(&mut self) {
        self.store.release_now(self.key, self.token);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pause_ends_at_the_deadline_or_the_lease_whichever_is_first() {
        let now = Instant::now();
        let secs = Duration::from_secs;
        let deadline = Some(now + secs(5));
        assert_eq!(
            pause_before_claiming_again(deadline, now, Some(secs(30))),
            Ok(Some(secs(5)))
        );
        assert_eq!(
            pause_before_claiming_again(deadline, now, Some(secs(2))),
            Ok(Some(secs(2)))
        );
        assert_eq!(
            pause_before_claiming_again(deadline, now, None),
            Ok(Some(secs(5)))
        );
        assert_eq!(
            pause_before_claiming_again(None, now, Some(secs(2))),
            Ok(Some(secs(2)))
        );
        assert_eq!(pause_before_claiming_again(None, now, None), Ok(None));
    }

    #[test]
    fn a_lease_ending_now_is_waited_on_for_the_shortest_pause() {
        let now = Instant::now();
        assert_eq!(
            pause_before_claiming_again(None, now, Some(Duration::ZERO)),
            Ok(Some(MIN_PAUSE))
        );
        assert_eq!(
            pause_before_claiming_again(
                Some(now + Duration::from_secs(1)),
                now,
                Some(Duration::ZERO)
            ),
            Ok(Some(MIN_PAUSE))
        );
    }

    #[test]
    fn a_deadline_reached_or_passed_fails_the_wait() {
        let now = Instant::now();
        assert_eq!(
            pause_before_claiming_again(Some(now), now, None),
            Err(IdempotencyInFlight)
        );
        assert_eq!(
            pause_before_claiming_again(Some(now), now + Duration::from_secs(1), None),
            Err(IdempotencyInFlight)
        );
    }

    #[test]
    fn only_a_storable_success_with_a_ttl_is_stored() {
        let ttl = Duration::from_secs(1);
        assert_eq!(storable_value(&Ok::<_, ()>(1), true, ttl), Some(&1));
        assert_eq!(storable_value(&Ok::<_, ()>(1), false, ttl), None);
        assert_eq!(storable_value(&Err::<u8, _>(()), true, ttl), None);
        assert_eq!(storable_value(&Ok::<_, ()>(1), true, Duration::ZERO), None);
    }
}

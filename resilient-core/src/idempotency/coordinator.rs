//! The coordinator: replay, join, or claim-run-settle one idempotent call,
//! against any [`IdempotencyStore`] (async) or a [`MemoryStore`] (blocking).

use std::future::{Future, poll_fn};
use std::marker::PhantomData;
use std::pin::pin;
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use super::claim::{self, ClaimInfo};
use super::{
    Claim, ClaimRequest, ClaimToken, IdempotencyConflict, IdempotencyError, IdempotencyInFlight,
    IdempotencyStatus, IdempotencyStore, IdempotencyStored, MemoryStore, StoreError,
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
///   its value ([`Joined`](IdempotencyStatus::Joined)), even with a `ttl` of
///   zero (which stores nothing for later calls); if it fails, is
///   cancelled or its lease runs out, this call claims the key and runs.
/// * A call made from inside a body running under `key` in the same `store`
///   (re-entrance) would wait for itself: it fails at once with
///   [`IdempotencyError::InFlight`].
///   The wait lasts at most `max_wait` (`None`: as long as the holder keeps
///   its claim alive); past it the call fails with
///   [`IdempotencyError::InFlight`].
/// * Otherwise it claims `key` and calls `run` once
///   ([`Executed`](IdempotencyStatus::Executed)), renewing the claim every
///   half lease while `run` is pending (in the same task: nothing is
///   spawned, and on tokio's timer, so a [`FakeClock`](crate::FakeClock)
///   records no renewal among its sleeps; a claim that lasts as long as its
///   holder, such as a [`MemoryStore`]'s, is never renewed). Inside `run`,
///   [`current_claim`](super::current_claim) gives the key and the claim's
///   fencing token. `run` yields the result and whether its value may be stored:
///   `true` for the primary body's success, `false` for a value that must
///   not be replayed (a fallback's). A storable success is stored for `ttl`;
///   any other outcome releases the claim and stores nothing.
///
/// Dropping the returned future while `run` is pending, or a panic in
/// `run`, releases the claim at once (a store whose release needs I/O, such
/// as Redis, is released by a task spawned on the current tokio runtime;
/// without one, the claim runs out its lease).
///
/// Time comes from `clock`: `now` for the store, sleeps for the bounded
/// wait. So `#[tokio::test(start_paused = true)]` with
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
    let request = Request::new(key, max_wait);
    match acquire(store, request, clock).await? {
        Acquired::Found(value, status) => Ok((Ok(value), status)),
        Acquired::Claim(held) => {
            let (result, _) = run_held(held, ttl, clock, run()).await;
            Ok((result, IdempotencyStatus::Executed))
        }
    }
}

/// [`run_idempotent`] for blocking code, with a [`MemoryStore`]: no tokio
/// runtime needed.
///
/// The same protocol, with these differences: `max_wait` is measured in
/// real time, since a waiting thread is parked and only the holder or the
/// OS timer can wake it; `clock` gives the store's `now` (TTLs).
///
/// A thread that waits can't run anything else. So when the key is in
/// flight and the calling thread runs a tokio runtime, the call does not
/// park it where the holder may need it: on a `current_thread` runtime
/// (whose one thread may be the holder's) it fails at once with
/// [`IdempotencyError::InFlight`], without running `run`; on a
/// multi-thread runtime it waits inside `tokio::task::block_in_place`, which
/// hands the thread's other tasks to another worker (feature
/// `rt-multi-thread`, on by default; without it, it fails at once there
/// too).
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
/// held `key`, when waiting would block a `current_thread` runtime, or on
/// re-entrance; `run` was not called.
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
    let request = Request::new(key, max_wait);
    match acquire_blocking(store, request, clock)? {
        Acquired::Found(value, status) => Ok((Ok(value), status)),
        Acquired::Claim(held) => {
            let (result, _) = run_held_blocking(held, ttl, clock, run);
            Ok((result, IdempotencyStatus::Executed))
        }
    }
}

/// One idempotent call's key and terms.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Request<'k> {
    pub(crate) key: &'k str,
    /// The longest wait for another call holding the key.
    pub(crate) max_wait: Option<Duration>,
    pub(crate) fingerprint: Option<u64>,
}

impl<'k> Request<'k> {
    pub(crate) fn new(key: &'k str, max_wait: Option<Duration>) -> Self {
        Request {
            key,
            max_wait,
            fingerprint: None,
        }
    }
}

/// What the store gave a call: a value (replayed or joined), or the key
/// to run under.
pub(crate) enum Acquired<T, H> {
    Found(T, IdempotencyStatus),
    Claim(H),
}

/// Why an idempotent call ended without running or receiving a result.
#[derive(Debug)]
pub(crate) enum Refused {
    InFlight,
    Conflict,
    Store(StoreError),
}

impl From<Refused> for IdempotencyError {
    fn from(refused: Refused) -> Self {
        match refused {
            Refused::InFlight => IdempotencyError::InFlight(IdempotencyInFlight),
            // Only a request with a fingerprint conflicts, and the public
            // functions send none.
            Refused::Conflict => {
                IdempotencyError::Store(StoreError::Backend(IdempotencyConflict.to_string().into()))
            }
            Refused::Store(error) => IdempotencyError::Store(error),
        }
    }
}

/// The store's address, which tells one store from another for
/// re-entrance.
fn address<S: ?Sized>(store: &S) -> usize {
    std::ptr::from_ref(store).cast::<()>() as usize
}

/// The first half of the async protocol: a stored value, or the value of
/// the call this one waited for, or the key claimed for this call.
pub(crate) async fn acquire<'s, T, S, C>(
    store: &'s S,
    request: Request<'_>,
    clock: &C,
) -> Result<Acquired<T, Held<'s, S, T>>, Refused>
where
    S: IdempotencyStore<T> + ?Sized,
    C: Clock,
{
    let key = request.key;
    let mut claiming = Claiming::start(address(store), request, clock.now())?;
    loop {
        let claim = store.claim(key, claiming.ask(), clock.now()).await;
        let held = |token, lease, info| Held::new(store, info, token, lease);
        match claiming.answer(claim.map_err(Refused::Store)?, clock.now(), held)? {
            Step::Done(acquired) => return Ok(acquired),
            Step::Wait(Some(pause)) => first_of(store.wait(key), clock.sleep_async(pause))
                .await
                .map_err(Refused::Store)?,
            Step::Wait(None) => store.wait(key).await.map_err(Refused::Store)?,
        }
    }
}

/// The second half: runs `body` under the claim `held` (renewed while it
/// runs, released if the future is dropped), then stores its value or
/// frees the key.
pub(crate) async fn run_held<T, E, S, C, B, V>(
    held: Held<'_, S, T>,
    ttl: Duration,
    clock: &C,
    body: B,
) -> (Result<T, E>, IdempotencyStored)
where
    S: IdempotencyStore<T> + ?Sized,
    C: Clock,
    B: Future<Output = (Result<T, E>, V)>,
    V: Storable,
{
    let body = claim::poll_inside(held.info.clone(), body);
    let (result, storable) = keep_claim_while(body, &held, clock).await;
    let (store, key, token) = (held.store, held.info.key(), held.token);
    let stored = match not_to_store(&result, storable.declined()) {
        Some(why) => why,
        None => {
            let value = result.as_ref().ok().expect("only a success is stored");
            let completed = store.complete(key, token, value, ttl, clock.now());
            stored_as(completed.await, ttl)
        }
    };
    if !stored.completed() {
        // A failure, a value not to replay, or one the store refused: free
        // the key rather than block it.
        let _ = store.release(key, token).await;
    }
    held.settled();
    (result, stored)
}

/// [`acquire`] for blocking code, on the in-memory store.
pub(crate) fn acquire_blocking<'s, T, C>(
    store: &'s MemoryStore<T>,
    request: Request<'_>,
    clock: &C,
) -> Result<Acquired<T, HeldInMemory<'s, T>>, Refused>
where
    T: Clone,
    C: Clock,
{
    let key = request.key;
    // Waits are measured in real time: a parked thread is woken only by
    // the holder or the OS timer.
    let mut claiming = Claiming::start(address(store), request, Instant::now())?;
    loop {
        let claim = store.claim_now(key, claiming.ask(), clock.now());
        let held = |token, _, info| HeldInMemory { store, info, token };
        match claiming.answer(claim, Instant::now(), held)? {
            Step::Done(acquired) => return Ok(acquired),
            Step::Wait(pause) => {
                wait_without_freezing_a_runtime(|| store.wait_blocking(key, pause))?;
            }
        }
    }
}

/// A call trying to claim its key: what it asks, until when it may wait,
/// and which claim it waited on.
struct Claiming<'r> {
    request: Request<'r>,
    store: usize,
    deadline: Option<Instant>,
    joined: Option<u64>,
}

/// What to do after an answer of the store.
enum Step<T, H> {
    Done(Acquired<T, H>),
    /// Wait until the key settles, for at most this long.
    Wait(Option<Duration>),
}

impl<'r> Claiming<'r> {
    /// Starts claiming, at `now`, unless the call is inside a claim of its
    /// own key in the same store: it would wait for itself.
    fn start(store: usize, request: Request<'r>, now: Instant) -> Result<Self, Refused> {
        if claim::inside(store, request.key) {
            return Err(Refused::InFlight);
        }
        Ok(Claiming {
            request,
            store,
            deadline: request.max_wait.and_then(|wait| now.checked_add(wait)),
            joined: None,
        })
    }

    fn ask(&self) -> ClaimRequest {
        ClaimRequest::new()
            .fingerprint(self.request.fingerprint)
            .joined(self.joined)
    }

    /// What the store's `claim` answer means at `now`; `held` makes the
    /// claim from its token, lease and info.
    fn answer<T, H>(
        &mut self,
        claim: Claim<T>,
        now: Instant,
        held: impl FnOnce(ClaimToken, Duration, ClaimInfo) -> H,
    ) -> Result<Step<T, H>, Refused> {
        Ok(match claim {
            Claim::Stored(value) => Step::Done(found(value, self.joined.is_some())),
            Claim::Conflict => return Err(Refused::Conflict),
            Claim::Acquired {
                token,
                lease,
                fencing_token,
            } => {
                let info = ClaimInfo::new(self.request.key, fencing_token, self.store);
                Step::Done(Acquired::Claim(held(token, lease, info)))
            }
            Claim::InFlight {
                expires_in,
                fencing_token,
            } => {
                let pause = pause_before_claiming_again(self.deadline, now, expires_in)
                    .map_err(|_| Refused::InFlight)?;
                // A store that can't name the holder still counts the wait.
                self.joined = Some(fencing_token.unwrap_or(0));
                Step::Wait(pause)
            }
        })
    }
}

/// [`run_held`] for blocking code, on the in-memory store.
pub(crate) fn run_held_blocking<T, E, C, V: Storable>(
    held: HeldInMemory<'_, T>,
    ttl: Duration,
    clock: &C,
    body: impl FnOnce() -> (Result<T, E>, V),
) -> (Result<T, E>, IdempotencyStored)
where
    T: Clone,
    C: Clock,
{
    // `held` releases the key when dropped: after a failure, a panic in
    // the body or in `T::clone`, and as a no-op after a completion.
    let (result, storable) = claim::run_inside(&held.info, body);
    let stored = match not_to_store(&result, storable.declined()) {
        Some(why) => why,
        None => {
            let value = result.as_ref().ok().expect("only a success is stored");
            let key = held.info.key();
            let completed = held
                .store
                .complete_now(key, held.token, value, ttl, clock.now());
            stored_as(Ok(completed), ttl)
        }
    };
    (result, stored)
}

/// Parks the thread in `wait`, unless it runs a tokio runtime that the
/// holder may need: a `current_thread` one fails the call at once; a
/// multi-thread one lends the thread's tasks to other workers meanwhile
/// (feature `rt-multi-thread`; without it, it fails the call at once too).
fn wait_without_freezing_a_runtime(wait: impl FnOnce()) -> Result<(), Refused> {
    use tokio::runtime::Handle;
    match Handle::try_current().map(|runtime| runtime.runtime_flavor()) {
        Err(_) => wait(),
        #[cfg(feature = "rt-multi-thread")]
        Ok(tokio::runtime::RuntimeFlavor::MultiThread) => tokio::task::block_in_place(wait),
        Ok(_) => return Err(Refused::InFlight),
    }
    Ok(())
}

/// A value found in the store: replayed, or joined if this call waited
/// for the run that stored it.
fn found<T, H>(value: T, waited: bool) -> Acquired<T, H> {
    let status = if waited {
        IdempotencyStatus::Joined
    } else {
        IdempotencyStatus::Replayed
    };
    Acquired::Found(value, status)
}

/// Why the outcome of a run is not offered to the store at all, if so: a
/// failure, or a value not to replay, for the reason the run `declined`
/// it (a fallback's, an injected one).
fn not_to_store<T, E>(
    result: &Result<T, E>,
    declined: Option<IdempotencyStored>,
) -> Option<IdempotencyStored> {
    match result {
        Err(_) => Some(IdempotencyStored::Failure),
        Ok(_) => declined,
    }
}

/// What a run says of its value besides the result: whether it may be
/// stored, and if not, why. `run_idempotent`'s callers say it with a
/// `bool` (`false`: a fallback's value); the engine names its reason.
pub(crate) trait Storable {
    /// Why the value must not be stored, or `None` if it may be.
    fn declined(&self) -> Option<IdempotencyStored>;
}

impl Storable for bool {
    fn declined(&self) -> Option<IdempotencyStored> {
        (!*self).then_some(IdempotencyStored::Fallback)
    }
}

impl Storable for Option<IdempotencyStored> {
    fn declined(&self) -> Option<IdempotencyStored> {
        *self
    }
}

/// What the store's answer to a completion means for the value.
fn stored_as(completed: Result<bool, StoreError>, ttl: Duration) -> IdempotencyStored {
    match completed {
        Ok(true) if ttl.is_zero() => IdempotencyStored::TtlZero,
        Ok(true) => IdempotencyStored::Stored,
        Ok(false) => IdempotencyStored::ClaimLost,
        Err(StoreError::Serialize(_)) => IdempotencyStored::Unserializable,
        Err(StoreError::Deserialize(_)) => IdempotencyStored::DoesNotReadBack,
        Err(_) => IdempotencyStored::StoreFailed,
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
///
/// They are timed by tokio, not by the operation's clock: a lease runs on
/// the store's time, and a fake clock's sleeps end at once (renewing in a
/// loop) and are the operation's own record. A claim that lasts as long as
/// its holder (`Duration::MAX`), or a call outside a tokio runtime, renews
/// nothing.
async fn keep_claim_while<B, S, T, C>(body: B, held: &Held<'_, S, T>, clock: &C) -> B::Output
where
    B: Future,
    S: IdempotencyStore<T> + ?Sized,
    C: Clock,
{
    let mut body = pin!(body);
    let lease = held.lease;
    let mut renewing = lease != Duration::MAX && tokio::runtime::Handle::try_current().is_ok();
    let mut renewals = pin!(renew_every_half_lease(held, lease, clock));
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
    S: IdempotencyStore<T> + ?Sized,
    C: Clock,
{
    let mut pause = lease / 2;
    loop {
        tokio::time::sleep(pause.max(MIN_PAUSE)).await;
        pause = match held
            .store
            .renew(held.info.key(), held.token, clock.now())
            .await
        {
            Ok(true) => lease / 2,
            Ok(false) => return,
            Err(_) => lease / 8,
        };
    }
}

/// A claim that this call holds; dropped before it is settled
/// (cancellation, panic), it releases the claim.
pub struct Held<'a, S: IdempotencyStore<T> + ?Sized, T> {
    store: &'a S,
    info: ClaimInfo,
    token: ClaimToken,
    lease: Duration,
    /// Completed or released the ordinary way: nothing to release on drop.
    settled: bool,
    value: PhantomData<fn() -> T>,
}

impl<'a, S: IdempotencyStore<T> + ?Sized, T> Held<'a, S, T> {
    fn new(store: &'a S, info: ClaimInfo, token: ClaimToken, lease: Duration) -> Self {
        Held {
            store,
            info,
            token,
            lease,
            settled: false,
            value: PhantomData,
        }
    }

    /// The claim was completed or released the ordinary way.
    fn settled(mut self) {
        self.settled = true;
    }
}

impl<S: IdempotencyStore<T> + ?Sized, T> Drop for Held<'_, S, T> {
    fn drop(&mut self) {
        if self.settled {
            return;
        }
        // Drop can't await: a store that answers at once (memory) is done
        // after one poll; one that needs I/O finishes on the runtime.
        let mut release = Box::pin(self.store.release(self.info.key(), self.token));
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
pub struct HeldInMemory<'a, T: Clone> {
    store: &'a MemoryStore<T>,
    info: ClaimInfo,
    token: ClaimToken,
}

impl<T: Clone> Drop for HeldInMemory<'_, T> {
    fn drop(&mut self) {
        self.store.release_now(self.info.key(), self.token);
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
    fn only_a_success_of_the_primary_body_is_offered_to_the_store() {
        assert_eq!(not_to_store(&Ok::<_, ()>(1), true.declined()), None);
        assert_eq!(
            not_to_store(&Ok::<_, ()>(1), false.declined()),
            Some(IdempotencyStored::Fallback)
        );
        assert_eq!(
            not_to_store(&Ok::<_, ()>(1), Some(IdempotencyStored::Injected)),
            Some(IdempotencyStored::Injected)
        );
        assert_eq!(
            not_to_store(&Err::<u8, _>(()), true.declined()),
            Some(IdempotencyStored::Failure)
        );
    }
}

//! The claim an idempotent body runs under: [`current_claim`] and its
//! [`ClaimInfo`], and the stack of claims this thread is inside, which also
//! tells a call that re-enters its own key.

use std::cell::RefCell;
use std::future::{Future, poll_fn};
use std::pin::pin;

/// The claim of the idempotent call whose body is running: its key and its
/// fencing token.
///
/// A fencing token is larger than that of every earlier claim of the key.
/// A downstream that keeps the largest token it has seen for a key, and
/// refuses a write that carries a smaller one, rejects a holder that was
/// paused past its lease while another call took the key over: the one
/// case a lease can't cover.
///
/// ```
/// use resilient::TokioClock;
/// use resilient::idempotency::{current_claim, run_idempotent, MemoryStore, DEFAULT_TTL};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let store = MemoryStore::new();
/// let charge = || async {
///     let claim = current_claim().expect("inside an idempotent body");
///     assert_eq!(claim.key(), "order-7");
///     // Send the token with the write: the ledger refuses a smaller one.
///     (Ok::<u64, String>(claim.fencing_token()), true)
/// };
/// let (token, _) = run_idempotent(&store, "order-7", DEFAULT_TTL, None, &TokioClock, charge).await.unwrap();
/// assert!(token.unwrap() > 0);
/// assert!(current_claim().is_none());
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimInfo {
    key: String,
    fencing_token: u64,
    /// The store's address: the same key in another store is another claim.
    store: usize,
}

impl ClaimInfo {
    pub(crate) fn new(key: &str, fencing_token: u64, store: usize) -> ClaimInfo {
        ClaimInfo {
            key: key.to_owned(),
            fencing_token,
            store,
        }
    }

    /// The idempotency key claimed.
    ///
    /// ```
    /// # use resilient::idempotency::current_claim;
    /// if let Some(claim) = current_claim() {
    ///     println!("running under {}", claim.key());
    /// }
    /// ```
    pub fn key(&self) -> &str {
        &self.key
    }

    /// The claim's fencing token: larger than that of every earlier claim
    /// of the key.
    ///
    /// ```
    /// # use resilient::idempotency::current_claim;
    /// let token = current_claim().map(|claim| claim.fencing_token());
    /// assert_eq!(token, None); // outside an idempotent body
    /// ```
    pub fn fencing_token(&self) -> u64 {
        self.fencing_token
    }
}

thread_local! {
    /// The claims whose bodies are being polled or run on this thread,
    /// innermost last.
    static CLAIMS: RefCell<Vec<ClaimInfo>> = const { RefCell::new(Vec::new()) };
}

/// The claim of the idempotent body running now, if any: inside the body
/// (and its retries, hedges and fallbacks), in the same task or thread.
/// `None` elsewhere, including in tasks the body spawns.
///
/// ```
/// use resilient::idempotency::current_claim;
///
/// assert!(current_claim().is_none());
/// ```
pub fn current_claim() -> Option<ClaimInfo> {
    CLAIMS.with(|claims| claims.borrow().last().cloned())
}

/// Whether this thread runs inside a claim of `key` in `store`: a call
/// that waited for it would wait for itself.
pub(super) fn inside(store: usize, key: &str) -> bool {
    CLAIMS.with(|claims| {
        claims
            .borrow()
            .iter()
            .any(|claim| claim.store == store && claim.key == key)
    })
}

/// Keeps `claim` on the stack while it lives.
struct Entered;

impl Entered {
    fn new(claim: &ClaimInfo) -> Entered {
        CLAIMS.with(|claims| claims.borrow_mut().push(claim.clone()));
        Entered
    }
}

impl Drop for Entered {
    fn drop(&mut self) {
        CLAIMS.with(|claims| claims.borrow_mut().pop());
    }
}

/// Runs the blocking `run` inside `claim`.
pub(super) fn run_inside<R>(claim: &ClaimInfo, run: impl FnOnce() -> R) -> R {
    let _entered = Entered::new(claim);
    run()
}

/// Polls `body` inside `claim`: each poll, wherever the task runs.
pub(super) async fn poll_inside<B: Future>(claim: ClaimInfo, body: B) -> B::Output {
    let mut body = pin!(body);
    poll_fn(|cx| {
        let _entered = Entered::new(&claim);
        body.as_mut().poll(cx)
    })
    .await
}

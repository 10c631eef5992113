//! [`ErasedStore`]: any [`IdempotencyStore`] behind one trait object, whose
//! futures are boxed. The attribute runs an async idempotent call on the
//! store as this object, so that a store that can't keep the function's
//! value is one error, at the `idempotency` option, rather than one at
//! each place the run uses the store.

use std::future::Future;
use std::pin::Pin;
use std::time::{Duration, Instant};

use super::{Claim, ClaimRequest, ClaimToken, IdempotencyStore, StoreError};

/// A boxed future of a store's answer, borrowing for `'a`.
type Answer<'a, A> = Pin<Box<dyn Future<Output = Result<A, StoreError>> + Send + 'a>>;

/// An [`IdempotencyStore`] whose futures are boxed, so that it can be a
/// trait object: implemented by every store of `T`, and, as
/// `dyn ErasedStore<T>`, a store of `T` itself. Each store operation
/// allocates its future, beside the store's own work (a lock, or a round
/// trip to Redis).
#[doc(hidden)]
pub trait ErasedStore<T>: Send + Sync {
    /// [`IdempotencyStore::claim`], boxed.
    fn claim_boxed<'a>(
        &'a self,
        key: &'a str,
        request: ClaimRequest,
        now: Instant,
    ) -> Answer<'a, Claim<T>>
    where
        T: 'a;
    /// [`IdempotencyStore::wait`], boxed.
    fn wait_boxed<'a>(&'a self, key: &'a str) -> Answer<'a, ()>
    where
        T: 'a;
    /// [`IdempotencyStore::complete`], boxed.
    fn complete_boxed<'a>(
        &'a self,
        key: &'a str,
        token: ClaimToken,
        value: &'a T,
        ttl: Duration,
        now: Instant,
    ) -> Answer<'a, bool>
    where
        T: 'a;
    /// [`IdempotencyStore::release`], boxed.
    fn release_boxed(&self, key: &str, token: ClaimToken) -> Answer<'static, bool>;
    /// [`IdempotencyStore::renew`], boxed.
    fn renew_boxed<'a>(&'a self, key: &'a str, token: ClaimToken, now: Instant) -> Answer<'a, bool>
    where
        T: 'a;
}

impl<T, S: IdempotencyStore<T>> ErasedStore<T> for S {
    fn claim_boxed<'a>(
        &'a self,
        key: &'a str,
        request: ClaimRequest,
        now: Instant,
    ) -> Answer<'a, Claim<T>>
    where
        T: 'a,
    {
        Box::pin(self.claim(key, request, now))
    }

    fn wait_boxed<'a>(&'a self, key: &'a str) -> Answer<'a, ()>
    where
        T: 'a,
    {
        Box::pin(self.wait(key))
    }

    fn complete_boxed<'a>(
        &'a self,
        key: &'a str,
        token: ClaimToken,
        value: &'a T,
        ttl: Duration,
        now: Instant,
    ) -> Answer<'a, bool>
    where
        T: 'a,
    {
        Box::pin(self.complete(key, token, value, ttl, now))
    }

    fn release_boxed(&self, key: &str, token: ClaimToken) -> Answer<'static, bool> {
        Box::pin(self.release(key, token))
    }

    fn renew_boxed<'a>(&'a self, key: &'a str, token: ClaimToken, now: Instant) -> Answer<'a, bool>
    where
        T: 'a,
    {
        Box::pin(self.renew(key, token, now))
    }
}

// Each future borrows the store and the key (and the value) for lifetimes
// of their own: an `async fn` holds them apart, where the boxed future is
// bound by one lifetime, which an opaque type can't name. The value is
// borrowed across the await, hence `T: Sync` for the future to be `Send`.
impl<'x, T: Sync> IdempotencyStore<T> for dyn ErasedStore<T> + 'x {
    async fn claim(
        &self,
        key: &str,
        request: ClaimRequest,
        now: Instant,
    ) -> Result<Claim<T>, StoreError> {
        self.claim_boxed(key, request, now).await
    }

    async fn wait(&self, key: &str) -> Result<(), StoreError> {
        self.wait_boxed(key).await
    }

    async fn complete(
        &self,
        key: &str,
        token: ClaimToken,
        value: &T,
        ttl: Duration,
        now: Instant,
    ) -> Result<bool, StoreError> {
        self.complete_boxed(key, token, value, ttl, now).await
    }

    fn release(
        &self,
        key: &str,
        token: ClaimToken,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send + 'static {
        self.release_boxed(key, token)
    }

    async fn renew(&self, key: &str, token: ClaimToken, now: Instant) -> Result<bool, StoreError> {
        self.renew_boxed(key, token, now).await
    }
}

/// `store` as an [`ErasedStore`] of `T`: where `#[resilient]` checks that
/// the store can keep the function's value (and that the value may be
/// shared between threads, as a boxed store's `complete` borrows it across
/// an await), the one place a store that can't is reported.
#[doc(hidden)]
#[inline]
pub fn erase<'a, T: Sync, S: IdempotencyStore<T> + 'a>(
    store: &'a S,
) -> &'a (dyn ErasedStore<T> + 'a) {
    store
}

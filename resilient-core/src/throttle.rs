//! Retry throttling shared by many calls.

/// Something that decides, across many calls, whether retries may run.
pub trait RetryBudget: Send + Sync {
    /// A retryable failure happened.
    fn on_failure(&self);
    /// An attempt succeeded.
    fn on_success(&self);
    /// Whether a retry may start now.
    fn allows_retry(&self) -> bool;
}

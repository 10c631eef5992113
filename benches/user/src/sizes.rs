//! The size of each async shape's future, `size_of_val(&f(1))`: what a
//! `block_on`, a `tokio::spawn` or a `Box::pin` moves or allocates on
//! every call, a first success included.
//!
//! Printed beside the ratios with the targets of the engine's futures,
//! never checked here: the sizes are the engine's to pin, in a test of
//! its own.

use std::mem::size_of_val;
use std::time::Duration;

use backon::{ExponentialBuilder, Retryable};

use crate::shapes;

/// One future and its size in bytes.
#[derive(Debug, Clone)]
pub struct Size {
    /// The call whose future is measured.
    pub name: &'static str,
    /// `size_of_val` of the future, unpolled.
    pub bytes: usize,
    /// The most it should be, for the shapes that have a target.
    pub target: Option<usize>,
}

/// Every async shape's future, the references' beside them.
pub fn sizes() -> Vec<Size> {
    // A tokio timeout's timer is made with the future, in a runtime.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a current-thread runtime");
    let _entered = runtime.enter();
    let size = |name, bytes| Size {
        name,
        bytes,
        target: None,
    };
    let within = |name, bytes, target| Size {
        name,
        bytes,
        target: Some(target),
    };
    vec![
        size(
            "fetch_async(1), the body's call",
            size_of_val(&shapes::fetch_async(1)),
        ),
        within(
            "#[resilient] retry_on",
            size_of_val(&shapes::asynchronous(1)),
            256,
        ),
        within(
            "#[resilient] retry_on, timing = false",
            size_of_val(&shapes::asynchronous_untimed(1)),
            256,
        ),
        within(
            "#[resilient] retry_on, timeout + budget",
            size_of_val(&shapes::asynchronous_limits(1)),
            384,
        ),
        size(
            "#[resilient] retry_on, hedge",
            size_of_val(&shapes::asynchronous_hedged(1)),
        ),
        size(
            "backon, as the rows call it (policy, sleep, when)",
            size_of_val(&shapes::backon_async(1)),
        ),
        size(
            "backon: fetch_async(1) retried with ExponentialBuilder::default().with_max_times(3)",
            size_of_val(
                &(|| shapes::fetch_async(1)).retry(ExponentialBuilder::default().with_max_times(3)),
            ),
        ),
        size(
            "bare tokio::time::timeout, as the rows call it",
            size_of_val(&shapes::bare_timeout(1)),
        ),
        size(
            "tokio::time::timeout(10 s, fetch_async(1))",
            size_of_val(&tokio::time::timeout(
                Duration::from_secs(10),
                shapes::fetch_async(1),
            )),
        ),
        size(
            "Outcome<u64, ProviderError> (not a future; for scale)",
            std::mem::size_of::<resilient::Outcome<u64, shapes::ProviderError>>(),
        ),
    ]
}

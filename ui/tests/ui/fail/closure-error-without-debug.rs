// A generic helper that retries its caller's closure, without `E: Debug`:
// the report records each error's text, so the closure API needs it.
use resilient::{RetryPolicy, Retryable};

static POLICY: RetryPolicy = RetryPolicy::builder().max_attempts(3).build_const();

fn with_retries<T, E, F: FnMut() -> Result<T, E>>(call: F) -> Result<T, E> {
    call.retry(&POLICY).call().into_result()
}

fn main() {
    let _ = with_retries(|| Ok::<u32, String>(1));
}

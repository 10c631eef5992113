//! The HTTP client function under test: one `#[resilient]` line retries it
//! correctly, with the `http` module's classifier and Retry-After hint, and
//! `HttpError` takes reqwest's errors and responses as they are.

use resilient::http::{HttpError, rate_limit_hint, retryable};
use resilient::{Attempt, resilient};

/// GETs `url`; from the first retry on, tells the server which retry this is.
#[resilient(
    retries = 3,
    retry_if = retryable,
    retry_after = rate_limit_hint,
    backoff = exponential(base = "50ms", max = "1s", jitter = none),
    timeout = "2s",
)]
pub async fn fetch(
    client: &reqwest::Client,
    url: &str,
    #[attempt] attempt: Attempt,
) -> Result<String, HttpError> {
    let mut request = client.get(url);
    if attempt.retry_number() > 0 {
        request = request.header("X-Retry-Count", attempt.retry_number().to_string());
    }
    let response = request.send().await?;
    if !response.status().is_success() {
        return Err(HttpError::from_response(&response));
    }
    Ok(response.text().await?)
}

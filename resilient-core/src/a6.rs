//! The arithmetic of gRPC proposal A6 ("client retry throttling"): a
//! retry throttle's tokens counted in thousandths, and the values A6
//! allows for `max_tokens` and `token_ratio`. Held apart from the
//! throttle so that the throttle and the run-time configuration, which
//! checks an operator's `[throttles.NAME]` by the same rules, both build
//! on it.

use crate::error::ConfigError;

/// Thousandths in a token. A6 keeps three decimals of `token_ratio`, so
/// counting in thousandths makes every step exact and keeps the count in one
/// atomic word.
pub(crate) const MILLI: u32 = 1000;

/// The largest `max_tokens` A6 allows. It also bounds the count at
/// 1 000 000 thousandths, far from overflowing when a refill is added.
pub(crate) const MAX_TOKENS_LIMIT: u32 = 1000;

/// `ratio` in whole thousandths, rounded to the nearest: `0.3` is stored as
/// 0.2999…, which must count as 300, not 299. `as` saturates, so NaN and
/// negative ratios give 0 and huge ones `u32::MAX`.
pub(crate) const fn ratio_in_thousandths(ratio: f64) -> u32 {
    (ratio * MILLI as f64 + 0.5) as u32
}

/// A6's rule for `max_tokens`: within `1..=1000`.
pub(crate) const fn check_max_tokens(max_tokens: u32) -> Result<(), ConfigError> {
    if max_tokens == 0 || max_tokens > MAX_TOKENS_LIMIT {
        return Err(ConfigError::InvalidMaxTokens(max_tokens));
    }
    Ok(())
}

/// A6's rule for `token_ratio`: finite, and at least one thousandth once
/// rounded to three decimals. A ratio above `max_tokens` is allowed: one
/// success refills the throttle.
pub(crate) const fn check_token_ratio(token_ratio: f64) -> Result<(), ConfigError> {
    if !token_ratio.is_finite() || ratio_in_thousandths(token_ratio) == 0 {
        return Err(ConfigError::InvalidTokenRatio(token_ratio));
    }
    Ok(())
}

/// What a success adds, in thousandths, for a throttle of `max`
/// thousandths: `ratio` rounded, at least 1, at most `max`.
pub(crate) const fn refill_of(token_ratio: f64, max: u32) -> u32 {
    let refill = ratio_in_thousandths(token_ratio);
    if refill == 0 {
        1
    } else if refill > max {
        max
    } else {
        refill
    }
}

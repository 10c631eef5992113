//! Nothing to use: `tests/public_api.rs` lists the public API of
//! `resilient` and `resilient-core` from their sources and compares it with
//! `public-api.txt`, so that a change to the API is a diff in review.

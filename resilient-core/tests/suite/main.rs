//! The engine's tests, one module per subject, in one binary: a binary per
//! file linked the same dependencies over and over, most of a cold
//! `cargo test`'s time for these files.
//!
//! Run one subject with `cargo test -p resilient-core --test suite breaker::`.

mod common;

mod breaker;
mod cancellation;
mod chaos;
mod chaos_layer;
mod coalesce;
mod coalesce_layer;
mod engine;
mod fake_clock_async;
mod file_sizes;
mod hedge;
mod hedge_percentile;
mod idempotency_memory;
mod limit_cancellation;
mod metrics;
mod module_cycles;
mod priority_shedding;
mod properties;
mod pushback;
mod report_json;
mod retry_budget_default;
mod send;
mod throttle;
mod throttle_operation;
mod tower;
mod tower_nested;
mod tracing_events;

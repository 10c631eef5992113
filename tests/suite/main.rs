//! The `resilient` crate's tests, one module per subject, in one binary: a
//! binary per file linked the same dependencies some twenty times over,
//! most of a cold `cargo test`'s time for these files. `alloc` stays a
//! binary of its own, for its counting allocator.
//!
//! Run one subject with `cargo test -p resilient --test suite attribute::`.

mod adaptive_throttle;
mod attribute;
mod breaker_attribute;
#[cfg(feature = "serde")]
mod breaker_snapshot;
mod build_weight;
mod built_on_demand;
mod cancelled;
mod chaos_attribute;
mod closure;
mod closure_handover;
mod closure_mut;
mod coalesce_attribute;
#[cfg(feature = "config")]
mod config_bounds;
#[cfg(feature = "config")]
mod config_reload;
#[cfg(feature = "config")]
mod config_sections;
mod deadlines;
mod debug_errors;
mod engine_failure;
mod fallback_chain;
mod fallback_selection;
mod figures;
mod figures_drawn;
mod future_size;
mod guide;
mod hedging;
mod idempotency;
mod idempotency_guarantees;
mod ignored;
mod jitters;
mod limits;
mod lints;
mod max_records;
mod names;
mod nested_retries;
mod option_examples;
mod report_as_json;
mod report_hook;
mod retry_after_names;
mod retry_throttle;
mod schedule_options;
mod shutdown;
mod signatures;
mod timing_off;

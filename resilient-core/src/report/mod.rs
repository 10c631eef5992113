//! What happened: [`Outcome`] pairs the result with an [`ExecutionReport`],
//! one [`AttemptRecord`] per attempt.
//!
//! * `outcome.rs`: the outcome, the report and why it stopped;
//! * `record.rs`: one attempt's record and the inline attempt log;
//! * `table.rs`: the report as a table for people;
//! * `json.rs`: the report as data, with stable keys (feature `serde`).

#[cfg(feature = "serde")]
mod json;
mod outcome;
mod record;
mod table;

#[cfg(feature = "config")]
pub use outcome::SettingsSource;
pub(crate) use outcome::UNNAMED;
pub use outcome::{ExecutionReport, Outcome, StopReason};
pub use record::{AttemptKind, AttemptRecord, Delay, DelaySource, ExecutionError, FailureKind};

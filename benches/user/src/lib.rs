//! The success path of `#[resilient]` measured in a crate shaped like a
//! user's, next to the references the targets name.
//!
//! * `shapes`: the functions, with `retry_on`, async bodies that await,
//!   and backon's equivalents;
//! * `ratios`: one process, slices interleaved, best slice: each row's cost
//!   per call, and the ratios of overheads that BENCHMARKS.md's headline
//!   table and CI's regression guard read; the async rows also with every
//!   call its own `block_on`, and boxed, as a server's per-request task;
//! * `sizes`: the size of each async shape's future, which those calls
//!   move or box, printed beside the ratios.
//!
//! `cargo run --release -p resilient-user-bench --bin ratios` prints the
//! table; `-- --short --check` is CI's guard. `cargo bench -p
//! resilient-user-bench` runs the same rows under criterion.

pub mod ratios;
pub mod shapes;
pub mod sizes;

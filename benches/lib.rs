//! Nothing to use: this package exists for its benchmarks (`overhead.rs`),
//! run with `cargo bench` from `benches/`, a workspace of its own.

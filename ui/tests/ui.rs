//! What `#[resilient]` rejects, with the exact error: each case in
//! `tests/ui/fail` is checked against its `.stderr` snapshot. What it
//! accepts is compiled and run by the `pass` test (`tests/pass`).
//!
//! Regenerate the snapshots after a deliberate change of a message with
//! `TRYBUILD=overwrite cargo test -p resilient-ui`.

#[test]
fn ui() {
    trybuild::TestCases::new().compile_fail("tests/ui/fail/*.rs");
}

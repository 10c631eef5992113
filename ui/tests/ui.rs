//! Compile-time behaviour of `#[resilient]`: what it accepts (`tests/ui/pass`,
//! compiled and run) and what it rejects, with the exact error
//! (`tests/ui/fail`, checked against the `.stderr` snapshots).
//!
//! Regenerate the snapshots after a deliberate change of a message with
//! `TRYBUILD=overwrite cargo test -p resilient-ui`.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/fail/*.rs");
    t.pass("tests/ui/pass/*.rs");
}

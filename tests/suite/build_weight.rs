//! What a crate that uses only the closure API builds: `resilient` with
//! `default-features = false` depends on no proc-macro crate (the
//! attribute is the `macros` feature; the errors write their own
//! `Display`), on tokio without its multi-thread runtime, and on `rand`
//! without its OS and ChaCha generators. `benches/build_weight.py` times
//! that build beside backon's (BENCHMARKS.md, "Build weight").

use std::collections::BTreeSet;
use std::process::Command;

/// `cargo tree` of `resilient` with `args`: each line once.
fn tree(args: &[&str]) -> BTreeSet<String> {
    let output = Command::new(env!("CARGO"))
        .args(["tree", "--offline", "-p", "resilient", "--prefix", "none"])
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| line.replace(" (*)", "").trim().to_owned())
        .filter(|line| !line.is_empty())
        .collect()
}

fn names(lines: &BTreeSet<String>) -> BTreeSet<&str> {
    lines
        .iter()
        .filter_map(|line| line.split(' ').next())
        .collect()
}

#[test]
fn the_closure_api_alone_builds_no_proc_macro_and_no_multi_thread_runtime() {
    let bare = tree(&["--no-default-features", "-e", "normal"]);
    let macros: Vec<&String> = bare.iter().filter(|l| l.contains("proc-macro")).collect();
    assert!(macros.is_empty(), "proc-macro crates: {macros:?}");
    assert_eq!(
        names(&bare),
        BTreeSet::from([
            "bitflags",
            "linux-raw-sys",
            "pin-project-lite",
            "rand",
            "rand_core",
            "resilient",
            "resilient-core",
            "rustix",
            "tokio",
        ]),
        "a new dependency of the closure API is a choice: BENCHMARKS.md's build weight says what it costs"
    );
    let features = tree(&[
        "--no-default-features",
        "-e",
        "normal,features",
        "-i",
        "tokio",
    ]);
    assert!(
        !features
            .iter()
            .any(|line| line.contains("\"rt-multi-thread\"")),
        "{features:?}"
    );
    let rand = tree(&[
        "--no-default-features",
        "-e",
        "normal,features",
        "-i",
        "rand",
    ]);
    for heavy in ["\"os_rng\"", "\"std_rng\"", "\"thread_rng\""] {
        assert!(!rand.iter().any(|line| line.contains(heavy)), "{rand:?}");
    }

    // The defaults add the attribute's proc-macro and the multi-thread
    // runtime: the test can tell.
    let defaults = tree(&["-e", "normal"]);
    assert!(
        defaults
            .iter()
            .any(|l| l.starts_with("resilient-macros") && l.contains("proc-macro"))
    );
    let features = tree(&["-e", "normal,features", "-i", "tokio"]);
    assert!(
        features
            .iter()
            .any(|line| line.contains("\"rt-multi-thread\""))
    );
}

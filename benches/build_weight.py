"""Build weight of the closure API next to backon: two crates written as a
backon user's crate is, one blocking and one async retry loop over a
flaky call, one with `resilient` (`default-features = false`: the closure
API alone) and one with backon (its default features). For each, the
crates its build compiles (`cargo tree`, normal dependencies, each crate
once), whether any is a proc-macro, and the median time of `runs` cold
`cargo build`s (a fresh target directory each time, debug profile, the
sources already downloaded), alternating the two crates.

    python3 benches/build_weight.py [runs]     # default 3

The crates are generated under target/build-weight/, outside the
workspace; they build offline from the registry cargo already holds."""

import pathlib
import statistics
import shutil
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "target" / "build-weight"
NUMBERS = [a for a in sys.argv[1:] if a.isdigit()]
RUNS = int(NUMBERS[0]) if NUMBERS else 3

COMMON = '''
use std::time::Duration;

#[derive(Debug)]
pub struct Busy;

impl std::fmt::Display for Busy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("busy")
    }
}

fn flaky(calls: &mut u32) -> Result<u32, Busy> {
    *calls += 1;
    if *calls < 3 { Err(Busy) } else { Ok(*calls) }
}

async fn flaky_async(calls: &std::sync::atomic::AtomicU32) -> Result<u32, Busy> {
    let n = calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
    if n < 3 { Err(Busy) } else { Ok(n) }
}
'''

CRATES = {
    "resilient": (
        '[dependencies]\nresilient = { path = "%s", default-features = false }\n' % ROOT,
        COMMON
        + '''
use resilient::{Backoff, RetryPolicy, Retryable};

static POLICY: RetryPolicy = RetryPolicy::builder()
    .max_attempts(4)
    .backoff(Backoff::exponential(Duration::from_millis(100), Duration::from_secs(5)))
    .build_const();

pub fn blocking() -> Result<u32, Busy> {
    let mut calls = 0;
    (|| flaky(&mut calls)).retry(&POLICY).call().into_result()
}

pub async fn non_blocking() -> Result<u32, Busy> {
    let calls = std::sync::atomic::AtomicU32::new(0);
    (|| flaky_async(&calls)).retry(&POLICY).call().await.into_result()
}
''',
    ),
    "backon": (
        '[dependencies]\nbackon = "1"\n',
        COMMON
        + '''
use backon::{BlockingRetryable, ExponentialBuilder, Retryable};

fn policy() -> ExponentialBuilder {
    ExponentialBuilder::default()
        .with_min_delay(Duration::from_millis(100))
        .with_max_delay(Duration::from_secs(5))
        .with_max_times(3)
        .with_jitter()
}

pub fn blocking() -> Result<u32, Busy> {
    let mut calls = 0;
    (|| flaky(&mut calls)).retry(policy()).call()
}

pub async fn non_blocking() -> Result<u32, Busy> {
    let calls = std::sync::atomic::AtomicU32::new(0);
    (|| flaky_async(&calls)).retry(policy()).await
}
''',
    ),
}


def write(name):
    crate = OUT / name
    (crate / "src").mkdir(parents=True, exist_ok=True)
    dependencies, source = CRATES[name]
    (crate / "Cargo.toml").write_text(
        '[package]\nname = "weight-%s"\nversion = "0.0.0"\nedition = "2024"\n\n'
        "[workspace]\n\n%s" % (name, dependencies)
    )
    (crate / "src" / "lib.rs").write_text(source)
    return crate


def crates(crate):
    tree = subprocess.run(
        ["cargo", "tree", "--offline", "-e", "normal", "--prefix", "none"],
        cwd=crate,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    seen = {line.replace(" (*)", "").strip() for line in tree.splitlines() if line.strip()}
    seen = {line for line in seen if not line.startswith("weight-")}
    return sorted(seen)


def cold_build(crate):
    target = crate / "target"
    shutil.rmtree(target, ignore_errors=True)
    start = time.monotonic()
    subprocess.run(
        ["cargo", "build", "--offline", "--quiet"], cwd=crate, check=True
    )
    return time.monotonic() - start


def main():
    made = {name: write(name) for name in CRATES}
    times = {name: [] for name in CRATES}
    for _ in range(RUNS):
        for name, crate in made.items():
            times[name].append(cold_build(crate))
    for name, crate in made.items():
        listed = crates(crate)
        macros = [c for c in listed if "(proc-macro)" in c]
        print(
            "%-9s %2d crates, %d proc-macro%s, cold build %.1f s (median of %d: %s)"
            % (
                name,
                len(listed),
                len(macros),
                "" if len(macros) == 1 else "s",
                statistics.median(times[name]),
                RUNS,
                ", ".join("%.1f" % t for t in times[name]),
            )
        )
        print("          " + ", ".join(listed))


if __name__ == "__main__":
    main()

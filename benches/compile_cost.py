"""Compile cost of the attribute next to the same functions written with
backon: a crate of 100 functions (the even ones blocking with retries, the
odd ones async with retries, a per-attempt timeout and a budget), rebuilt
in release with every dependency already built.

    python3 benches/compile_cost.py [runs]

Prints the median rebuild time of each crate over `runs` rebuilds (default
3) and their ratio. The crates are generated under target/compile-cost/,
outside the workspace."""

import pathlib
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "target" / "compile-cost"
RUNS = int(sys.argv[1]) if len(sys.argv) > 1 else 3
FUNCTIONS = 100

COMMON = '''
#[derive(Debug)]
pub struct Failure;

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("failure")
    }
}

impl std::error::Error for Failure {}

fn work(x: u64) -> Result<u64, Failure> {
    if x == u64::MAX { Err(Failure) } else { Ok(x.wrapping_mul(31)) }
}
'''


def with_resilient() -> str:
    parts = [COMMON, '''
impl From<resilient::TimedOut> for Failure {
    fn from(_: resilient::TimedOut) -> Self {
        Failure
    }
}
''']
    for i in range(FUNCTIONS):
        if i % 2 == 0:
            parts.append(f'''
#[resilient::resilient(retries = 3, backoff = exponential(base = "100ms", max = "10s"))]
pub fn call_{i}(x: u64) -> Result<u64, Failure> {{
    work(x + {i})
}}
''')
        else:
            parts.append(f'''
#[resilient::resilient(retries = 3, backoff = exponential(base = "100ms", max = "10s"), timeout = "10s", budget = "30s")]
pub async fn call_{i}(x: u64) -> Result<u64, Failure> {{
    work(x + {i})
}}
''')
    return "".join(parts)


def with_backon() -> str:
    parts = [COMMON, '''
use backon::{BlockingRetryable, ExponentialBuilder, Retryable};
use std::time::Duration;

fn policy() -> ExponentialBuilder {
    ExponentialBuilder::default()
        .with_min_delay(Duration::from_millis(100))
        .with_max_delay(Duration::from_secs(10))
        .with_max_times(3)
        .with_total_delay(Some(Duration::from_secs(30)))
        .with_jitter()
}
''']
    for i in range(FUNCTIONS):
        if i % 2 == 0:
            parts.append(f'''
pub fn call_{i}(x: u64) -> Result<u64, Failure> {{
    (|| work(x + {i})).retry(policy()).call()
}}
''')
        else:
            parts.append(f'''
pub async fn call_{i}(x: u64) -> Result<u64, Failure> {{
    let attempt = || async {{
        tokio::time::timeout(Duration::from_secs(10), async {{ work(x + {i}) }})
            .await
            .map_err(|_| Failure)?
    }};
    attempt.retry(policy()).sleep(tokio::time::sleep).await
}}
''')
    return "".join(parts)


def write(name: str, deps: str, source: str) -> None:
    crate = OUT / name
    (crate / "src").mkdir(parents=True, exist_ok=True)
    (crate / "Cargo.toml").write_text(f'''[package]
name = "{name}"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
{deps}

# Not a member of the project's workspace.
[workspace]
''')
    lib = crate / "src" / "lib.rs"
    if not lib.exists() or lib.read_text() != source:
        lib.write_text(source)


def build(crate: pathlib.Path) -> None:
    subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=crate, check=True)


def rebuild(name: str) -> float:
    """The median time of RUNS release rebuilds of the crate alone."""
    crate = OUT / name
    build(crate)  # its dependencies, once
    times = []
    for _ in range(RUNS):
        (crate / "src" / "lib.rs").touch()
        start = time.monotonic()
        build(crate)
        times.append(time.monotonic() - start)
    return statistics.median(times)


write(
    "with_resilient",
    f'resilient = {{ path = "{ROOT}" }}\ntokio = {{ version = "1", features = ["time"] }}',
    with_resilient(),
)
write(
    "with_backon",
    'backon = "1"\ntokio = { version = "1", features = ["time"] }',
    with_backon(),
)

ours = rebuild("with_resilient")
peer = rebuild("with_backon")
print(f"{FUNCTIONS} functions, release rebuild, dependencies built (median of {RUNS}):")
print(f"  #[resilient]  {ours:.2f} s")
print(f"  backon        {peer:.2f} s")
print(f"  ratio         {ours / peer:.2f}")

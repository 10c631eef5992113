"""Compile cost of the attribute next to the same functions written with
backon, in crates written as a user writes them: an error enum, `retry_on`
naming its retryable variants, async bodies that await another `async fn`,
cargo's default release profile.

    python3 benches/compile_cost.py [runs]          # release rebuilds, every shape
    python3 benches/compile_cost.py --llvm-lines    # LLVM IR lines of one function of each shape
    python3 benches/compile_cost.py --instructions [shape]   # rustc's instructions for one more function

The first prints, for 100 functions of each shape, the median time of
`runs` release rebuilds (default 3) with every dependency built, and the
ratio to backon; the two crates' rebuilds alternate, so that a slow
moment of the machine touches both. The shapes:

* mixed: the headline, half blocking with `retry_on`, half async with
  `retry_on`, `timeout` and `budget`;
* blocking, `retries` + `backoff`; the same with `retry_on`;
* async, `timeout` + `budget`; the same with `retry_on`.

`--llvm-lines` needs `cargo install cargo-llvm-lines`, and prints the IR
lines that one function of each shape adds to a crate, against backon's.
`--instructions` needs valgrind, and prints the instructions rustc
executes for one more function of each shape (a crate of eleven minus a
crate of one, under callgrind, divided by ten): unlike the rebuild times,
they don't move from one run to the next. A shape takes a few minutes.
The crates are generated under target/compile-cost/, outside the
workspace."""

import pathlib
import re
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "target" / "compile-cost"
LLVM_LINES = "--llvm-lines" in sys.argv
INSTRUCTIONS = "--instructions" in sys.argv
NUMBERS = [a for a in sys.argv[1:] if a.isdigit()]
RUNS = int(NUMBERS[0]) if NUMBERS else 3
ONLY = [a for a in sys.argv[1:] if a in ("mixed", "blocking", "blocking_retry_on", "async", "async_retry_on")]
FUNCTIONS = 100

COMMON = '''
#[derive(Debug)]
pub enum ProviderError {
    Timeout,
    Transient,
    Fatal,
}

impl std::fmt::Display for ProviderError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{self:?}")
    }
}

impl std::error::Error for ProviderError {}

#[inline(never)]
pub fn work(x: u64) -> Result<u64, ProviderError> {
    match x {
        u64::MAX => Err(ProviderError::Fatal),
        0 => Err(ProviderError::Transient),
        _ => Ok(x.wrapping_mul(31)),
    }
}

#[inline(never)]
pub async fn work_async(x: u64) -> Result<u64, ProviderError> {
    work(x)
}
'''

OURS_COMMON = '''
impl From<resilient::TimedOut> for ProviderError {
    fn from(_: resilient::TimedOut) -> Self {
        ProviderError::Timeout
    }
}
'''

BACKON_COMMON = '''
#[allow(unused_imports)] // a crate of one shape uses one of the two
use backon::{BlockingRetryable, ExponentialBuilder, Retryable};
use std::time::Duration;

fn policy() -> ExponentialBuilder {
    ExponentialBuilder::default()
        .with_min_delay(Duration::from_millis(100))
        .with_max_delay(Duration::from_secs(10))
        .with_max_times(3)
        .with_jitter()
}

fn budgeted() -> ExponentialBuilder {
    policy().with_total_delay(Some(Duration::from_secs(30)))
}

fn retryable(e: &ProviderError) -> bool {
    matches!(e, ProviderError::Timeout | ProviderError::Transient)
}
'''

RETRY_ON = 'retry_on = [Timeout, Transient]'
BACKOFF = 'backoff = exponential(base = "100ms", max = "10s")'


def ours(i: int, asynchronous: bool, retry_on: bool) -> str:
    options = ["retries = 3", BACKOFF]
    if retry_on:
        options.append(RETRY_ON)
    if asynchronous:
        options += ['timeout = "10s"', 'budget = "30s"']
        return f'''
#[resilient::resilient({", ".join(options)})]
pub async fn call_{i}(x: u64) -> Result<u64, ProviderError> {{
    work_async(x + {i}).await
}}
'''
    return f'''
#[resilient::resilient({", ".join(options)})]
pub fn call_{i}(x: u64) -> Result<u64, ProviderError> {{
    work(x + {i})
}}
'''


def backon(i: int, asynchronous: bool, retry_on: bool) -> str:
    when = ".when(retryable)" if retry_on else ""
    if asynchronous:
        return f'''
pub async fn call_{i}(x: u64) -> Result<u64, ProviderError> {{
    let attempt = || async {{
        tokio::time::timeout(Duration::from_secs(10), work_async(x + {i}))
            .await
            .map_err(|_| ProviderError::Timeout)?
    }};
    attempt.retry(budgeted()).sleep(tokio::time::sleep){when}.await
}}
'''
    return f'''
pub fn call_{i}(x: u64) -> Result<u64, ProviderError> {{
    (|| work(x + {i})).retry(policy()){when}.call()
}}
'''


# name: which functions are async, which have `retry_on`
SHAPES = {
    "mixed": (lambda i: i % 2 == 1, lambda i: True),
    "blocking": (lambda i: False, lambda i: False),
    "blocking_retry_on": (lambda i: False, lambda i: True),
    "async": (lambda i: True, lambda i: False),
    "async_retry_on": (lambda i: True, lambda i: True),
}


def source(side: str, shape: str, count: int) -> str:
    is_async, has_retry_on = SHAPES[shape]
    write_fn = ours if side == "resilient" else backon
    parts = [COMMON, OURS_COMMON if side == "resilient" else BACKON_COMMON]
    parts += [write_fn(i, is_async(i), has_retry_on(i)) for i in range(count)]
    return "".join(parts)


def write(name: str, side: str, text: str) -> pathlib.Path:
    crate = OUT / name
    (crate / "src").mkdir(parents=True, exist_ok=True)
    deps = (f'resilient = {{ path = "{ROOT}" }}' if side == "resilient" else 'backon = "1"')
    (crate / "Cargo.toml").write_text(f'''[package]
name = "{name}"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
{deps}
tokio = {{ version = "1", features = ["time"] }}

# Not a member of the project's workspace: cargo's default profiles.
[workspace]
''')
    lib = crate / "src" / "lib.rs"
    if not lib.exists() or lib.read_text() != text:
        lib.write_text(text)
    return crate


def build(crate: pathlib.Path) -> None:
    subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=crate, check=True)


def rebuilds(crates: list[pathlib.Path]) -> list[float]:
    """The median time of RUNS release rebuilds of each crate alone, the
    crates' rebuilds interleaved, so that a slow moment of the machine
    touches each alike."""
    for crate in crates:
        build(crate)  # its dependencies, once
    times = [[] for _ in crates]
    for _ in range(RUNS):
        for crate, kept in zip(crates, times):
            (crate / "src" / "lib.rs").touch()
            start = time.monotonic()
            build(crate)
            kept.append(time.monotonic() - start)
    return [statistics.median(kept) for kept in times]


def llvm_lines(crate: pathlib.Path) -> int:
    out = subprocess.run(
        ["cargo", "llvm-lines", "--release", "--quiet"],
        cwd=crate, check=True, capture_output=True, text=True,
    ).stdout
    total = re.search(r"^\s*(\d+)\s.*\(TOTAL\)", out, re.MULTILINE)
    return int(total.group(1))


def per_function_lines(side: str, shape: str) -> int:
    """The IR lines one function of `shape` adds: a crate of two minus a crate of one."""
    one = llvm_lines(write(f"{side}_{shape}_1", side, source(side, shape, 1)))
    two = llvm_lines(write(f"{side}_{shape}_2", side, source(side, shape, 2)))
    return two - one


def rustc_instructions(crate: pathlib.Path) -> int:
    """The instructions the crate's own rustc run executes, under callgrind."""
    build(crate)  # its dependencies
    (crate / "src" / "lib.rs").touch()
    verbose = subprocess.run(
        ["cargo", "build", "--release", "-v"],
        cwd=crate, check=True, capture_output=True, text=True,
    ).stderr
    command = next(
        line.strip()[len("Running `"):-1]
        for line in verbose.splitlines()
        if line.strip().startswith("Running `") and f"--crate-name {crate.name} " in line
    )
    out = crate / "target" / "callgrind"
    out.mkdir(exist_ok=True)
    command = re.sub(r"--out-dir \S+", f"--out-dir {out}", command)
    run = subprocess.run(
        f"valgrind --tool=callgrind --callgrind-out-file={out / 'callgrind.out'} {command}",
        shell=True, cwd=crate, check=True, capture_output=True, text=True,
    )
    return int(re.search(r"Collected : (\d+)", run.stderr).group(1))


def per_function_instructions(side: str, shape: str) -> float:
    """Millions of instructions one function of `shape` adds to the build."""
    one = rustc_instructions(write(f"{side}_{shape}_i1", side, source(side, shape, 1)))
    eleven = rustc_instructions(write(f"{side}_{shape}_i11", side, source(side, shape, 11)))
    return (eleven - one) / 10 / 1e6


def per_function_table(title: str, measure, figures: str) -> None:
    """Prints what one more function of each shape (but mixed) costs, by
    `measure(side, shape)`, beside backon's and as a ratio."""
    print(title)
    print(f"  {'shape':<20} {'#[resilient]':>12} {'backon':>8} {'ratio':>6}")
    for shape in [s for s in SHAPES if s != "mixed" and (len(ONLY) == 0 or s in ONLY)]:
        o = measure("resilient", shape)
        b = measure("backon", shape)
        print(f"  {shape:<20} {o:>12{figures}} {b:>8{figures}} {o / b:>5.2f}x")


if INSTRUCTIONS:
    per_function_table(
        "Millions of instructions rustc executes for one more function (callgrind):",
        per_function_instructions,
        ".1f",
    )
    sys.exit(0)

if LLVM_LINES:
    per_function_table(
        "LLVM IR lines one more function adds (cargo llvm-lines --release):",
        per_function_lines,
        "",
    )
    sys.exit(0)

print(f"{FUNCTIONS} functions of each shape, release rebuild, dependencies built (median of {RUNS}):")
print(f"  {'shape':<20} {'#[resilient]':>12} {'backon':>8} {'ratio':>6}")
for shape in [s for s in SHAPES if len(ONLY) == 0 or s in ONLY]:
    o, b = rebuilds([
        write(f"resilient_{shape}", "resilient", source("resilient", shape, FUNCTIONS)),
        write(f"backon_{shape}", "backon", source("backon", shape, FUNCTIONS)),
    ])
    print(f"  {shape:<20} {o:>11.2f}s {b:>7.2f}s {o / b:>5.2f}x")

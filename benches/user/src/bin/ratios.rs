//! Prints the success-path table of BENCHMARKS.md: every row's best time
//! per call and the ratios the targets name, from one run.
//!
//! `--short` measures for less time; `--check` exits with 1 when a ratio is
//! more than a quarter past its target (CI's regression guard).

use resilient_user_bench::ratios::{GUARD_SLACK, Plan, measure, ratios};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let plan = if args.iter().any(|a| a == "--short") {
        Plan::SHORT
    } else {
        Plan::FULL
    };
    let check = args.iter().any(|a| a == "--check");

    let rows = measure(plan);
    println!("| row | ns per call |\n|---|---:|");
    for row in &rows {
        println!("| {} | {:.1} |", row.name, row.ns);
    }
    println!();
    println!("| path | against | ratio | target |\n|---|---|---:|---:|");
    let mut regressed = Vec::new();
    for ratio in ratios(&rows) {
        let mark = if ratio.value <= ratio.target {
            "✓"
        } else {
            "✗"
        };
        println!(
            "| {} | {} | {:.2}× | ≤ {:.2}× {mark} |",
            ratio.path, ratio.against, ratio.value, ratio.target
        );
        if ratio.value > ratio.target * GUARD_SLACK {
            regressed.push(ratio);
        }
    }
    if check && !regressed.is_empty() {
        for ratio in &regressed {
            eprintln!(
                "regressed: {} at {:.2}×, more than {:.0} % past its target {:.2}×",
                ratio.path,
                ratio.value,
                (GUARD_SLACK - 1.0) * 100.0,
                ratio.target
            );
        }
        std::process::exit(1);
    }
}

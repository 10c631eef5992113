//! The guide's figures, drawn from the engine itself: each jitter mode's
//! schedule is what an `Operation` on a `FakeClock` sleeps, seed by seed,
//! so a change to the backoff changes the picture, and the test that
//! compares the files with this drawing fails until they are drawn again
//! (`cargo run --example figures`).

use std::fmt::Write;
use std::time::Duration;

use resilient::{Backoff, FakeClock, Jitter, Operation};

/// A figure: its path from the crate's root, and what draws it.
pub type Figure = (&'static str, fn() -> String);

/// The figures.
pub const FIGURES: [Figure; 2] = [
    ("src/guide/figures/jitter.svg", jitter),
    ("src/guide/figures/breaker.svg", breaker),
];

const BASE: Duration = Duration::from_millis(100);
const MAX: Duration = Duration::from_secs(2);
const ATTEMPTS: u32 = 10;
/// How many seeded calls each jitter panel draws.
pub const SEEDS: u64 = 30;

/// The modes drawn, in their panels' order, with the rule each follows.
const MODES: [(Jitter, &str, &str); 6] = [
    (Jitter::None, "None", "the delay itself"),
    (Jitter::Full, "Full", "uniform in [0, d]"),
    (Jitter::Equal, "Equal", "uniform in [d/2, d]"),
    (
        Jitter::Decorrelated,
        "Decorrelated",
        "uniform in [base, 3 × previous], cut at max",
    ),
    (
        Jitter::Additive,
        "Additive",
        "uniform in [d, 2d], cut at max",
    ),
    (
        Jitter::AdditiveUncapped,
        "AdditiveUncapped",
        "d cut at max, then uniform in [d, 2d]",
    ),
];

/// The sleeps of one failing call under `jitter` and `seed`.
fn schedule(jitter: Jitter, seed: u64) -> Vec<Duration> {
    let clock = FakeClock::new();
    let _ = Operation::new()
        .max_attempts(ATTEMPTS)
        .backoff(Backoff::exponential(BASE, MAX).jitter(jitter))
        .jitter_seed(seed)
        .clock(&clock)
        .run(|_| Err::<(), _>("busy"));
    clock.slept()
}

const PANEL_W: f64 = 320.0;
const PANEL_H: f64 = 220.0;
const LEFT: f64 = 44.0;
const TOP: f64 = 40.0;
const PLOT_W: f64 = PANEL_W - LEFT - 16.0;
const PLOT_H: f64 = PANEL_H - TOP - 30.0;
const Y_MAX_S: f64 = 4.0;

/// Six panels, one per jitter mode: a dot for every delay of 30 seeded
/// calls (base 100 ms, max 2 s, 10 attempts), over the unjittered delay.
pub fn jitter() -> String {
    let retries = ATTEMPTS - 1;
    let (width, height) = (PANEL_W * 3.0, PANEL_H * 2.0 + 24.0);
    let mut svg = String::new();
    let _ = write!(
        svg,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
         viewBox=\"0 0 {width} {height}\" style=\"max-width: 100%; height: auto\" font-family=\"sans-serif\" font-size=\"11\" \
         role=\"img\" aria-label=\"The delay before each retry, for each jitter mode\">\n\
         <rect width=\"{width}\" height=\"{height}\" fill=\"#ffffff\"/>\n\
         <text x=\"8\" y=\"{}\" fill=\"#555555\">Delay before each retry: \
         Backoff::exponential(100 ms, 2 s), 10 attempts, jitter_seed 1 to {SEEDS}; \
         the line is the delay before jitter, the dashed line the max.</text>\n",
        height - 8.0
    );
    for (index, (mode, name, rule)) in MODES.iter().enumerate() {
        let x0 = PANEL_W * (index % 3) as f64;
        let y0 = PANEL_H * (index / 3) as f64;
        let at = |retry: u32, delay: Duration| {
            let x = x0 + LEFT + PLOT_W * (f64::from(retry) - 0.5) / f64::from(retries);
            let y = y0 + TOP + PLOT_H * (1.0 - delay.as_secs_f64() / Y_MAX_S);
            (x, y)
        };
        let _ = write!(
            svg,
            "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"13\" font-weight=\"bold\">Jitter::{name}</text>\n\
             <text x=\"{:.1}\" y=\"{:.1}\" fill=\"#555555\">{rule}</text>\n",
            x0 + 8.0,
            y0 + 16.0,
            x0 + 8.0,
            y0 + 30.0
        );
        for second in 0..=Y_MAX_S as u32 {
            let (_, y) = at(0, Duration::from_secs(u64::from(second)));
            let _ = write!(
                svg,
                "<line x1=\"{:.1}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"#e4e4e4\"/>\n\
                 <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\" fill=\"#555555\">{second} s</text>\n",
                x0 + LEFT,
                x0 + LEFT + PLOT_W,
                x0 + LEFT - 4.0,
                y + 4.0
            );
        }
        for retry in 1..=retries {
            let (x, _) = at(retry, Duration::ZERO);
            let _ = writeln!(
                svg,
                "<text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"#555555\">{retry}</text>",
                y0 + TOP + PLOT_H + 14.0
            );
        }
        let (_, cap) = at(0, MAX);
        let _ = writeln!(
            svg,
            "<line x1=\"{:.1}\" y1=\"{cap:.1}\" x2=\"{:.1}\" y2=\"{cap:.1}\" stroke=\"#c0392b\" stroke-dasharray=\"4 3\"/>",
            x0 + LEFT,
            x0 + LEFT + PLOT_W
        );
        let nominal: Vec<String> = schedule(Jitter::None, 0)
            .iter()
            .zip(1..)
            .map(|(delay, retry)| {
                let (x, y) = at(retry, *delay);
                format!("{x:.1},{y:.1}")
            })
            .collect();
        let _ = writeln!(
            svg,
            "<polyline points=\"{}\" fill=\"none\" stroke=\"#888888\" stroke-width=\"1.5\"/>",
            nominal.join(" ")
        );
        // A delay past the max is drawn red: only AdditiveUncapped has them.
        let _ = writeln!(
            svg,
            "<g id=\"dots-{name}\" fill=\"#2166ac\" fill-opacity=\"0.35\">"
        );
        for seed in 1..=SEEDS {
            for (delay, retry) in schedule(*mode, seed).iter().zip(1..) {
                let (x, y) = at(retry, *delay);
                let past = if *delay > MAX {
                    " class=\"past-max\" fill=\"#c0392b\""
                } else {
                    ""
                };
                let _ = writeln!(svg, "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"2.2\"{past}/>");
            }
        }
        svg.push_str("</g>\n");
    }
    svg.push_str("</svg>\n");
    svg
}

/// The breaker's states and what moves it between them.
pub fn breaker() -> String {
    // (x, y, name, what it does)
    let states = [
        (140.0, 50.0, "Closed", "calls pass; failures counted"),
        (600.0, 50.0, "Open", "calls refused: CircuitOpen"),
        (370.0, 200.0, "HalfOpen", "a few probes pass"),
        (140.0, 330.0, "Isolated", "refused until reset()"),
    ];
    let (w, h) = (180.0, 56.0);
    let mut svg = String::from(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"820\" height=\"410\" viewBox=\"0 0 820 410\" style=\"max-width: 100%; height: auto\" \
         font-family=\"sans-serif\" font-size=\"12\" role=\"img\" aria-label=\"The circuit breaker's states\">\n\
         <rect width=\"820\" height=\"410\" fill=\"#ffffff\"/>\n\
         <defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"8\" markerHeight=\"8\" orient=\"auto-start-reverse\">\
         <path d=\"M 0 0 L 10 5 L 0 10 z\" fill=\"#444444\"/></marker></defs>\n",
    );
    for (x, y, name, does) in states {
        let _ = write!(
            svg,
            "<rect x=\"{x}\" y=\"{y}\" width=\"{w}\" height=\"{h}\" rx=\"10\" fill=\"#f4f7fb\" stroke=\"#2166ac\" stroke-width=\"1.5\"/>\n\
             <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"14\" font-weight=\"bold\">{name}</text>\n\
             <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"#555555\">{does}</text>\n",
            x + w / 2.0,
            y + 23.0,
            x + w / 2.0,
            y + 42.0
        );
    }
    // (from, to, label, where the label starts or ends, its anchor)
    let arrows = [
        (
            (320.0, 78.0),
            (600.0, 78.0),
            "failures reach the threshold or ratio",
            (460.0, 70.0),
            "middle",
        ),
        (
            (680.0, 106.0),
            (520.0, 200.0),
            "break_duration over",
            (612.0, 165.0),
            "start",
        ),
        (
            (480.0, 200.0),
            (640.0, 106.0),
            "a probe fails",
            (560.0, 128.0),
            "end",
        ),
        (
            (400.0, 200.0),
            (260.0, 106.0),
            "the probes succeed",
            (336.0, 158.0),
            "start",
        ),
        (
            (190.0, 106.0),
            (190.0, 330.0),
            "isolate(), from any state",
            (182.0, 225.0),
            "end",
        ),
        (
            (270.0, 330.0),
            (270.0, 106.0),
            "reset(), from any state",
            (278.0, 300.0),
            "start",
        ),
    ];
    for ((x1, y1), (x2, y2), label, (lx, ly), anchor) in arrows {
        let _ = write!(
            svg,
            "<line x1=\"{x1}\" y1=\"{y1}\" x2=\"{x2}\" y2=\"{y2}\" stroke=\"#444444\" stroke-width=\"1.3\" marker-end=\"url(#arrow)\"/>\n\
             <text x=\"{lx}\" y=\"{ly}\" text-anchor=\"{anchor}\" fill=\"#333333\">{label}</text>\n"
        );
    }
    svg.push_str("</svg>\n");
    svg
}

//! Draws the guide's figures (`src/guide/figures/*.svg`) from the engine's
//! own schedules; `tests/suite/figures_drawn.rs` fails while the files
//! differ from what this draws.
//!
//! Run with `cargo run --example figures`.

#[path = "support/figures.rs"]
mod figures;

fn main() -> std::io::Result<()> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for (path, draw) in figures::FIGURES {
        std::fs::write(root.join(path), draw())?;
        println!("drew {path}");
    }
    println!("each jitter panel: {} seeded calls", figures::SEEDS);
    Ok(())
}

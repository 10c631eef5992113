//! The guide's figures are what the engine does now: each is drawn again
//! here and compared with the file the guide shows.

#[path = "../../examples/support/figures.rs"]
mod figures;

#[test]
fn the_guides_figures_are_drawn_from_the_engine_as_it_is() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for (path, draw) in figures::FIGURES {
        let drawn = draw();
        let file = std::fs::read_to_string(root.join(path)).unwrap_or_default();
        assert!(
            file == drawn,
            "{path} is out of date: run `cargo run --example figures`"
        );
    }
}

#[test]
fn each_jitter_panel_has_a_dot_per_delay_and_only_uncapped_ones_pass_the_max() {
    let svg = figures::jitter();
    let panels: Vec<&str> = svg.split("<g id=\"dots-").skip(1).collect();
    assert_eq!(panels.len(), 6);
    for panel in panels {
        let (name, dots) = panel.split_once('"').unwrap();
        let dots = &dots[..dots.find("</g>").unwrap()];
        let delays = (figures::SEEDS * 9) as usize;
        assert_eq!(dots.matches("<circle").count(), delays, "{name}");
        let past = dots.matches("past-max").count();
        if name == "AdditiveUncapped" {
            // At the cap from the 6th retry: about half of those pass it.
            assert!(past > delays / 8, "{name}: {past} of {delays} past the max");
        } else {
            assert_eq!(past, 0, "{name} passed the max");
        }
    }
}

//! Tables of figures name what made them: every `--bench`, `--bin` and
//! `benches/…` path that BENCHMARKS.md, README.md and the guide
//! (`src/guide/`) name still exists,
//! so that a bench renamed or deleted fails here instead of leaving a
//! table no command can regenerate.

use std::collections::BTreeSet;
use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The benches the benches' workspace declares, by name.
fn benches() -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for manifest in ["benches/Cargo.toml", "benches/user/Cargo.toml"] {
        let text = std::fs::read_to_string(root().join(manifest)).unwrap();
        let mut in_bench = false;
        for line in text.lines() {
            let line = line.trim();
            if line.starts_with('[') {
                in_bench = line == "[[bench]]";
            } else if in_bench && let Some(name) = line.strip_prefix("name = ") {
                names.insert(name.trim_matches('"').to_owned());
            }
        }
    }
    names
}

/// The binaries of the benches' user crate, by name.
fn bins() -> BTreeSet<String> {
    std::fs::read_dir(root().join("benches/user/src/bin"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter_map(|path| Some(path.file_stem()?.to_str()?.to_owned()))
        .collect()
}

/// Every word after `flag` in `text`, with the line it is on.
fn after<'t>(text: &'t str, flag: &str) -> Vec<(usize, &'t str)> {
    let mut found = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let mut rest = line;
        while let Some(at) = rest.find(flag) {
            rest = &rest[at + flag.len()..];
            let word: &str = rest
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
                .next()
                .unwrap_or("");
            if !word.is_empty() {
                found.push((number + 1, word));
            }
        }
    }
    found
}

#[test]
fn every_bench_binary_and_path_a_figure_names_exists() {
    let (benches, bins) = (benches(), bins());
    assert!(
        benches.contains("overhead") && bins.contains("ratios"),
        "{benches:?} {bins:?}"
    );
    let mut missing = Vec::new();
    let mut named = 0;
    let mut docs = vec!["BENCHMARKS.md".to_owned(), "README.md".to_owned()];
    for entry in std::fs::read_dir(root().join("src/guide")).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if name.ends_with(".md") {
            docs.push(format!("src/guide/{name}"));
        }
    }
    for doc in &docs {
        let text = std::fs::read_to_string(root().join(doc)).unwrap();
        named += after(&text, "--bench ").len() + after(&text, "--bin ").len();
        for (line, name) in after(&text, "--bench ") {
            if !benches.contains(name) {
                missing.push(format!("{doc}:{line}: no bench `{name}`"));
            }
        }
        for (line, name) in after(&text, "--bin ") {
            if !bins.contains(name) {
                missing.push(format!("{doc}:{line}: no binary `{name}`"));
            }
        }
        for (line, path) in after(&text, "`benches/") {
            let path = path.trim_end_matches('-');
            if path == "target" {
                // Build output, which a clean clone does not have yet.
                continue;
            }
            let exists = ["", ".rs", ".py"]
                .iter()
                .any(|ext| root().join(format!("benches/{path}{ext}")).exists());
            if !exists {
                missing.push(format!("{doc}:{line}: no `benches/{path}`"));
            }
        }
    }
    assert!(
        named >= 10,
        "the documents name {named} benches and binaries: is the scan blind?"
    );
    assert!(
        missing.is_empty(),
        "figures name what no longer exists:\n{}",
        missing.join("\n")
    );
}

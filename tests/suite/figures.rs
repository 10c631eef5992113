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

/// The documents that hold figures: BENCHMARKS.md, README.md and the
/// guide's chapters.
fn documents() -> Vec<String> {
    let mut docs = vec!["BENCHMARKS.md".to_owned(), "README.md".to_owned()];
    for entry in std::fs::read_dir(root().join("src/guide")).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if name.ends_with(".md") {
            docs.push(format!("src/guide/{name}"));
        }
    }
    docs
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
    let docs = documents();
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

/// The tables of `text`, each with its first line's number and the text
/// between it and the heading or table before it, code blocks left out.
fn tables(text: &str) -> Vec<(usize, String, Vec<&str>)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    let (mut fenced, mut since) = (false, 0);
    let mut at = 0;
    while at < lines.len() {
        let line = lines[at];
        if line.starts_with("```") {
            fenced = !fenced;
        }
        let rule = lines.get(at + 1).is_some_and(|next| {
            next.starts_with("|-") || next.starts_with("|:") || next.starts_with("| -")
        });
        if !fenced && line.starts_with('|') && rule {
            let end = (at..lines.len())
                .find(|&i| !lines[i].starts_with('|'))
                .unwrap_or(lines.len());
            found.push((at + 1, lines[since..at].join("\n"), lines[at..end].to_vec()));
            since = end;
            at = end;
            continue;
        }
        if !fenced && line.starts_with('#') {
            since = at + 1;
        }
        at += 1;
    }
    found
}

/// Whether a table's cells hold measurements: a number with a unit of
/// time or a ratio, outside code spans.
fn holds_figures(rows: &[&str]) -> bool {
    rows.iter().skip(2).any(|row| {
        let mut outside = String::new();
        for (i, part) in row.split('`').enumerate() {
            if i % 2 == 0 {
                outside.push_str(part);
            }
        }
        let words: Vec<&str> = outside.split_whitespace().collect();
        words.windows(2).any(|pair| {
            pair[0].trim_start_matches("**").parse::<f64>().is_ok()
                && ["ns", "µs", "ms", "M"].contains(&pair[1].trim_end_matches([',', ')']))
        }) || words.iter().any(|word| {
            let word = word.trim_matches('*');
            word.strip_suffix('×')
                .is_some_and(|n| n.parse::<f64>().is_ok())
        })
    })
}

/// A commit's short hash: hex of 7 to 40 digits, with a letter and a digit.
fn names_a_commit(text: &str) -> bool {
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .any(|word| {
            (7..=40).contains(&word.len())
                && word
                    .chars()
                    .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
                && word.chars().any(|c| c.is_ascii_digit())
                && word.chars().any(|c| c.is_ascii_alphabetic())
        })
}

fn names_a_command(text: &str) -> bool {
    [
        "cargo ",
        "python3 ",
        "valgrind ",
        "--bin ratios",
        "`ratios`",
    ]
    .iter()
    .any(|command| text.contains(command))
}

#[test]
fn every_table_of_figures_names_its_commit_and_command() {
    let docs = documents();
    let (mut checked, mut unnamed) = (0, Vec::new());
    for doc in &docs {
        let text = std::fs::read_to_string(root().join(doc)).unwrap();
        for (line, before, rows) in tables(&text) {
            // Every table of BENCHMARKS.md is a table of figures.
            if doc != "BENCHMARKS.md" && !holds_figures(&rows) {
                continue;
            }
            checked += 1;
            if !names_a_commit(&before) || !names_a_command(&before) {
                unnamed.push(format!("{doc}:{line}"));
            }
        }
    }
    assert!(
        checked >= 25,
        "only {checked} tables of figures: is the scan blind?"
    );
    assert!(
        unnamed.is_empty(),
        "tables of figures that don't name the commit and the command that made them \
         (in the text between the heading or table before and the table):\n{}",
        unnamed.join("\n")
    );
}

#[test]
fn the_table_scan_tells_figures_from_prose() {
    assert!(holds_figures(&["| a | b |", "|---|---|", "| x | 1.5 ns |"]));
    assert!(holds_figures(&[
        "| a | b |",
        "|---|---|",
        "| x | **0.69×** |"
    ]));
    assert!(!holds_figures(&[
        "| a | b |",
        "|---|---|",
        "| `\"250ms\"` | 3 retries |"
    ]));
    assert!(names_a_commit("Recorded at 8ec242c, with"));
    assert!(!names_a_commit("a decade of defaced tables"));
}

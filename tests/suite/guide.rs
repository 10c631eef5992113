//! The README is a front page that leads into the guide: it stays short,
//! every link in it reaches a file (and a heading, where it names one),
//! and every chapter of the guide is both in the documentation and among
//! the doctests that run it.

use std::collections::BTreeSet;
use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The anchor GitHub gives a heading: lower case, spaces as `-`, other
/// punctuation dropped.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of `text`'s headings, code blocks left out.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut fenced = false;
    let mut found = BTreeSet::new();
    for line in text.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            found.insert(anchor(line.trim_start_matches('#')));
        }
    }
    found
}

/// Every `](target)` of `text` that is neither a URL nor an in-page anchor.
fn relative_links(text: &str) -> Vec<&str> {
    text.split("](")
        .skip(1)
        .filter_map(|rest| rest.split(')').next())
        .filter(|target| !target.starts_with("http") && !target.starts_with('#'))
        .collect()
}

/// The chapters, by file name, in `src/guide/`.
fn chapters() -> BTreeSet<String> {
    std::fs::read_dir(root().join("src/guide"))
        .unwrap()
        .filter_map(|entry| {
            let name = entry.unwrap().file_name().into_string().unwrap();
            name.strip_suffix(".md").map(str::to_owned)
        })
        .collect()
}

#[test]
fn the_readme_fits_on_a_page() {
    let lines = read("README.md").lines().count();
    assert!(
        lines <= 300,
        "README.md has {lines} lines; the guide holds the rest"
    );
}

#[test]
fn every_link_of_the_readme_reaches_its_file_and_heading() {
    let readme = read("README.md");
    let links = relative_links(&readme);
    assert!(
        links.iter().filter(|l| l.starts_with("src/guide/")).count() >= 10,
        "the README's feature map links the guide: {links:?}"
    );
    let mut broken = Vec::new();
    for link in links {
        let (file, heading) = link.split_once('#').unwrap_or((link, ""));
        let Ok(text) = std::fs::read_to_string(root().join(file)) else {
            broken.push(format!("{link}: no file"));
            continue;
        };
        if !heading.is_empty() && !anchors(&text).contains(heading) {
            broken.push(format!("{link}: no such heading"));
        }
    }
    assert!(
        broken.is_empty(),
        "README.md's broken links:\n{}",
        broken.join("\n")
    );
}

#[test]
fn every_chapter_is_in_the_docs_and_in_the_doctests() {
    let chapters = chapters();
    assert!(chapters.len() >= 10, "{chapters:?}");
    let docs = read("src/guide.rs");
    let doctests = read("integration/lib.rs");
    for chapter in &chapters {
        let file = format!("guide/{chapter}.md\"");
        assert!(
            docs.contains(&format!("include_str!(\"{file}")),
            "src/guide.rs doesn't show {chapter}.md"
        );
        assert!(
            docs.contains(&format!("pub mod {chapter} ")),
            "src/guide.rs has no module {chapter}"
        );
        assert!(
            doctests.contains(&format!("include_str!(\"../src/{file}")),
            "integration/lib.rs doesn't run {chapter}.md's examples"
        );
    }
}

#[test]
fn the_anchor_rule_is_githubs() {
    assert_eq!(
        anchor(" One breaker for a fleet: `RedisBreakerState`"),
        "one-breaker-for-a-fleet-redisbreakerstate"
    );
    assert_eq!(
        anchor("Coalescing: one execution for identical concurrent calls"),
        "coalescing-one-execution-for-identical-concurrent-calls"
    );
}

/// The lines of a code block that a reader counts: neither blank, nor
/// hidden (`# `), nor a comment.
fn counted_lines(block: &str) -> usize {
    block
        .lines()
        .filter(|line| {
            let trimmed = line.trim();
            !trimmed.is_empty()
                && !line.starts_with("# ")
                && *line != "#"
                && !trimmed.starts_with("//")
        })
        .count()
}

#[test]
fn the_side_by_side_with_backon_counts_its_lines_right() {
    let text = read("src/guide/coming_from.md");
    let section = &text[text.find("## Side by side with backon").unwrap()..];
    let section = &section[..section.find("\n## ").unwrap()];
    // The loops' blocks, in pairs after the declarations' block.
    let blocks: Vec<&str> = section
        .split("```rust")
        .skip(1)
        .map(|block| {
            let body = &block[block.find('\n').unwrap() + 1..];
            &body[..body.find("```").unwrap()]
        })
        .collect();
    let loops: Vec<(usize, usize)> = blocks[1..]
        .chunks(2)
        .map(|pair| {
            assert!(pair[0].contains("// backon") && pair[1].contains("// resilient"));
            (counted_lines(pair[0]), counted_lines(pair[1]))
        })
        .collect();
    assert_eq!(loops.len(), 4, "four loops side by side");
    // The table's rows, in the same order, then the total.
    let rows: Vec<(usize, usize)> = section
        .lines()
        .filter(|line| line.starts_with("| ") && !line.starts_with("| loop"))
        .map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            let number = |cell: &str| cell.split(' ').next().unwrap().parse::<usize>().unwrap();
            (number(cells[2]), number(cells[3]))
        })
        .collect();
    let total = loops
        .iter()
        .fold((0, 0), |(b, r), (lb, lr)| (b + lb, r + lr));
    assert_eq!(rows[..4], loops[..], "the table's counts");
    assert_eq!(rows[4], total, "the table's total");
    for (backon, ours) in &loops {
        assert!(ours <= backon, "a loop longer with us: {ours} > {backon}");
    }
    assert!(
        total.1 * 10 <= total.0 * 8,
        "at most 0.8× backon's lines: {total:?}"
    );
}

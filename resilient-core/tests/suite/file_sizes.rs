//! No source file of `resilient-core` or `resilient-macros` is over 800
//! lines, its tests excluded: a file that size holds more than one idea,
//! and the next change to it has to read them all.
//!
//! A file's tests are the modules compiled for tests only: an inline
//! `#[cfg(test)] mod tests { … }`, counted out line by line, and a file
//! declared by `#[cfg(test)] mod tests;`, not counted at all.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The most lines a source file has, its tests excluded.
const MOST_LINES: usize = 800;

#[test]
fn no_source_file_is_over_800_lines_without_its_tests() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut over = Vec::new();
    for src in [root.join("src"), root.join("../resilient-macros/src")] {
        for (path, lines) in sizes(&src) {
            if lines > MOST_LINES {
                over.push(format!("{} ({lines} lines)", path.display()));
            }
        }
    }
    assert!(
        over.is_empty(),
        "over {MOST_LINES} lines without their tests; split them along a seam:\n  {}",
        over.join("\n  ")
    );
}

/// An inline test module is counted out, up to its closing brace; what
/// follows it still counts.
#[test]
fn an_inline_test_module_is_counted_out() {
    let text = "fn a() {}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn t() { let _ = \"}\"; }\n}\n\nfn b() {}\n";
    let counted = counted_lines(text);
    assert_eq!(counted.lines, 4, "`fn a`, two blanks and `fn b`");
    assert!(counted.test_files.is_empty());
    let declared = counted_lines("mod live;\n#[cfg(test)]\nmod control_tests;\n");
    assert_eq!(declared.lines, 1);
    assert_eq!(
        declared.test_files,
        BTreeSet::from(["control_tests".to_owned()])
    );
}

/// Every `.rs` file under `src` that is not a test module's, with its
/// lines outside inline test modules.
fn sizes(src: &Path) -> Vec<(PathBuf, usize)> {
    let mut files = Vec::new();
    walk(src, &mut files);
    let mut tests = BTreeSet::new();
    let mut counted = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let count = counted_lines(&text);
        // A module declared in `a.rs` lives in `a/`; in `mod.rs` or
        // `lib.rs`, beside it.
        let dir = match path.file_name().and_then(|n| n.to_str()) {
            Some("mod.rs" | "lib.rs") => path.parent().unwrap().to_owned(),
            _ => path.with_extension(""),
        };
        for name in &count.test_files {
            tests.insert(dir.join(format!("{name}.rs")));
            tests.insert(dir.join(name).join("mod.rs"));
        }
        counted.push((path, count.lines));
    }
    counted.retain(|(path, _)| !tests.contains(path));
    counted
}

fn walk(dir: &Path, files: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            walk(&path, files);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            files.push(path);
        }
    }
}

/// What one file counts.
struct Counted {
    /// Its lines outside inline test modules.
    lines: usize,
    /// The modules it declares for tests only, each in a file of its own.
    test_files: BTreeSet<String>,
}

fn counted_lines(text: &str) -> Counted {
    let lines: Vec<&str> = text.lines().collect();
    let mut counted = Counted {
        lines: 0,
        test_files: BTreeSet::new(),
    };
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].trim();
        if is_test_only(line) {
            // The attribute's item: the next line that isn't an attribute.
            let mut item = i + 1;
            while item < lines.len() && lines[item].trim().starts_with("#[") {
                item += 1;
            }
            if let Some(declared) = lines.get(item).and_then(|l| module_declared(l.trim())) {
                counted.test_files.insert(declared.to_owned());
                i = item + 1;
                continue;
            }
            if lines.get(item).is_some_and(|l| is_module(l.trim())) {
                i = after_block(&lines, item);
                continue;
            }
        }
        counted.lines += 1;
        i += 1;
    }
    counted
}

fn is_test_only(line: &str) -> bool {
    line == "#[cfg(test)]" || line.starts_with("#[cfg(all(test,")
}

/// `name` of `mod name;` or `pub(crate) mod name;`.
fn module_declared(line: &str) -> Option<&str> {
    let rest = line.strip_suffix(';')?;
    let name = rest.rsplit_once("mod ")?.1;
    (is_module(line) && name.chars().all(|c| c.is_alphanumeric() || c == '_')).then_some(name)
}

fn is_module(line: &str) -> bool {
    line.starts_with("mod ") || line.starts_with("pub mod ") || line.starts_with("pub(crate) mod ")
}

/// The index of the line after the block that opens on `start`: braces
/// counted outside string literals, which a test's text may hold.
fn after_block(lines: &[&str], start: usize) -> usize {
    let mut depth = 0usize;
    for (index, line) in lines.iter().enumerate().skip(start) {
        let mut in_string = false;
        let mut escaped = false;
        for c in line.chars() {
            match c {
                _ if escaped => escaped = false,
                '\\' if in_string => escaped = true,
                '"' => in_string = !in_string,
                '{' if !in_string => depth += 1,
                '}' if !in_string => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return index + 1;
                    }
                }
                _ => {}
            }
        }
    }
    lines.len()
}

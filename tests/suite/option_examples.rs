//! Every option of the attribute is written in at least one runnable
//! example of its documentation. The names come from the one table of
//! options, `resilient-macros/src/options.rs`, so an option added there
//! fails this test until the attribute's rustdoc shows it in use.

use std::path::Path;

fn read(relative: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The names the table declares: the first argument of each
/// `OptionSpec::call(…` and `OptionSpec::new(…`, a string literal.
fn option_names(table: &str) -> Vec<&str> {
    ["OptionSpec::call(", "OptionSpec::new("]
        .iter()
        .flat_map(|opening| {
            table
                .match_indices(opening)
                .map(|(at, o)| &table[at + o.len()..])
        })
        .filter_map(|rest| rest.trim_start().strip_prefix('"'))
        .map(|name| &name[..name.find('"').expect("a closing quote")])
        .collect()
}

/// How many options the `OPTIONS` list holds, one a line.
fn listed(table: &str) -> usize {
    let start = table
        .find("const OPTIONS: &[OptionSpec] = &[")
        .expect("the list");
    let list = &table[start..];
    list[..list.find("];").expect("its end")].lines().count() - 1
}

/// The attributes written in the code blocks of the attribute's reference
/// (`resilient.md`, its rustdoc), each joined into one line: from a line
/// opening `#[…resilient(` to the one closing it with `)]`.
fn attributes_in_examples(source: &str) -> Vec<String> {
    let mut attributes = Vec::new();
    let (mut in_code, mut current): (bool, Option<String>) = (false, None);
    for line in source.lines() {
        let doc = line.trim();
        if doc.starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if !in_code {
            continue;
        }
        if current.is_none() && doc.starts_with("#[") && doc.contains("resilient(") {
            current = Some(String::new());
        }
        if let Some(attribute) = current.as_mut() {
            attribute.push_str(doc);
            attribute.push(' ');
            if doc.ends_with(")]") {
                attributes.extend(current.take());
            }
        }
    }
    attributes
}

/// Whether `name = …` is written in `attribute`, as a whole word.
fn sets(attribute: &str, name: &str) -> bool {
    attribute.match_indices(name).any(|(at, _)| {
        let before = attribute[..at].chars().next_back();
        let after = attribute[at + name.len()..].trim_start();
        !before.is_some_and(|c| c.is_alphanumeric() || c == '_') && after.starts_with('=')
    })
}

#[test]
fn every_option_of_the_table_has_a_doc_example() {
    let table = read("resilient-macros/src/options.rs");
    let names = option_names(&table);
    assert_eq!(
        names.len(),
        listed(&table),
        "every option is read: {names:?}"
    );
    let attributes = attributes_in_examples(&read("resilient-macros/src/resilient.md"));
    let missing: Vec<_> = names
        .iter()
        .filter(|name| !attributes.iter().any(|attribute| sets(attribute, name)))
        .collect();
    assert!(
        missing.is_empty(),
        "options without an example in the rustdoc of `#[resilient]`: {missing:?}"
    );
}

#[test]
fn an_option_is_matched_as_a_whole_word() {
    let attribute = "#[resilient(max_hedges = 2, retry_on = [A], max_rate_limit_wait = \"1s\")]";
    assert!(sets(attribute, "max_hedges"));
    assert!(!sets(attribute, "hedge"));
    assert!(!sets(attribute, "retry"));
    assert!(!sets(attribute, "rate_limit"));
    assert!(sets(attribute, "retry_on"));
}

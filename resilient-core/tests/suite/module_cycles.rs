//! No cycle between the modules of `resilient-core`: neither between its
//! top-level modules (`engine`, `breaker`, `report`, …) nor between the
//! files of any folder (`tower/`, `engine/`, `observe/`, …). A cycle
//! means a lower module reaches up into one that builds on it; what it
//! needs belongs further down.
//!
//! Read from the source under `src/`, starting at `lib.rs` and following
//! its `mod` declarations: each module's paths into another (`crate::…`,
//! `$crate::…`, `super::…`, `self::…`, in `use` items and in code, with
//! `use crate::{a, b::c}` groups expanded). Comments, doc comments, string
//! and char literals, and whatever is compiled for tests only
//! (`#[cfg(test)]`, `#[cfg(all(test, …))]`) are left out. A path through a
//! re-export (`crate::StopReason`, `crate::limit::LimitExceeded`) counts
//! as the module the item is defined in.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// A module's path from the crate root: `["tower", "call"]`.
type ModulePath = Vec<String>;

/// The edges between the modules of one level: from, to, and the first
/// line that makes the edge.
type Graph = BTreeMap<String, BTreeMap<String, Evidence>>;

/// Where a module names another.
#[derive(Debug, Clone)]
struct Evidence {
    /// The file, under `src/`.
    file: String,
    line: usize,
    /// The path it names, groups expanded: `crate::report::Nanos`, or
    /// `super::layer::Shared` within a folder.
    path: String,
}

#[test]
fn no_cycle_between_the_top_level_modules() {
    assert_acyclic(
        &[],
        "top-level modules of resilient-core",
        ("engine", "report"),
    );
}

#[test]
fn no_cycle_between_the_files_of_tower() {
    assert_acyclic(
        &["tower"],
        "files of resilient-core's tower/",
        ("call", "classify"),
    );
}

/// Every folder of `src/`, found on disk so that a new one is checked
/// too: the files of `engine/`, `observe/`, `observe/dashboard/`,
/// `breaker/`, … have no cycle among them either.
#[test]
fn no_cycle_between_the_files_of_any_folder() {
    let krate = Crate::read(&src());
    let mut folders = Vec::new();
    folders_under(&src(), &mut Vec::new(), &mut folders);
    assert!(
        folders
            .iter()
            .any(|folder| folder == &["observe", "dashboard"]),
        "the walk missed nested folders: {folders:?}"
    );
    let mut failures = String::new();
    for folder in &folders {
        let graph = krate.graph(folder);
        let found = cycles(&graph);
        if !found.is_empty() {
            let level = format!("files of resilient-core's {}/", folder.join("/"));
            failures.push_str(&report(&level, &graph, &found));
            failures.push('\n');
        }
    }
    assert!(failures.is_empty(), "{failures}");
}

/// The module paths of the folders under `dir`, `at` being its own.
fn folders_under(dir: &Path, at: &mut ModulePath, folders: &mut Vec<ModulePath>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("src/ reads")
        .map(|entry| entry.expect("an entry").path())
        .filter(|path| path.is_dir())
        .collect();
    entries.sort();
    for path in entries {
        let name = path
            .file_name()
            .and_then(|name| name.to_str())
            .expect("a UTF-8 name");
        at.push(name.to_owned());
        folders.push(at.clone());
        folders_under(&path, at, folders);
        at.pop();
    }
}

#[test]
fn the_detector_finds_a_cycle_in_a_small_graph() {
    let mut graph = Graph::new();
    for (from, to) in [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d"), ("d", "e")] {
        let evidence = Evidence {
            file: format!("{from}.rs"),
            line: 1,
            path: format!("crate::{to}"),
        };
        graph
            .entry(from.to_owned())
            .or_default()
            .insert(to.to_owned(), evidence);
    }
    assert_eq!(cycles(&graph), [["a", "b", "c"]]);
    let message = report("a small graph", &graph, &cycles(&graph));
    assert!(message.contains("a b c"), "{message}");
    assert!(
        message.contains("c → a: c.rs:1 names crate::a"),
        "{message}"
    );
    assert!(!message.contains("c → d"), "{message}");

    graph.get_mut("c").unwrap().remove("a");
    assert!(cycles(&graph).is_empty());
}

#[test]
fn paths_are_read_from_code_only() {
    let source = r##"
//! crate::in_a_doc_comment
use crate::{alpha, beta::gamma};
use super::delta::{self, Epsilon as Renamed};
/* crate::in_a /* nested */ block comment */
const TEXT: &str = "crate::in_a_string";
const RAW: &str = r#"crate::in_a_raw_string"#;
fn f<'a>(x: &'a str) -> char {
    crate::zeta::call(x);
    '{'
}
#[cfg(test)]
mod tests {
    use crate::in_tests;
}
#[cfg(all(test, loom))]
mod loom {
    use crate::in_loom_tests;
}
#[cfg(not(all(test, loom)))]
use crate::theta;
mod inner {
    pub(crate) use super::super::iota::Kappa;
}
"##;
    let file = File::parse("top/file.rs", vec!["top".into(), "file".into()], source);
    let read: Vec<(ModulePath, Vec<String>)> = file
        .references()
        .map(|(scope, path, _)| (scope, path))
        .collect();
    let strings =
        |parts: &[&str]| -> ModulePath { parts.iter().map(|part| part.to_string()).collect() };
    let file_scope = strings(&["top", "file"]);
    assert_eq!(
        read,
        [
            (file_scope.clone(), strings(&["alpha"])),
            (file_scope.clone(), strings(&["beta", "gamma"])),
            (file_scope.clone(), strings(&["top", "delta"])),
            (file_scope.clone(), strings(&["top", "delta", "Epsilon"])),
            (file_scope.clone(), strings(&["zeta", "call"])),
            (file_scope, strings(&["theta"])),
            (
                strings(&["top", "file", "inner"]),
                strings(&["top", "iota", "Kappa"])
            ),
        ]
    );
    let bindings: Vec<_> = file.bindings().map(|(_, name, _)| name).collect();
    assert_eq!(
        bindings,
        ["alpha", "gamma", "delta", "Renamed", "theta", "Kappa"]
    );
}

#[test]
fn a_re_export_counts_as_the_module_that_defines_the_item() {
    let file = |name: &str, module: &[&str], source: &str| {
        let module = module.iter().map(|part| part.to_string()).collect();
        File::parse(name, module, source)
    };
    let source = Crate::of(vec![
        file("lib.rs", &[], "mod a;\nmod b;\nmod c;\npub use b::Thing;\n"),
        file(
            "a.rs",
            &["a"],
            "fn f() -> crate::Thing { crate::b::Thing }\n",
        ),
        file("b.rs", &["b"], "pub use crate::c::Thing;\n"),
        file("c.rs", &["c"], "pub struct Thing;\n"),
    ]);
    let graph = source.graph(&[]);
    let edges: Vec<(&str, &str)> = graph
        .iter()
        .flat_map(|(from, to)| to.keys().map(move |to| (from.as_str(), to.as_str())))
        .collect();
    assert_eq!(edges, [("a", "c"), ("b", "c")]);
    assert_eq!(graph["a"]["c"].path, "crate::Thing");
}

/// `resilient-core/src`.
fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Fails, naming each cycle's modules and edges, if the children of
/// `parent` have one. `known` is an edge that is there: a reader that
/// missed paths would find no cycle either.
fn assert_acyclic(parent: &[&str], level: &str, known: (&str, &str)) {
    let parent: ModulePath = parent.iter().map(|name| name.to_string()).collect();
    let graph = Crate::read(&src()).graph(&parent);
    let (from, to) = known;
    assert!(
        graph.get(from).is_some_and(|edges| edges.contains_key(to)),
        "no edge {from} → {to} was read among the {level}: the reader misses paths"
    );
    let found = cycles(&graph);
    assert!(found.is_empty(), "{}", report(level, &graph, &found));
}

/// What a failure says: each cycle, its edges, and where each is made.
fn report(level: &str, graph: &Graph, cycles: &[Vec<String>]) -> String {
    let mut message = String::new();
    for cycle in cycles {
        let _ = writeln!(
            message,
            "a cycle between {} {level}: {}",
            cycle.len(),
            cycle.join(" ")
        );
        for from in cycle {
            for (to, evidence) in &graph[from] {
                if cycle.contains(to) {
                    let _ = writeln!(
                        message,
                        "  {from} → {to}: {}:{} names {}",
                        evidence.file, evidence.line, evidence.path
                    );
                }
            }
        }
    }
    message.push_str(
        "Move what a lower module takes from a higher one down (into it, or into a leaf both can use), so that the edges run one way.",
    );
    message
}

/// The strongly connected components of `graph` with more than one
/// module, each sorted, in order (Tarjan's algorithm).
fn cycles(graph: &Graph) -> Vec<Vec<String>> {
    struct Search<'g> {
        graph: &'g Graph,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        found: Vec<Vec<String>>,
    }

    impl<'g> Search<'g> {
        fn visit(&mut self, node: &'g str) {
            let index = self.index.len();
            self.index.insert(node, index);
            self.low.insert(node, index);
            self.stack.push(node);
            for next in self.graph.get(node).into_iter().flat_map(BTreeMap::keys) {
                let next = next.as_str();
                if !self.index.contains_key(next) {
                    self.visit(next);
                    let low = self.low[node].min(self.low[next]);
                    self.low.insert(node, low);
                } else if self.stack.contains(&next) {
                    let low = self.low[node].min(self.index[next]);
                    self.low.insert(node, low);
                }
            }
            if self.low[node] == index {
                let at = self.stack.iter().rposition(|&n| n == node).unwrap();
                let mut component: Vec<String> =
                    self.stack.drain(at..).map(str::to_owned).collect();
                if component.len() > 1 {
                    component.sort();
                    self.found.push(component);
                }
            }
        }
    }

    let mut search = Search {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        found: Vec::new(),
    };
    for node in graph.keys() {
        if !search.index.contains_key(node.as_str()) {
            search.visit(node);
        }
    }
    search.found.sort();
    search.found
}

/// Every file of the crate, found from `lib.rs` through its `mod`
/// declarations, and the names its modules bind with `use`.
struct Crate {
    files: Vec<File>,
    modules: BTreeSet<ModulePath>,
    /// `(module, name)` → the path `use` binds it to, within the crate.
    bindings: BTreeMap<(ModulePath, String), ModulePath>,
}

impl Crate {
    fn read(src: &Path) -> Crate {
        let mut files = Vec::new();
        read_file(src, &src.join("lib.rs"), Vec::new(), true, &mut files);
        Crate::of(files)
    }

    fn of(files: Vec<File>) -> Crate {
        let mut modules = BTreeSet::new();
        for file in &files {
            modules.insert(file.module.clone());
            modules.extend(file.inline_modules());
        }
        let mut bindings = BTreeMap::new();
        for file in &files {
            for (scope, name, target) in file.bindings() {
                // A bare path is a child module's, or another crate's.
                let target = match target.first().map(String::as_str) {
                    Some("crate" | "$crate" | "self" | "super") => absolute(&scope, &target),
                    Some(_) => {
                        let mut local = scope.clone();
                        local.extend(target.into_iter().filter(|s| s != "self"));
                        modules.contains(&local[..=scope.len()]).then_some(local)
                    }
                    None => None,
                };
                if let Some(target) = target {
                    bindings.entry((scope, name)).or_insert(target);
                }
            }
        }
        Crate {
            files,
            modules,
            bindings,
        }
    }

    /// The module that defines what `path` names, through re-exports.
    fn defining_module(&self, path: &[String]) -> ModulePath {
        let mut path = path.to_vec();
        // A chain of re-exports is short; a longer one would be a loop.
        for _ in 0..16 {
            let module = (0..=path.len())
                .rev()
                .find(|&len| self.modules.contains(&path[..len]))
                .unwrap_or(0);
            let Some(name) = path.get(module) else {
                return path;
            };
            match self.bindings.get(&(path[..module].to_vec(), name.clone())) {
                Some(target) => path = [target.clone(), path[module + 1..].to_vec()].concat(),
                None => return path[..module].to_vec(),
            }
        }
        panic!("re-exports that loop: {path:?}");
    }

    /// The edges between the children of `parent`, from the files under
    /// each child.
    fn graph(&self, parent: &[String]) -> Graph {
        let depth = parent.len();
        let child = |module: &[String]| {
            (module.len() > depth && module.starts_with(parent)).then(|| module[depth].clone())
        };
        let mut graph = Graph::new();
        for file in &self.files {
            for (scope, path, line) in file.references() {
                let (Some(from), Some(to)) = (child(&scope), child(&self.defining_module(&path)))
                else {
                    continue;
                };
                if from != to {
                    let evidence = Evidence {
                        file: file.name.clone(),
                        line,
                        path: written(&scope, &path),
                    };
                    graph.entry(from).or_default().entry(to).or_insert(evidence);
                }
            }
        }
        graph
    }
}

/// Reads `path`, the module `module`, and the files of the modules it
/// declares; `owns_dir` for `lib.rs` and `mod.rs`, whose children sit
/// beside them.
fn read_file(src: &Path, path: &Path, module: ModulePath, owns_dir: bool, files: &mut Vec<File>) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let name = path.strip_prefix(src).unwrap().display().to_string();
    let file = File::parse(&name, module, &text);
    let dir = if owns_dir {
        path.parent().unwrap().to_owned()
    } else {
        path.with_extension("")
    };
    let (children, depth) = (file.declared_modules(), file.module.len());
    files.push(file);
    for child in children {
        // `mod a { mod b; }` is `a/b.rs`.
        let mut base = dir.clone();
        base.extend(&child[depth..]);
        let (leaf, dir_mod) = (base.with_extension("rs"), base.join("mod.rs"));
        if leaf.is_file() {
            read_file(src, &leaf, child, false, files);
        } else if dir_mod.is_file() {
            read_file(src, &dir_mod, child, true, files);
        } else {
            panic!("no file for the module {}", child.join("::"));
        }
    }
}

/// `path` from the crate root, as the module `scope` writes it.
fn absolute(scope: &[String], path: &[String]) -> Option<ModulePath> {
    let (first, rest) = path.split_first()?;
    let mut resolved = match first.as_str() {
        "crate" | "$crate" => Vec::new(),
        "self" => scope.to_vec(),
        "super" => {
            let ups = 1 + rest.iter().take_while(|s| *s == "super").count();
            scope[..scope.len().checked_sub(ups)?].to_vec()
        }
        _ => return None,
    };
    // `{self, …}` in a group names the path before it.
    resolved.extend(
        rest.iter()
            .filter(|s| *s != "self" && *s != "super")
            .cloned(),
    );
    Some(resolved)
}

/// How a path from the crate root is shown: `crate::a::b`, or, within
/// the module's own parent, `super::b`.
fn written(scope: &[String], path: &[String]) -> String {
    let parent = &scope[..scope.len().saturating_sub(1)];
    match path.strip_prefix(parent) {
        Some(rest) if !parent.is_empty() => format!("super::{}", rest.join("::")),
        _ => format!("crate::{}", path.join("::")),
    }
}

/// One source file, its code as tokens.
struct File {
    /// Its path under `src/`.
    name: String,
    /// The module it is.
    module: ModulePath,
    tokens: Vec<Token>,
    /// The module each token is in: the file's, or an inline `mod`'s in it.
    scopes: Vec<ModulePath>,
    /// Whether each token is at the level of items of its module (not in
    /// a function, an `impl` or a type).
    at_item_level: Vec<bool>,
}

struct Token {
    text: String,
    line: usize,
}

impl File {
    fn parse(name: &str, module: ModulePath, source: &str) -> File {
        let code = without_test_items(&without_comments_and_literals(source));
        let tokens = tokenize(&code);
        // Each open brace, and the module it opens if it is an inline `mod`.
        let mut open: Vec<Option<String>> = Vec::new();
        let mut scope = module.clone();
        let (mut scopes, mut at_item_level) = (Vec::new(), Vec::new());
        for (i, token) in tokens.iter().enumerate() {
            match token.text.as_str() {
                "{" => {
                    let opens_module = i >= 2 && tokens[i - 2].text == "mod";
                    let name = opens_module.then(|| tokens[i - 1].text.clone());
                    if let Some(name) = &name {
                        scope.push(name.clone());
                    }
                    open.push(name);
                }
                "}" => {
                    if let Some(Some(_)) = open.pop() {
                        scope.pop();
                    }
                }
                _ => {}
            }
            scopes.push(scope.clone());
            at_item_level.push(open.iter().all(Option::is_some));
        }
        File {
            name: name.to_owned(),
            module,
            tokens,
            scopes,
            at_item_level,
        }
    }

    fn text(&self, at: usize) -> &str {
        self.tokens.get(at).map_or("", |token| token.text.as_str())
    }

    /// Each path into the crate, from the crate root, with the module it
    /// is written in and its line.
    fn references(&self) -> impl Iterator<Item = (ModulePath, ModulePath, usize)> + '_ {
        (0..self.tokens.len())
            .filter(|&at| {
                matches!(self.text(at), "crate" | "$crate" | "super" | "self")
                    && self.text(at + 1) == "::"
                    && (at == 0 || self.text(at - 1) != "::")
            })
            .flat_map(move |at| {
                let scope = &self.scopes[at];
                tree(&self.tokens, at)
                    .0
                    .into_iter()
                    .filter_map(move |(path, _)| absolute(scope, &path))
                    .map(move |path| (scope.clone(), path, self.tokens[at].line))
            })
    }

    /// Each name a `use` item binds: its module, the name, and the path as
    /// written.
    fn bindings(&self) -> impl Iterator<Item = (ModulePath, String, Vec<String>)> + '_ {
        (0..self.tokens.len())
            .filter(|&at| self.text(at) == "use" && self.at_item_level[at])
            .flat_map(move |at| {
                let scope = &self.scopes[at];
                tree(&self.tokens, at + 1)
                    .0
                    .into_iter()
                    .filter_map(move |(path, alias)| {
                        let name =
                            alias.or_else(|| path.iter().rev().find(|s| *s != "self").cloned())?;
                        Some((scope.clone(), name, path))
                    })
            })
    }

    /// The modules declared here without a body (`mod name;`), whose
    /// code is in a file of their own.
    fn declared_modules(&self) -> Vec<ModulePath> {
        (0..self.tokens.len())
            .filter(|&at| {
                self.text(at) == "mod" && self.at_item_level[at] && self.text(at + 2) == ";"
            })
            .map(|at| [self.scopes[at].clone(), vec![self.text(at + 1).to_owned()]].concat())
            .collect()
    }

    /// The modules declared here with a body.
    fn inline_modules(&self) -> impl Iterator<Item = ModulePath> + '_ {
        self.scopes
            .iter()
            .filter(|scope| scope.len() > self.module.len())
            .cloned()
    }
}

/// A path of a use tree, and the name it is renamed to (`as`).
type Leaf = (Vec<String>, Option<String>);

/// The paths of the use tree (or the path) that starts at `tokens[at]`,
/// and where it ends.
fn tree(tokens: &[Token], mut at: usize) -> (Vec<Leaf>, usize) {
    let text = |at: usize| tokens.get(at).map_or("", |token| token.text.as_str());
    if text(at) == "{" {
        let mut paths = Vec::new();
        at += 1;
        while at < tokens.len() && text(at) != "}" {
            if text(at) == "," {
                at += 1;
                continue;
            }
            let (mut inner, next) = tree(tokens, at);
            paths.append(&mut inner);
            at = next.max(at + 1);
        }
        return (paths, at + 1);
    }
    let mut segments = Vec::new();
    while is_identifier(text(at)) {
        segments.push(text(at).to_owned());
        at += 1;
        if text(at) != "::" {
            break;
        }
        at += 1;
        match text(at) {
            "{" => {
                let (inner, next) = tree(tokens, at);
                let paths = inner
                    .into_iter()
                    .map(|(rest, alias)| ([segments.clone(), rest].concat(), alias))
                    .collect();
                return (paths, next);
            }
            // A glob binds no name of its own.
            "*" => return (vec![(segments, Some("*".to_owned()))], at + 1),
            _ => {}
        }
    }
    let mut alias = None;
    if text(at) == "as" && is_identifier(text(at + 1)) {
        alias = Some(text(at + 1).to_owned());
        at += 2;
    }
    if segments.is_empty() {
        return (Vec::new(), at);
    }
    (vec![(segments, alias)], at)
}

fn is_identifier(text: &str) -> bool {
    text.starts_with(|c: char| c.is_alphabetic() || c == '_' || c == '$')
}

/// Identifiers (`$crate` among them), `::`, and every other character
/// alone, each with its line.
fn tokenize(code: &str) -> Vec<Token> {
    let chars: Vec<char> = code.chars().collect();
    let mut tokens = Vec::new();
    let (mut at, mut line) = (0, 1);
    while at < chars.len() {
        let c = chars[at];
        let start = at;
        if c == '\n' {
            line += 1;
            at += 1;
            continue;
        } else if c.is_whitespace() {
            at += 1;
            continue;
        } else if c.is_alphanumeric() || c == '_' || c == '$' {
            at += 1;
            while at < chars.len() && (chars[at].is_alphanumeric() || chars[at] == '_') {
                at += 1;
            }
        } else if c == ':' && chars.get(at + 1) == Some(&':') {
            at += 2;
        } else {
            at += 1;
        }
        tokens.push(Token {
            text: chars[start..at].iter().collect(),
            line,
        });
    }
    tokens
}

/// `source` with its comments and its string and char literals blanked,
/// its lines kept.
fn without_comments_and_literals(source: &str) -> String {
    let chars: Vec<char> = source.chars().collect();
    let mut code: Vec<char> = chars.clone();
    let mut blank = |from: usize, to: usize| {
        for c in &mut code[from..to.min(chars.len())] {
            if *c != '\n' {
                *c = ' ';
            }
        }
    };
    let identifier = |at: usize| chars[at].is_alphanumeric() || chars[at] == '_';
    let mut at = 0;
    while at < chars.len() {
        let next = chars.get(at + 1).copied();
        let start = at;
        match chars[at] {
            '/' if next == Some('/') => {
                while at < chars.len() && chars[at] != '\n' {
                    at += 1;
                }
            }
            '/' if next == Some('*') => {
                let mut depth = 0;
                while at < chars.len() {
                    if chars[at] == '/' && chars.get(at + 1) == Some(&'*') {
                        depth += 1;
                        at += 2;
                    } else if chars[at] == '*' && chars.get(at + 1) == Some(&'/') {
                        depth -= 1;
                        at += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        at += 1;
                    }
                }
            }
            '"' => {
                at += 1;
                while at < chars.len() && chars[at] != '"' {
                    at += if chars[at] == '\\' { 2 } else { 1 };
                }
                at += 1;
            }
            // `r"…"`, `r#"…"#`, `br#"…"#`: no escapes, closed by as many `#`.
            'r' if (at == 0
                || !identifier(at - 1)
                || (chars[at - 1] == 'b' && (at == 1 || !identifier(at - 2))))
                && matches!(next, Some('"' | '#')) =>
            {
                let hashes = chars[at + 1..].iter().take_while(|&&c| c == '#').count();
                if chars.get(at + 1 + hashes) != Some(&'"') {
                    at += 1;
                    continue;
                }
                at += hashes + 2;
                let closing: Vec<char> = std::iter::once('"')
                    .chain(std::iter::repeat_n('#', hashes))
                    .collect();
                while at < chars.len() && !chars[at..].starts_with(&closing) {
                    at += 1;
                }
                at += closing.len();
            }
            // A char literal, not a lifetime (`'a`).
            '\'' if next == Some('\\') => {
                at += 2;
                while at < chars.len() && chars[at] != '\'' {
                    at += 1;
                }
                at += 1;
            }
            '\'' if chars.get(at + 2) == Some(&'\'') => at += 3,
            _ => {
                at += 1;
                continue;
            }
        }
        blank(start, at);
    }
    code.into_iter().collect()
}

/// `code` (without comments and literals) with every item or statement
/// compiled for tests only blanked: under `#[cfg(test)]` or
/// `#[cfg(all(test, …))]`.
fn without_test_items(code: &str) -> String {
    let chars: Vec<char> = code.chars().collect();
    let mut kept = chars.clone();
    let mut at = 0;
    while at < chars.len() {
        if !(chars[at] == '#' && chars.get(at + 1) == Some(&'[')) {
            at += 1;
            continue;
        }
        let close = matching(&chars, at + 1);
        let attribute: String = chars[at + 2..close]
            .iter()
            .filter(|c| !c.is_whitespace())
            .collect();
        let test_only = attribute
            .strip_prefix("cfg(")
            .and_then(|rest| rest.strip_suffix(')'))
            .is_some_and(only_for_tests);
        if !test_only {
            at = close + 1;
            continue;
        }
        // The item ends at a `;` or a closed `{…}` of its own, or where
        // the list or block it sits in goes on (`,`) or ends.
        let mut end = close + 1;
        let mut depth = 0usize;
        while end < chars.len() {
            match chars[end] {
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' if depth == 0 => break,
                ')' | ']' => depth -= 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end += 1;
                        break;
                    }
                }
                ';' if depth == 0 => {
                    end += 1;
                    break;
                }
                ',' if depth == 0 => break,
                _ => {}
            }
            end += 1;
        }
        for c in &mut kept[at..end] {
            if *c != '\n' {
                *c = ' ';
            }
        }
        at = end;
    }
    kept.into_iter().collect()
}

/// Whether the `cfg` predicate `predicate` (without spaces) holds only
/// in tests: `test`, or `all(…)` of something that does.
fn only_for_tests(predicate: &str) -> bool {
    if predicate == "test" {
        return true;
    }
    let Some(inner) = predicate
        .strip_prefix("all(")
        .and_then(|rest| rest.strip_suffix(')'))
    else {
        return false;
    };
    let (mut depth, mut from) = (0, 0);
    let mut parts = Vec::new();
    for (at, c) in inner.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[from..at]);
                from = at + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[from..]);
    parts.into_iter().any(only_for_tests)
}

/// The index of the bracket that closes the one at `open`.
fn matching(chars: &[char], open: usize) -> usize {
    let mut depth = 0;
    for (at, &c) in chars.iter().enumerate().skip(open) {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => {
                depth -= 1;
                if depth == 0 {
                    return at;
                }
            }
            _ => {}
        }
    }
    chars.len() - 1
}

//! The public API of `resilient` and `resilient-core`, listed from their
//! sources and compared with `public-api.txt`: a change to the API is then
//! a diff of that file in review, and a change nobody meant fails here.
//!
//! After an intended change, write the list again:
//! `API=overwrite cargo test -p resilient-api`.
//!
//! The lister reads the crates as the compiler would reach them: from each
//! crate's root, through `mod` declarations, to every item that is `pub` in
//! a `pub` module, and every `pub use` resolved to the item it names (a
//! glob lists the module it names). Each line is an item's public path and
//! its signature: a function's, a type's public fields or variants, a
//! trait's items, the methods of a type's inherent impls and the traits it
//! implements. Items behind a feature say so (`#[cfg(…)]`), hidden ones
//! say `#[doc(hidden)]`; `__private` and the `__resilient_*` macros, the
//! attribute's protocol, are not listed, and nor is anything under
//! `cfg(test)`, `cfg(doctest)` or `cfg(loom)`.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

use quote::ToTokens;
use syn::{Attribute, ImplItem, Item, TraitItem, UseTree, Visibility};

/// A module: its items.
struct Module {
    items: Vec<Item>,
}

/// A crate's modules by path, and its impl blocks.
struct Crate {
    name: &'static str,
    modules: HashMap<Vec<String>, Module>,
    impls: Vec<(String, syn::ItemImpl)>,
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn parse(file: &Path) -> Vec<Item> {
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    syn::parse_file(&text)
        .unwrap_or_else(|e| panic!("{}: {e}", file.display()))
        .items
}

/// Whether `attrs` leave the item out of a build users get.
fn test_only(attrs: &[Attribute]) -> bool {
    attrs.iter().any(|attr| {
        attr.path().is_ident("cfg") && {
            let text = attr.meta.to_token_stream().to_string();
            let text = text.replace(' ', "");
            text == "cfg(test)"
                || text == "cfg(doctest)"
                || text.starts_with("cfg(all(test")
                || text == "cfg(loom)"
                || text.contains("cfg(any(test,loom))")
        }
    })
}

/// What a line says of an item beyond its signature: the features it
/// needs, whether it is hidden, deprecated, non-exhaustive, and its derives.
fn notes(attrs: &[Attribute]) -> String {
    let mut notes = String::new();
    for attr in attrs {
        let path = attr.path();
        let keep = path.is_ident("cfg")
            || path.is_ident("deprecated")
            || path.is_ident("non_exhaustive")
            || path.is_ident("derive")
            || path.is_ident("proc_macro_attribute")
            || (path.is_ident("doc") && attr.meta.to_token_stream().to_string().contains("hidden"));
        if keep {
            notes.push_str(&tidy(&attr.to_token_stream().to_string()));
            notes.push(' ');
        }
    }
    notes
}

/// Token text made readable: no space where rustfmt would put none.
fn tidy(text: &str) -> String {
    let mut text = text.to_owned();
    for (from, to) in [
        (" :: ", "::"),
        (":: ", "::"),
        ("# [", "#["),
        ("& ", "&"),
        (" ,", ","),
        (" ;", ";"),
        (" :", ":"),
        ("( ", "("),
        (" )", ")"),
        ("[ ", "["),
        (" ]", "]"),
        ("< ", "<"),
        (" <", "<"),
        (" >", ">"),
        ("? ", "?"),
        (" (", "("),
        ("->(", "-> ("),
        (":(", ": ("),
        (":: (", "::("),
        ("! (", "!("),
    ] {
        text = text.replace(from, to);
    }
    text
}

fn is_pub(vis: &Visibility) -> bool {
    matches!(vis, Visibility::Public(_))
}

impl Crate {
    fn load(name: &'static str, lib: &str) -> Crate {
        let mut krate = Crate {
            name,
            modules: HashMap::new(),
            impls: Vec::new(),
        };
        let lib = root().join(lib);
        let dir = lib.parent().unwrap().to_owned();
        krate.walk(Vec::new(), parse(&lib), &dir);
        krate
    }

    /// Records the module at `path`, whose child files are in `dir`.
    fn walk(&mut self, path: Vec<String>, items: Vec<Item>, dir: &Path) {
        for item in &items {
            match item {
                Item::Mod(module) if !test_only(&module.attrs) => {
                    let name = module.ident.to_string();
                    let mut child = path.clone();
                    child.push(name.clone());
                    let child_dir = dir.join(&name);
                    if let Some((_, content)) = &module.content {
                        self.walk(child, content.clone(), &child_dir);
                        continue;
                    }
                    let file = module
                        .attrs
                        .iter()
                        .find(|attr| attr.path().is_ident("path"))
                        .map(|attr| {
                            let syn::Meta::NameValue(value) = &attr.meta else {
                                panic!("#[path] without a value")
                            };
                            let text = value.value.to_token_stream().to_string();
                            dir.join(text.trim_matches('"'))
                        })
                        .unwrap_or_else(|| {
                            let flat = dir.join(format!("{name}.rs"));
                            if flat.exists() {
                                flat
                            } else {
                                child_dir.join("mod.rs")
                            }
                        });
                    self.walk(child, parse(&file), &child_dir);
                }
                Item::Impl(block) if !test_only(&block.attrs) => {
                    let owner = last_ident(&block.self_ty);
                    self.impls.push((owner, block.clone()));
                }
                _ => {}
            }
        }
        self.modules.insert(path, Module { items });
    }
}

/// The last identifier of a type's path (`Operation` of `Operation<T, E>`).
fn last_ident(ty: &syn::Type) -> String {
    match ty {
        syn::Type::Path(path) => path
            .path
            .segments
            .last()
            .map(|segment| segment.ident.to_string())
            .unwrap_or_default(),
        syn::Type::Reference(reference) => last_ident(&reference.elem),
        _ => String::new(),
    }
}

/// The crates, by the names their dependents use for them.
struct World {
    crates: Vec<Crate>,
}

/// Where a listing is: the crate and module it reads, the public path it
/// writes under, and the notes of the modules on the way.
#[derive(Clone)]
struct Place<'w> {
    krate: &'w Crate,
    module: Vec<String>,
    public: String,
    notes: String,
}

struct Listing<'w> {
    world: &'w World,
    /// The crate whose API is listed: a re-export of another crate's item
    /// is a `pub use` line rather than the item (resilient re-exports all
    /// of resilient-core, listed in its own section).
    listing: &'static str,
    lines: BTreeSet<String>,
    seen: HashSet<(String, Vec<String>, String)>,
}

impl<'w> Listing<'w> {
    fn module(&mut self, place: Place<'w>) {
        let key = (
            place.krate.name.to_owned(),
            place.module.clone(),
            place.public.clone(),
        );
        if !self.seen.insert(key) {
            return;
        }
        let Some(module) = place.krate.modules.get(&place.module) else {
            return;
        };
        for item in &module.items {
            self.item(&place, item);
        }
    }

    fn line(&mut self, notes: &str, path: &str, signature: &str) {
        // Each note once, in the order first given.
        let mut kept: Vec<&str> = Vec::new();
        for note in notes
            .split(" #[")
            .map(|note| note.trim_start_matches("#[").trim_end())
        {
            if !note.is_empty() && !kept.contains(&note) {
                kept.push(note);
            }
        }
        let notes: String = kept
            .iter()
            .map(|note| format!("#[{} ", note.trim_end()))
            .collect();
        self.lines
            .insert(format!("{path}: {}{}", tidy(&notes), tidy(signature)));
    }

    fn item(&mut self, place: &Place<'w>, item: &Item) {
        let (attrs, vis, name) = match item {
            Item::Fn(f) => (&f.attrs, &f.vis, f.sig.ident.to_string()),
            Item::Struct(s) => (&s.attrs, &s.vis, s.ident.to_string()),
            Item::Enum(e) => (&e.attrs, &e.vis, e.ident.to_string()),
            Item::Union(u) => (&u.attrs, &u.vis, u.ident.to_string()),
            Item::Trait(t) => (&t.attrs, &t.vis, t.ident.to_string()),
            Item::Type(t) => (&t.attrs, &t.vis, t.ident.to_string()),
            Item::Const(c) => (&c.attrs, &c.vis, c.ident.to_string()),
            Item::Static(s) => (&s.attrs, &s.vis, s.ident.to_string()),
            Item::Mod(m) => (&m.attrs, &m.vis, m.ident.to_string()),
            Item::Use(u) => (&u.attrs, &u.vis, String::new()),
            _ => return,
        };
        if !is_pub(vis) || test_only(attrs) || name == "__private" {
            return;
        }
        let notes = format!("{}{}", place.notes, notes(attrs));
        let path = format!("{}::{name}", place.public);
        match item {
            Item::Mod(_) => {
                self.line(&notes, &path, &format!("mod {name}"));
                let mut module = place.module.clone();
                module.push(name);
                self.module(Place {
                    krate: place.krate,
                    module,
                    public: path,
                    notes,
                });
            }
            Item::Use(u) => self.reexport(place, &notes, &u.tree, Vec::new()),
            _ => self.named(place.krate, (&place.notes, &notes), &path, item, &name),
        }
    }

    /// An item under its public path, with its impls.
    /// `notes` are those of the place (for its impls) and of the item.
    fn named(&mut self, krate: &Crate, notes: (&str, &str), path: &str, item: &Item, name: &str) {
        let (place_notes, notes) = notes;
        self.line(notes, path, &signature(item, name));
        let is_type = matches!(
            item,
            Item::Struct(_) | Item::Enum(_) | Item::Union(_) | Item::Type(_)
        );
        let is_trait = matches!(item, Item::Trait(_));
        for (owner, block) in &krate.impls {
            let of_trait = block.trait_.as_ref().map(|(bang, trait_path, _)| {
                let ident = trait_path.segments.last().map(|s| s.ident.to_string());
                (bang.is_some(), ident.unwrap_or_default(), trait_path)
            });
            let header = || {
                let mut header = block.clone();
                header.items.clear();
                header.attrs.retain(|attr| attr.path().is_ident("cfg"));
                let text = header.to_token_stream().to_string();
                text.trim_end_matches("{ }")
                    .trim_end_matches("{}")
                    .trim()
                    .to_owned()
            };
            let impl_notes = format!("{place_notes}{}", self::notes(&block.attrs));
            match &of_trait {
                None if is_type && owner == name => {
                    for member in &block.items {
                        self.member(&impl_notes, path, member);
                    }
                }
                Some((_, _, _)) if is_type && owner == name => {
                    self.line(&impl_notes, path, &header());
                }
                Some((_, trait_name, _)) if is_trait && trait_name == name && owner != name => {
                    self.line(&impl_notes, path, &header());
                }
                _ => {}
            }
        }
    }

    /// A public method or constant of an inherent impl.
    fn member(&mut self, notes: &str, path: &str, member: &ImplItem) {
        match member {
            ImplItem::Fn(f) if is_pub(&f.vis) && !test_only(&f.attrs) => {
                let notes = format!("{notes}{}", self::notes(&f.attrs));
                self.line(&notes, &format!("{path}::{}", f.sig.ident), &clean(&f.sig));
            }
            ImplItem::Const(c) if is_pub(&c.vis) && !test_only(&c.attrs) => {
                let notes = format!("{notes}{}", self::notes(&c.attrs));
                let ty = c.ty.to_token_stream();
                self.line(
                    &notes,
                    &format!("{path}::{}", c.ident),
                    &format!("const {}: {ty}", c.ident),
                );
            }
            _ => {}
        }
    }

    /// Every leaf of a `pub use` tree, resolved where it names one of the
    /// crates' own items.
    fn reexport(&mut self, place: &Place<'w>, notes: &str, tree: &UseTree, prefix: Vec<String>) {
        match tree {
            UseTree::Path(path) => {
                let mut prefix = prefix;
                prefix.push(path.ident.to_string());
                self.reexport(place, notes, &path.tree, prefix);
            }
            UseTree::Group(group) => {
                for tree in &group.items {
                    self.reexport(place, notes, tree, prefix.clone());
                }
            }
            UseTree::Name(name) => {
                let ident = name.ident.to_string();
                self.resolve(place, notes, prefix, &ident, &ident);
            }
            UseTree::Rename(rename) => {
                let (ident, alias) = (rename.ident.to_string(), rename.rename.to_string());
                self.resolve(place, notes, prefix, &ident, &alias);
            }
            UseTree::Glob(_) => {
                let target = self.target(place, &prefix);
                match target {
                    Some((krate, module)) if krate.name == self.listing => {
                        self.module(Place {
                            krate,
                            module,
                            public: place.public.clone(),
                            notes: notes.to_owned(),
                        });
                    }
                    _ => {
                        let text = format!("pub use {}::*", prefix.join("::"));
                        self.line(notes, &place.public, &text);
                    }
                }
            }
        }
    }

    /// The crate and module that `prefix`, written in `place`'s module,
    /// names; `None` for another crate's.
    fn target(&self, place: &Place<'w>, prefix: &[String]) -> Option<(&'w Crate, Vec<String>)> {
        let (first, rest) = prefix.split_first()?;
        let (krate, mut module) = match first.as_str() {
            "crate" => (place.krate, Vec::new()),
            "self" => (place.krate, place.module.clone()),
            "super" => {
                let mut module = place.module.clone();
                module.pop();
                (place.krate, module)
            }
            other => {
                if let Some(krate) = self.world.crates.iter().find(|k| k.name == other) {
                    (krate, Vec::new())
                } else {
                    let mut module = place.module.clone();
                    module.push(other.to_owned());
                    if !place.krate.modules.contains_key(&module) {
                        return None;
                    }
                    (place.krate, module)
                }
            }
        };
        for segment in rest {
            if segment == "super" {
                module.pop();
            } else {
                module.push(segment.clone());
            }
        }
        krate
            .modules
            .contains_key(&module)
            .then_some((krate, module))
    }

    fn resolve(
        &mut self,
        place: &Place<'w>,
        notes: &str,
        prefix: Vec<String>,
        ident: &str,
        alias: &str,
    ) {
        let public = format!("{}::{alias}", place.public);
        let written = if prefix.is_empty() {
            ident.to_owned()
        } else {
            format!("{}::{ident}", prefix.join("::"))
        };
        let unresolved = |listing: &mut Self| {
            let text = if ident == alias {
                format!("pub use {written}")
            } else {
                format!("pub use {written} as {alias}")
            };
            listing.line(notes, &place.public, &text);
        };
        let Some((krate, module)) = self.target(place, &prefix) else {
            // `use self::x` and a module's own name.
            if prefix.is_empty() || prefix == ["self"] {
                let mut module = place.module.clone();
                module.push(ident.to_owned());
                if ident != "self" && place.krate.modules.contains_key(&module) {
                    let target = Place {
                        krate: place.krate,
                        module,
                        public,
                        notes: notes.to_owned(),
                    };
                    return self.module(target);
                }
            }
            return unresolved(self);
        };
        if krate.name != self.listing && krate.name != "resilient_macros" {
            return unresolved(self);
        }
        if ident == "self" {
            let alias_path = format!("{}::{}", place.public, prefix.last().unwrap());
            return self.module(Place {
                krate,
                module,
                public: alias_path,
                notes: notes.to_owned(),
            });
        }
        let mut child = module.clone();
        child.push(ident.to_owned());
        if krate.modules.contains_key(&child) {
            return self.module(Place {
                krate,
                module: child,
                public,
                notes: notes.to_owned(),
            });
        }
        let items = &krate.modules[&module].items;
        for item in items {
            let found = match item {
                Item::Fn(f) => f.sig.ident == ident,
                Item::Struct(s) => s.ident == ident,
                Item::Enum(e) => e.ident == ident,
                Item::Union(u) => u.ident == ident,
                Item::Trait(t) => t.ident == ident,
                Item::Type(t) => t.ident == ident,
                Item::Const(c) => c.ident == ident,
                Item::Static(s) => s.ident == ident,
                _ => false,
            };
            if found && !test_only(item_attrs(item)) {
                let item_notes = format!("{notes}{}", self::notes(item_attrs(item)));
                return self.named(krate, (notes, &item_notes), &public, item, alias);
            }
        }
        // A re-export of a re-export: follow it from the module it is in.
        for item in items {
            if let Item::Use(used) = item
                && is_pub(&used.vis)
                && let Some(prefix) = leaf_prefix(&used.tree, ident)
            {
                let from = Place {
                    krate,
                    module: module.clone(),
                    public: place.public.clone(),
                    notes: notes.to_owned(),
                };
                if prefix.is_empty() {
                    return unresolved(self);
                }
                if self.target(&from, &prefix).is_some() {
                    return self.resolve(&from, notes, prefix, ident, alias);
                }
            }
        }
        unresolved(self)
    }
}

/// The path before `ident` in a use tree that names it.
fn leaf_prefix(tree: &UseTree, ident: &str) -> Option<Vec<String>> {
    match tree {
        UseTree::Path(path) => {
            let mut rest = leaf_prefix(&path.tree, ident)?;
            rest.insert(0, path.ident.to_string());
            Some(rest)
        }
        UseTree::Group(group) => group.items.iter().find_map(|tree| leaf_prefix(tree, ident)),
        UseTree::Name(name) if name.ident == ident => Some(Vec::new()),
        _ => None,
    }
}

fn item_attrs(item: &Item) -> &[Attribute] {
    match item {
        Item::Fn(f) => &f.attrs,
        Item::Struct(s) => &s.attrs,
        Item::Enum(e) => &e.attrs,
        Item::Union(u) => &u.attrs,
        Item::Trait(t) => &t.attrs,
        Item::Type(t) => &t.attrs,
        Item::Const(c) => &c.attrs,
        Item::Static(s) => &s.attrs,
        _ => &[],
    }
}

/// A function's signature as callers see it: a `mut` binding is the
/// body's business.
fn clean(sig: &syn::Signature) -> String {
    let mut sig = sig.clone();
    for input in &mut sig.inputs {
        match input {
            syn::FnArg::Receiver(receiver) => {
                if receiver.reference.is_none() {
                    receiver.mutability = None;
                }
            }
            syn::FnArg::Typed(typed) => {
                if let syn::Pat::Ident(ident) = &mut *typed.pat {
                    ident.mutability = None;
                }
                typed.attrs.clear();
            }
        }
    }
    sig.to_token_stream().to_string()
}

/// Keeps only the attributes that change what users can rely on.
fn strip(attrs: &mut Vec<Attribute>) {
    attrs.retain(|attr| attr.path().is_ident("cfg") || attr.path().is_ident("non_exhaustive"));
}

/// An item's signature, as `alias`: no bodies, no docs, no private fields.
fn signature(item: &Item, alias: &str) -> String {
    let ident = syn::Ident::new(alias, proc_macro2::Span::call_site());
    match item.clone() {
        Item::Fn(mut f) => {
            f.sig.ident = ident;
            clean(&f.sig)
        }
        Item::Struct(mut s) => {
            s.attrs.clear();
            s.ident = ident;
            let hidden = s.fields.iter().any(|field| !is_pub(&field.vis));
            let mut fields = s.fields.clone();
            let public = |fields: &syn::punctuated::Punctuated<syn::Field, syn::token::Comma>| {
                fields
                    .iter()
                    .filter(|field| is_pub(&field.vis))
                    .cloned()
                    .map(|mut field| {
                        strip(&mut field.attrs);
                        field
                    })
                    .collect()
            };
            match &mut fields {
                syn::Fields::Named(named) => named.named = public(&named.named),
                syn::Fields::Unnamed(unnamed) => unnamed.unnamed = public(&unnamed.unnamed),
                syn::Fields::Unit => {}
            }
            s.fields = fields;
            let text = s.to_token_stream().to_string();
            if hidden {
                format!("{text} /* and private fields */")
            } else {
                text
            }
        }
        Item::Enum(mut e) => {
            e.attrs.clear();
            e.ident = ident;
            for variant in &mut e.variants {
                strip(&mut variant.attrs);
                variant.discriminant = None;
                for field in variant.fields.iter_mut() {
                    strip(&mut field.attrs);
                }
            }
            e.to_token_stream().to_string()
        }
        Item::Union(mut u) => {
            u.attrs.clear();
            u.ident = ident;
            u.to_token_stream().to_string()
        }
        Item::Trait(mut t) => {
            t.attrs.clear();
            t.ident = ident;
            for member in &mut t.items {
                match member {
                    TraitItem::Fn(f) => {
                        strip(&mut f.attrs);
                        for input in &mut f.sig.inputs {
                            if let syn::FnArg::Typed(typed) = input
                                && let syn::Pat::Ident(ident) = &mut *typed.pat
                            {
                                ident.mutability = None;
                            }
                        }
                        f.default = None;
                        f.semi_token = Some(Default::default());
                    }
                    TraitItem::Const(c) => {
                        strip(&mut c.attrs);
                        c.default = None;
                    }
                    TraitItem::Type(t) => {
                        strip(&mut t.attrs);
                        t.default = None;
                    }
                    _ => {}
                }
            }
            t.to_token_stream().to_string()
        }
        Item::Type(mut t) => {
            t.attrs.clear();
            t.ident = ident;
            t.to_token_stream().to_string()
        }
        Item::Const(c) => format!("pub const {alias}: {}", c.ty.to_token_stream()),
        Item::Static(s) => format!("pub static {alias}: {}", s.ty.to_token_stream()),
        other => other.to_token_stream().to_string(),
    }
}

/// The list, as `public-api.txt` holds it.
fn list() -> String {
    let world = World {
        crates: vec![
            Crate::load("resilient", "src/lib.rs"),
            Crate::load("resilient_core", "resilient-core/src/lib.rs"),
            Crate::load("resilient_macros", "resilient-macros/src/lib.rs"),
        ],
    };
    let mut text = String::from(
        "# The public API of `resilient` and `resilient-core`, one line per item:\n\
         # its public path, then its signature. Written by api/tests/public_api.rs;\n\
         # after an intended change: API=overwrite cargo test -p resilient-api\n",
    );
    for name in ["resilient", "resilient_core"] {
        let krate = world.crates.iter().find(|k| k.name == name).unwrap();
        let mut listing = Listing {
            world: &world,
            listing: name,
            lines: BTreeSet::new(),
            seen: HashSet::new(),
        };
        listing.module(Place {
            krate,
            module: Vec::new(),
            public: name.to_owned(),
            notes: String::new(),
        });
        // `#[macro_export]` puts a macro at the crate's root from any module.
        for module in krate.modules.values() {
            for item in &module.items {
                if let Item::Macro(m) = item
                    && let Some(ident) = &m.ident
                    && m.attrs.iter().any(|a| a.path().is_ident("macro_export"))
                    && !ident.to_string().starts_with("__")
                {
                    let path = format!("{name}::{ident}");
                    listing.line(&notes(&m.attrs), &path, &format!("macro_rules! {ident}"));
                }
            }
        }
        text.push_str(&format!("\n## {name}: {} items\n\n", listing.lines.len()));
        for line in listing.lines {
            text.push_str(&line);
            text.push('\n');
        }
    }
    text
}

#[test]
fn the_public_api_is_the_one_listed() {
    let file = root().join("api/public-api.txt");
    let listed = list();
    if std::env::var("API").as_deref() == Ok("overwrite") {
        std::fs::write(&file, &listed).unwrap();
        return;
    }
    let kept = std::fs::read_to_string(&file).unwrap_or_default();
    if kept != listed {
        let kept: BTreeSet<&str> = kept.lines().collect();
        let now: BTreeSet<&str> = listed.lines().collect();
        let mut diff = String::new();
        for gone in kept.difference(&now) {
            diff.push_str(&format!("- {gone}\n"));
        }
        for new in now.difference(&kept) {
            diff.push_str(&format!("+ {new}\n"));
        }
        panic!(
            "the public API changed; if that is meant, write the list again with \
             `API=overwrite cargo test -p resilient-api` and say so in CHANGELOG.md:\n{diff}"
        );
    }
}

#[test]
fn the_list_reaches_items_through_modules_and_reexports() {
    let listed = list();
    // Defined in a private module, re-exported at the root.
    assert!(
        listed.contains("\nresilient_core::Operation: "),
        "Operation"
    );
    assert!(
        listed.contains("\nresilient_core::Operation::new: "),
        "a method"
    );
    // A public module's item, and a renamed module.
    assert!(
        listed.contains("\nresilient_core::limit::Bulkhead: "),
        "Bulkhead"
    );
    assert!(
        listed.contains("\nresilient_core::metrics::"),
        "observe::series as metrics"
    );
    // The attribute, through the facade.
    assert!(listed.contains("\nresilient::resilient: "), "the attribute");
    assert!(
        listed.contains("resilient: pub use resilient_core::*"),
        "the glob"
    );
    // The macro's protocol is not API.
    assert!(!listed.contains("__private"), "__private is listed");
}

//! Writes the option matrix's accepted combinations (see
//! `tests/option_matrix/table.rs`) for the `option_matrix` test to compile.

#[allow(dead_code, reason = "the test reads the rest of the table")]
#[path = "tests/option_matrix/table.rs"]
mod table;

fn main() {
    println!("cargo::rerun-if-changed=tests/option_matrix");
    let out = std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR");
    let path = std::path::Path::new(&out).join("option_matrix.rs");
    std::fs::write(path, table::accepted_source()).expect("OUT_DIR is writable");
}

//! `marker_error!`: `Display` and `Error` for the unit structs the engine
//! converts into the caller's error (`TimedOut`, `CircuitOpen`, …) and the
//! like, written once for each by its text. A leaf: every module that
//! declares such an error uses it.

/// `Display` (the text given) and `Error` for a marker error: a unit
/// struct the engine converts into the caller's error.
macro_rules! marker_error {
    ($Type:ident, $text:literal) => {
        impl std::fmt::Display for $Type {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str($text)
            }
        }

        impl std::error::Error for $Type {}
    };
}
pub(crate) use marker_error;

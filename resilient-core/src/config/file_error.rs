//! [`ConfigFileError`]: the errors of a configuration's text, every one of
//! them, in line order.

use std::fmt;

use crate::error::ConfigError;

/// A key that failed its rule: its path, its line (TOML only) and why.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfigFileError {
    pub(super) path: String,
    pub(super) line: Option<usize>,
    pub(super) reason: String,
    pub(super) rule: Option<ConfigError>,
    /// The other errors of the same text, in line order after this one.
    pub(super) more: Box<[ConfigFileError]>,
}

impl ConfigFileError {
    /// The key's path, as in `operations."payments.charge".retries`.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The 1-based line of the key in the TOML text; `None` for pairs.
    pub fn line(&self) -> Option<usize> {
        self.line
    }

    /// What is wrong with the value.
    pub fn reason(&self) -> &str {
        &self.reason
    }

    /// The builder rule that failed, when one did (as `base_delay` above `max_delay`).
    pub fn rule(&self) -> Option<&ConfigError> {
        self.rule.as_ref()
    }

    /// Every error of the text, in line order: this one (the first) and
    /// the others. A text is read to its end, so that one reading names
    /// everything to fix, as the attribute does at compile time.
    ///
    /// ```
    /// use resilient::config::Config;
    ///
    /// let text = "[operations.fetch]\nretries = -1\ntimeout = \"2s\"\n\n[operations.store]\nretires = 2\n";
    /// let error = Config::from_toml(text).unwrap_err();
    /// let found: Vec<_> = error.all().map(|e| (e.path(), e.line())).collect();
    /// assert_eq!(
    ///     found,
    ///     [("operations.fetch.retries", Some(2)), ("operations.store.retires", Some(6))]
    /// );
    /// ```
    pub fn all(&self) -> impl Iterator<Item = &ConfigFileError> {
        std::iter::once(self).chain(self.more.iter())
    }

    /// The errors in line order (those without a line last), as one: the
    /// first, with the others after it; `None` for none.
    pub(crate) fn all_of(mut errors: Vec<ConfigFileError>) -> Option<ConfigFileError> {
        errors.sort_by(|a, b| {
            (a.line.is_none(), a.line, &a.path).cmp(&(b.line.is_none(), b.line, &b.path))
        });
        let mut errors = errors.into_iter();
        let mut first = errors.next()?;
        first.more = errors.collect();
        Some(first)
    }
}

impl fmt::Display for ConfigFileError {
    /// `path (line N): reason`, or the reason alone for an error of the
    /// whole text (a syntax error, a file that can't be read); each other
    /// error of the same text on a line of its own after it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (n, error) in self.all().enumerate() {
            if n > 0 {
                writeln!(f)?;
            }
            match (error.path.is_empty(), error.line) {
                (false, Some(line)) => write!(f, "{} (line {line}): {}", error.path, error.reason)?,
                (false, None) => write!(f, "{}: {}", error.path, error.reason)?,
                (true, Some(line)) => write!(f, "line {line}: {}", error.reason)?,
                (true, None) => f.write_str(&error.reason)?,
            }
        }
        Ok(())
    }
}

impl std::error::Error for ConfigFileError {}

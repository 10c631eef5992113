//! [`Origin`]: where an installed configuration came from.

use std::fmt;

/// Where an installed configuration came from, as the report, the tiles
/// and [`origin`](super::origin) say: the application's code (`install`), the file a
/// watcher watches (feature `config-watch`), or the control panel's
/// Install.
///
/// ```
/// use resilient::config::{self, Config, Origin};
///
/// let version = config::install(Config::from_toml("[operations.fetch]\nretries = 2\n")?);
/// assert_eq!(config::origin(version), Some(Origin::Code));
/// assert_eq!(Origin::File("/etc/app/resilient.toml".into()).to_string(), "file /etc/app/resilient.toml");
/// # config::clear();
/// # Ok::<(), resilient::config::ConfigFileError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Origin {
    /// [`install`](super::install), [`install_toml`](super::install_toml) or
    /// [`clear`](super::clear) in the application's code.
    #[default]
    Code,
    /// The file at this path, installed by its watcher (`config::watch`).
    File(std::path::PathBuf),
    /// The control panel's Install (feature `dashboard`).
    Panel,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Code => f.write_str("code"),
            Origin::File(path) => write!(f, "file {}", path.display()),
            Origin::Panel => f.write_str("control panel"),
        }
    }
}

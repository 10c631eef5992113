//! The configuration file's watcher (feature `config-watch`): installs a
//! TOML file, then reloads it on every change until the watcher is
//! dropped.
//!
//! It watches the file's directory, not the file: an editor that saves
//! by renaming a new file into place, and a Kubernetes ConfigMap whose
//! mount swaps a symbolic link, replace the file that a watch on the file
//! itself would follow. It watches the directory's parent too: a deploy
//! that swaps the directory itself (`current -> releases/N`, replaced by
//! `ln -sfn`, or a directory renamed over another) leaves the old
//! directory's watch blind, so a change of the directory's entry there
//! moves the watch to the new directory and reads the file again. An
//! event is a hint; what is installed is always the file as read after
//! the events settle.

use std::ffi::OsString;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use notify::event::{AccessKind, AccessMode};
use notify::{EventKind, RecursiveMode, Watcher as _};

use super::{Config, ConfigFileError, Origin, install};

/// How long the events of one save settle before the file is read.
const SETTLE: Duration = Duration::from_millis(50);

/// A file written without pause is read at least once per this many
/// settles.
const SETTLES_AT_MOST: u32 = 20;

/// Why [`watch`] didn't start; nothing was installed.
///
/// ```
/// use resilient::config::{self, WatchError};
///
/// let path = std::env::temp_dir().join(format!("resilient-bad-{}.toml", std::process::id()));
/// std::fs::write(&path, "[operations.fetch]\nretries = -1\n")?;
/// match config::watch(&path) {
///     Err(WatchError::Invalid(error)) => {
///         assert_eq!(error.path(), "operations.fetch.retries");
///         assert_eq!(error.line(), Some(2));
///     }
///     other => panic!("expected an invalid file: {other:?}"),
/// }
/// # std::fs::remove_file(&path)?;
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum WatchError {
    /// The file couldn't be read (it is missing, or not text).
    Read {
        /// The file.
        path: PathBuf,
        /// What reading it said.
        source: io::Error,
    },
    /// The file was read, and is not a valid configuration.
    Invalid(ConfigFileError),
    /// The system's watcher couldn't watch the file's directory.
    Watch {
        /// The directory.
        path: PathBuf,
        /// What the system's watcher said.
        source: io::Error,
    },
}

impl std::fmt::Display for WatchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WatchError::Read { path, source } => {
                write!(f, "can't read {}: {source}", path.display())
            }
            WatchError::Invalid(error) => error.fmt(f),
            WatchError::Watch { path, source } => {
                write!(f, "can't watch {}: {source}", path.display())
            }
        }
    }
}

impl std::error::Error for WatchError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            WatchError::Read { source, .. } | WatchError::Watch { source, .. } => Some(source),
            WatchError::Invalid(error) => std::error::Error::source(error),
        }
    }
}

impl From<ConfigFileError> for WatchError {
    fn from(error: ConfigFileError) -> Self {
        WatchError::Invalid(error)
    }
}

/// Installs the TOML file at `path` and reloads it whenever it changes,
/// until the returned [`ConfigWatcher`] is dropped.
///
/// The first reading happens before `watch` returns: a file that can't
/// be read or isn't valid is an error, and nothing is installed. After
/// that, a change is read once its events have settled (50 ms, see
/// [`WatchBuilder::settle`]) and installed with [`install`]; a text equal
/// to the one installed last isn't installed again. A reading that fails
/// (an invalid file, or no file: a deleted file is not a configuration)
/// keeps the configuration in force, and says why through
/// [`ConfigWatcher::last_error`] and, with the `tracing` feature, a
/// `config.file_rejected` warning. The next valid text is installed.
///
/// What counts as a change: a write, a creation, a rename into place (as
/// editors save), a deletion; and while the file is a symbolic link, any
/// change in its directory, as a Kubernetes ConfigMap's mount swaps its
/// `..data` link. A writer that pauses mid-file for longer than the
/// settle may have its half-written file read (and, if invalid,
/// rejected until the rest arrives): writing a whole file beside it and
/// renaming it into place never is. The text is compared with the one
/// this watcher installed last: an unchanged text is installed again only
/// if another [`install`] (a control endpoint's, the code's) replaced it
/// since, so that touching or saving the file brings the file's
/// configuration back. Each install says it came from the file
/// ([`Origin::File`]).
///
/// The watcher has a thread of its own and needs no async runtime; it
/// watches the file's directory, which must exist.
///
/// ```
/// use resilient::config;
/// use std::time::{Duration, Instant};
///
/// let path = std::env::temp_dir().join(format!("resilient-watch-{}.toml", std::process::id()));
/// std::fs::write(&path, "[operations.fetch]\nretries = 2\n")?;
///
/// let watcher = config::watch(&path)?;
/// assert_eq!(config::operation_settings("fetch").unwrap().1.retries, Some(2));
///
/// std::fs::write(&path, "[operations.fetch]\nretries = 5\n")?;
/// let deadline = Instant::now() + Duration::from_secs(5);
/// while config::operation_settings("fetch").and_then(|(_, entry)| entry.retries) != Some(5) {
///     assert!(Instant::now() < deadline, "not reloaded");
///     std::thread::sleep(Duration::from_millis(10));
/// }
/// assert_eq!(watcher.installed_version(), config::version());
///
/// drop(watcher); // stops watching
/// # config::clear();
/// # std::fs::remove_file(&path)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn watch(path: impl AsRef<Path>) -> Result<ConfigWatcher, WatchError> {
    ConfigWatcher::builder(path).start()
}

/// A [`ConfigWatcher`] to be: the file, and how long its events settle.
///
/// ```
/// use resilient::config::ConfigWatcher;
/// use std::time::Duration;
///
/// let builder = ConfigWatcher::builder("/etc/app/resilient.toml")
///     .settle(Duration::from_millis(200));
/// // builder.start()? installs the file and watches it.
/// # drop(builder);
/// ```
#[derive(Debug, Clone)]
pub struct WatchBuilder {
    path: PathBuf,
    settle: Duration,
}

impl WatchBuilder {
    /// How long the file must go without an event before it is read
    /// (50 ms by default), so that one save is one reading. A file
    /// written without pause is still read once every twenty settles.
    pub fn settle(mut self, settle: Duration) -> Self {
        self.settle = settle;
        self
    }

    /// Reads and installs the file, then watches it: see [`watch`].
    pub fn start(self) -> Result<ConfigWatcher, WatchError> {
        let path = std::path::absolute(&self.path).map_err(|source| WatchError::Read {
            path: self.path.clone(),
            source,
        })?;
        let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
            return Err(WatchError::Read {
                path,
                source: io::Error::new(io::ErrorKind::InvalidInput, "not the path of a file"),
            });
        };
        let dir = dir.to_path_buf();
        let name = name.to_os_string();
        let watch_failed = |source: io::Error| WatchError::Watch {
            path: dir.clone(),
            source,
        };

        let (sender, inbox) = mpsc::channel();
        let events = sender.clone();
        let mut system = notify::recommended_watcher(move |event| {
            // The receiver is gone only once the watching thread has ended.
            let _ = events.send(Message::Event(event));
        })
        .map_err(|error| watch_failed(io_error(error)))?;
        system
            .watch(&dir, RecursiveMode::NonRecursive)
            .map_err(|error| watch_failed(io_error(error)))?;
        // The parent, where a swap of the directory itself shows; at the
        // root there is none, and a parent that can't be watched leaves
        // only the swap unseen.
        let above = dir
            .parent()
            .zip(dir.file_name())
            .and_then(|(parent, entry)| {
                let watched = system.watch(parent, RecursiveMode::NonRecursive).is_ok();
                watched.then(|| entry.to_os_string())
            });

        let status = Arc::new(Mutex::new(Status::default()));
        let (started, start) = mpsc::sync_channel(1);
        let reader = Reader {
            path: path.clone(),
            name,
            identity: Identity::of(&dir),
            dir: dir.clone(),
            above,
            system,
            settle: self.settle,
            inbox,
            installed: None,
            status: Arc::clone(&status),
        };
        // Every install is this thread's, the first one included, so that
        // a change read later can't be overtaken by the first reading.
        let thread = std::thread::Builder::new()
            .name("config-watch".to_owned())
            .spawn(move || reader.run(&started))
            .map_err(watch_failed)?;
        match start.recv() {
            Ok(Ok(())) => Ok(ConfigWatcher {
                stop: sender,
                thread: Some(thread),
                status,
                path,
            }),
            Ok(Err(error)) => {
                let _ = thread.join();
                Err(error)
            }
            Err(_) => {
                let _ = thread.join();
                Err(watch_failed(io::Error::other(
                    "the watching thread ended before its first reading",
                )))
            }
        }
    }
}

/// Watches a configuration file and installs it on every change; made by
/// [`watch`] or [`ConfigWatcher::builder`]. Dropping it stops watching:
/// its thread has ended when `drop` returns, and the configuration in
/// force stays.
pub struct ConfigWatcher {
    stop: Sender<Message>,
    thread: Option<JoinHandle<()>>,
    status: Arc<Mutex<Status>>,
    path: PathBuf,
}

impl ConfigWatcher {
    /// A watcher of the TOML file at `path`, to be started with
    /// [`WatchBuilder::start`] after its settings.
    pub fn builder(path: impl AsRef<Path>) -> WatchBuilder {
        WatchBuilder {
            path: path.as_ref().to_path_buf(),
            settle: SETTLE,
        }
    }

    /// The file watched, made absolute when the watch started.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The version ([`Config::version`]) of the configuration this
    /// watcher installed last. Another [`install`] or a [`clear`](super::clear)
    /// since then makes [`version`](super::version) go past it.
    ///
    /// ```no_run
    /// use resilient::config;
    ///
    /// let watcher = config::watch("/etc/app/resilient.toml")?;
    /// let from_file = watcher.installed_version() == config::version();
    /// # let _ = from_file;
    /// # Ok::<(), config::WatchError>(())
    /// ```
    pub fn installed_version(&self) -> u64 {
        self.lock().version
    }

    /// How many times this watcher installed the file, the first reading
    /// included.
    pub fn installs(&self) -> u64 {
        self.lock().installs
    }

    /// Why the latest reading of the file wasn't installed: the key's path
    /// and line of an invalid file, or the reason it couldn't be read
    /// (`path()` empty). `None` once a reading installs, or finds the text
    /// installed last.
    ///
    /// ```no_run
    /// use resilient::config;
    ///
    /// let watcher = config::watch("/etc/app/resilient.toml")?;
    /// if let Some(error) = watcher.last_error() {
    ///     eprintln!("resilient.toml is kept at version {}: {error}", watcher.installed_version());
    /// }
    /// # Ok::<(), config::WatchError>(())
    /// ```
    pub fn last_error(&self) -> Option<ConfigFileError> {
        self.lock().last_error.clone()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Status> {
        self.status.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl fmt::Debug for ConfigWatcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let status = self.lock();
        f.debug_struct("ConfigWatcher")
            .field("path", &self.path)
            .field("installed_version", &status.version)
            .field("installs", &status.installs)
            .field("last_error", &status.last_error)
            .finish()
    }
}

impl Drop for ConfigWatcher {
    fn drop(&mut self) {
        // The thread drops the system's watcher as it ends.
        let _ = self.stop.send(Message::Stop);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// What the watching thread is told.
enum Message {
    Event(notify::Result<notify::Event>),
    Stop,
}

/// What the watching thread found, for its [`ConfigWatcher`] to read.
#[derive(Default)]
struct Status {
    version: u64,
    installs: u64,
    last_error: Option<ConfigFileError>,
}

/// Which directory a path names now: its canonical path, and on Unix its
/// device and inode, so that a directory removed and made again under the
/// same name is another.
#[derive(Debug, PartialEq)]
struct Identity {
    canonical: Option<PathBuf>,
    #[cfg(unix)]
    inode: Option<(u64, u64)>,
}

impl Identity {
    fn of(dir: &Path) -> Identity {
        #[cfg(unix)]
        let inode = {
            use std::os::unix::fs::MetadataExt;
            std::fs::metadata(dir)
                .ok()
                .map(|meta| (meta.dev(), meta.ino()))
        };
        Identity {
            canonical: std::fs::canonicalize(dir).ok(),
            #[cfg(unix)]
            inode,
        }
    }
}

/// The watching thread's state.
struct Reader {
    path: PathBuf,
    name: OsString,
    /// The file's directory, as given, and which directory it named when
    /// the watch on it began.
    dir: PathBuf,
    identity: Identity,
    /// The directory's name in its parent, when the parent is watched.
    above: Option<OsString>,
    system: notify::RecommendedWatcher,
    settle: Duration,
    inbox: Receiver<Message>,
    /// The text installed last.
    installed: Option<String>,
    status: Arc<Mutex<Status>>,
}

impl Reader {
    fn run(mut self, started: &mpsc::SyncSender<Result<(), WatchError>>) {
        let first = std::fs::read_to_string(&self.path)
            .map_err(|source| WatchError::Read {
                path: self.path.clone(),
                source,
            })
            .and_then(|text| Ok((Config::from_toml(&text)?, text)))
            .map(|(config, text)| self.installs(config, text));
        let ok = first.is_ok();
        if started.send(first).is_err() || !ok {
            return;
        }
        loop {
            match self.inbox.recv() {
                Ok(Message::Event(event)) if self.concerns(&event) => {}
                Ok(Message::Event(_)) => continue,
                Ok(Message::Stop) | Err(_) => return,
            }
            if !self.settled() {
                return;
            }
            self.follow_the_directory();
            self.reload();
        }
    }

    /// Waits until the file has had no event for `settle` (or twenty
    /// settles have passed); `false` when told to stop meanwhile.
    fn settled(&self) -> bool {
        let began = Instant::now();
        let most = self.settle.saturating_mul(SETTLES_AT_MOST);
        let mut last = began;
        loop {
            let quiet = last.elapsed();
            let waited = began.elapsed();
            if quiet >= self.settle || waited >= most {
                return true;
            }
            let wait = (self.settle - quiet).min(most - waited);
            match self.inbox.recv_timeout(wait) {
                Ok(Message::Event(event)) => {
                    if self.concerns(&event) {
                        last = Instant::now();
                    }
                }
                Err(RecvTimeoutError::Timeout) => {}
                Ok(Message::Stop) | Err(RecvTimeoutError::Disconnected) => return false,
            }
        }
    }

    /// Whether `event` may have changed the file: a change (not a mere
    /// opening or reading) that names it, or any change in its directory
    /// while the file is a symbolic link, whose target a Kubernetes
    /// ConfigMap swaps by renaming another link (`..data`) beside it, or a
    /// change of the directory's own entry in its parent. An error of the
    /// system's watcher, or a lost event, counts too.
    fn concerns(&self, event: &notify::Result<notify::Event>) -> bool {
        let event = match event {
            Ok(event) => event,
            Err(error) => {
                watch_failed(&self.path, error);
                return true;
            }
        };
        if event.need_rescan() {
            return true;
        }
        if let EventKind::Access(access) = event.kind
            && access != AccessKind::Close(AccessMode::Write)
        {
            return false;
        }
        let names = |name: &OsString| {
            event
                .paths
                .iter()
                .any(|path| path.file_name() == Some(name.as_os_str()))
        };
        let in_dir = event
            .paths
            .iter()
            .any(|path| path.parent() == Some(self.dir.as_path()));
        names(&self.name)
            || self.above.as_ref().is_some_and(names)
            || in_dir && std::fs::symlink_metadata(&self.path).is_ok_and(|meta| meta.is_symlink())
    }

    /// Moves the watch to the directory the file's directory names now, if
    /// it was swapped since the watch began: the old one's watch would stay
    /// blind. A directory that can't be watched (gone, for now) is tried
    /// again at the next event in its parent.
    fn follow_the_directory(&mut self) {
        let now = Identity::of(&self.dir);
        if now == self.identity {
            return;
        }
        // The old directory may be gone: its watch went with it.
        let _ = self.system.unwatch(&self.dir);
        match self.system.watch(&self.dir, RecursiveMode::NonRecursive) {
            Ok(()) => self.identity = now,
            Err(error) => watch_failed(&self.path, &error),
        }
    }

    /// Reads the file again and installs it if it is new and valid.
    fn reload(&mut self) {
        let text = match std::fs::read_to_string(&self.path) {
            Ok(text) => text,
            Err(source) => {
                let reason = if source.kind() == io::ErrorKind::NotFound {
                    format!(
                        "there is no file at {}, so the configuration in force stays",
                        self.path.display()
                    )
                } else {
                    format!(
                        "{} can't be read ({source}), so the configuration in force stays",
                        self.path.display()
                    )
                };
                return self.rejects(ConfigFileError {
                    path: String::new(),
                    line: None,
                    reason,
                    rule: None,
                    more: Box::default(),
                });
            }
        };
        // The text installed last stays, unless another install (the
        // control panel's, the code's) has replaced it since: then the
        // file, touched or saved again, is installed again.
        let in_force = self.lock().version == super::version();
        if in_force && self.installed.as_deref() == Some(text.as_str()) {
            self.lock().last_error = None;
            return;
        }
        match Config::from_toml(&text) {
            Ok(config) => self.installs(config, text),
            Err(error) => self.rejects(error),
        }
    }

    fn installs(&mut self, config: Config, text: String) {
        let version = install(config.from_origin(Origin::File(self.path.clone())));
        self.installed = Some(text);
        {
            let mut status = self.lock();
            status.version = version;
            status.installs = status.installs.saturating_add(1);
            status.last_error = None;
        }
        installed(&self.path, version);
    }

    fn rejects(&self, error: ConfigFileError) {
        rejected(&self.path, &error);
        self.lock().last_error = Some(error);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Status> {
        self.status.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// notify's error as an I/O error, so that notify's types stay out of
/// this crate's API.
fn io_error(error: notify::Error) -> io::Error {
    match error.kind {
        notify::ErrorKind::Io(error) => error,
        _ => io::Error::other(error.to_string()),
    }
}

#[cfg_attr(not(feature = "tracing"), allow(unused_variables))]
fn installed(path: &Path, version: u64) {
    #[cfg(feature = "tracing")]
    tracing::info!(
        name: "config.file_installed",
        file = %path.display(),
        version,
        "installed the configuration file"
    );
}

#[cfg_attr(not(feature = "tracing"), allow(unused_variables))]
fn rejected(path: &Path, error: &ConfigFileError) {
    // A file that can't be read names no key: the warning has none, and
    // the error is the one sentence that says why.
    #[cfg(feature = "tracing")]
    match (error.path(), error.line()) {
        ("", _) => tracing::warn!(
            name: "config.file_rejected",
            file = %path.display(),
            error = %error,
            "the configuration file was not installed"
        ),
        (key, line) => tracing::warn!(
            name: "config.file_rejected",
            file = %path.display(),
            key,
            line,
            errors = error.all().count(),
            error = %error,
            "the configuration file was not installed: the configuration in force stays"
        ),
    }
}

#[cfg_attr(not(feature = "tracing"), allow(unused_variables))]
fn watch_failed(path: &Path, error: &notify::Error) {
    #[cfg(feature = "tracing")]
    tracing::warn!(
        name: "config.watch_failed",
        file = %path.display(),
        error = %error,
        "the system's watcher reported an error: the file is read again"
    );
}

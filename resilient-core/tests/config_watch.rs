//! The configuration file's watcher (`config-watch`) on real files, in a
//! folder of its own under the system's temporary directory: a change is
//! installed, an invalid or deleted file keeps the configuration in force
//! and says why, a rename into place and a ConfigMap's link swap are
//! read, an unchanged text is not installed again, a burst of writes is
//! one install, and a dropped watcher leaves no thread behind.
//!
//! A binary of its own, not a module of `tests/suite`: the watcher
//! installs into the process's one configuration, from a thread of its
//! own, whenever the file changes. The tests here take turns (`SLOT`).
//! The waits are real (the system's watcher is), each polled until its
//! condition with a deadline of a few seconds.
#![cfg(feature = "config-watch")]

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use resilient::config::{self, ConfigWatcher, WatchError};

static SLOT: Mutex<()> = Mutex::new(());

fn slot() -> MutexGuard<'static, ()> {
    SLOT.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A folder of one test's own, removed at its end.
struct Folder(PathBuf);

impl Folder {
    fn new(test: &str) -> Folder {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let path = std::env::temp_dir().join(format!(
            "resilient-config-watch-{}-{}-{test}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        fs::create_dir_all(&path).unwrap();
        Folder(path)
    }

    fn join(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// Polls `done` until it holds, for at most five seconds.
fn eventually(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while !done() {
        assert!(Instant::now() < deadline, "not within 5 s: {what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Writes `text` beside `file` and renames it over `file`, so that the
/// watcher never reads it half written, however slow this thread is.
fn save(file: &Path, text: &str) {
    let fresh = file.with_file_name(".resilient.toml.new");
    fs::write(&fresh, text).unwrap();
    fs::rename(&fresh, file).unwrap();
}

fn retries(name: &str) -> Option<u32> {
    config::operation_settings(name).and_then(|(_, entry)| entry.retries)
}

fn entry(name: &str, retries: u32) -> String {
    format!("[operations.{name}]\nretries = {retries}\n")
}

#[test]
fn a_valid_change_is_installed_with_a_new_version() {
    let _slot = slot();
    let folder = Folder::new("valid");
    let file = folder.join("resilient.toml");
    fs::write(&file, entry("watch_valid", 2)).unwrap();

    // Written in place below: a settle that a slow test thread's write,
    // truncation first, stays within.
    let watcher = ConfigWatcher::builder(&file)
        .settle(Duration::from_millis(250))
        .start()
        .unwrap();
    let first = watcher.installed_version();
    assert_eq!(config::version(), first);
    assert_eq!(retries("watch_valid"), Some(2));
    assert_eq!(watcher.installs(), 1);
    assert_eq!(watcher.last_error(), None);
    assert_eq!(watcher.path(), file);

    fs::write(&file, entry("watch_valid", 5)).unwrap();
    eventually("retries = 5 installed", || {
        retries("watch_valid") == Some(5)
    });
    assert_eq!(watcher.installed_version(), first + 1);
    assert_eq!(config::version(), first + 1);
    assert_eq!(
        config::operation_settings("watch_valid").unwrap().0,
        first + 1
    );
    assert_eq!(watcher.installs(), 2);
    drop(watcher);
    config::clear();
}

/// An invalid file names every error, in line order, each with its path
/// and line: here a value on line 2 and a misspelled key on line 6, which
/// sorts first by name.
#[test]
fn an_invalid_file_reports_every_error_in_line_order() {
    let _slot = slot();
    let folder = Folder::new("errors");
    let file = folder.join("resilient.toml");
    fs::write(&file, entry("watch_errors", 1)).unwrap();
    let watcher = config::watch(&file).unwrap();
    save(
        &file,
        "[operations.watch_errors]\nretries = -1\ntimeout = \"2s\"\n\n[breakers.a]\nfailure_treshold = 3\n",
    );
    eventually("the invalid file reported", || {
        watcher.last_error().is_some()
    });
    let error = watcher.last_error().unwrap();
    let all: Vec<_> = error
        .all()
        .map(|e| (e.path().to_owned(), e.line()))
        .collect();
    assert_eq!(
        all,
        [
            ("operations.watch_errors.retries".to_owned(), Some(2)),
            ("breakers.a.failure_treshold".to_owned(), Some(6)),
        ]
    );
    let text = error.to_string();
    let lines: Vec<_> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(
        lines[0].starts_with("operations.watch_errors.retries (line 2): "),
        "{text}"
    );
    assert!(
        lines[1].starts_with("breakers.a.failure_treshold (line 6): unknown key"),
        "{text}"
    );
    assert_eq!(retries("watch_errors"), Some(1));
    drop(watcher);
    config::clear();
}

/// An Install from elsewhere (the control panel's) replaces the file's
/// configuration; saving the file again, unchanged, or touching it, brings
/// the file's back, and each version says where it came from.
#[test]
fn a_file_saved_again_after_another_install_is_installed_again() {
    use resilient::config::{Config, Origin};

    let _slot = slot();
    let folder = Folder::new("panel-fight");
    let file = folder.join("resilient.toml");
    let text = entry("watch_fight", 3);
    fs::write(&file, &text).unwrap();
    let watcher = config::watch(&file).unwrap();
    let from_file = watcher.installed_version();
    assert_eq!(config::origin(from_file), Some(Origin::File(file.clone())));

    let panel = Config::from_toml(&entry("watch_fight_other", 1)).unwrap();
    let by_panel = config::install(panel.from_origin(Origin::Panel));
    assert_eq!(config::origin(by_panel), Some(Origin::Panel));
    assert_eq!(retries("watch_fight"), None, "Install replaces everything");

    save(&file, &text);
    eventually("the same text installed again", || {
        retries("watch_fight") == Some(3)
    });
    let again = watcher.installed_version();
    assert!(again > by_panel);
    assert_eq!(config::version(), again);
    assert_eq!(config::origin(again), Some(Origin::File(file.clone())));
    assert_eq!(watcher.installs(), 2);

    // Touched, in force: nothing to do.
    fs::write(&file, &text).unwrap();
    fs::write(folder.join("other"), "x").unwrap();
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(watcher.installs(), 2);
    drop(watcher);
    config::clear();
}

#[test]
fn an_invalid_change_keeps_the_configuration_and_names_its_key_and_line() {
    let _slot = slot();
    let folder = Folder::new("invalid");
    let file = folder.join("resilient.toml");
    fs::write(&file, entry("watch_invalid", 3)).unwrap();
    let watcher = config::watch(&file).unwrap();
    let first = watcher.installed_version();

    save(
        &file,
        "[operations.watch_invalid]\nretries = 4\ntimeout = \"0s\"\n",
    );
    eventually("the invalid file reported", || {
        watcher.last_error().is_some()
    });
    let error = watcher.last_error().unwrap();
    assert_eq!(error.path(), "operations.watch_invalid.timeout");
    assert_eq!(error.line(), Some(3));
    assert_eq!(config::version(), first);
    assert_eq!(watcher.installed_version(), first);
    assert_eq!(retries("watch_invalid"), Some(3));

    save(&file, &entry("watch_invalid", 6));
    eventually("the fixed file installed", || {
        retries("watch_invalid") == Some(6)
    });
    assert_eq!(watcher.last_error(), None);
    assert_eq!(watcher.installed_version(), first + 1);
    drop(watcher);
    config::clear();
}

#[test]
fn a_file_renamed_into_place_is_read() {
    let _slot = slot();
    let folder = Folder::new("rename");
    let file = folder.join("resilient.toml");
    fs::write(&file, entry("watch_rename", 1)).unwrap();
    let watcher = config::watch(&file).unwrap();
    let first = watcher.installed_version();

    // As editors save: a new file beside it, renamed over it.
    let fresh = folder.join(".resilient.toml.swp");
    fs::write(&fresh, entry("watch_rename", 8)).unwrap();
    fs::rename(&fresh, &file).unwrap();
    eventually("the renamed file installed", || {
        retries("watch_rename") == Some(8)
    });
    assert_eq!(watcher.installed_version(), first + 1);
    assert_eq!(watcher.installs(), 2);
    drop(watcher);
    config::clear();
}

#[test]
fn an_unchanged_text_is_not_installed_again() {
    let _slot = slot();
    let folder = Folder::new("unchanged");
    let file = folder.join("resilient.toml");
    let text = entry("watch_unchanged", 4);
    fs::write(&file, &text).unwrap();
    let watcher = config::watch(&file).unwrap();
    let first = watcher.installed_version();

    // An invalid text, then the installed one again: the second reading
    // clears the error and installs nothing.
    save(&file, "[operations.watch_unchanged]\nretries = -4\n");
    eventually("the invalid file reported", || {
        watcher.last_error().is_some()
    });
    save(&file, &text);
    eventually("the installed text read again", || {
        watcher.last_error().is_none()
    });
    assert_eq!(watcher.installs(), 1);
    assert_eq!(watcher.installed_version(), first);
    assert_eq!(config::version(), first);

    // The same text written again, then a new one: one install, the new.
    save(&file, &text);
    save(&file, &entry("watch_unchanged", 9));
    eventually("the new text installed", || {
        retries("watch_unchanged") == Some(9)
    });
    assert_eq!(watcher.installs(), 2);
    assert_eq!(config::version(), first + 1);
    drop(watcher);
    config::clear();
}

#[test]
fn a_burst_of_writes_is_one_install() {
    let _slot = slot();
    let folder = Folder::new("burst");
    let file = folder.join("resilient.toml");
    fs::write(&file, entry("watch_burst", 1)).unwrap();
    // The burst below takes microseconds; the settle leaves room for a
    // slow test thread.
    let watcher = ConfigWatcher::builder(&file)
        .settle(Duration::from_millis(300))
        .start()
        .unwrap();
    let first = watcher.installed_version();

    // Each step is a valid file of its own; only the last is installed.
    {
        use std::io::Write as _;
        let mut out = fs::File::create(&file).unwrap();
        out.write_all(b"[operations.watch_burst]\n").unwrap();
        out.sync_data().unwrap();
        out.write_all(b"retries = 2\n").unwrap();
        out.sync_data().unwrap();
    }
    fs::write(&file, entry("watch_burst", 7)).unwrap();
    eventually("the last text installed", || {
        retries("watch_burst") == Some(7)
    });
    assert_eq!(watcher.installs(), 2);
    assert_eq!(watcher.installed_version(), first + 1);
    drop(watcher);
    config::clear();
}

#[test]
fn a_deleted_file_keeps_the_configuration_until_it_is_back() {
    let _slot = slot();
    let folder = Folder::new("deleted");
    let file = folder.join("resilient.toml");
    fs::write(&file, entry("watch_deleted", 3)).unwrap();
    let watcher = config::watch(&file).unwrap();
    let first = watcher.installed_version();

    fs::remove_file(&file).unwrap();
    eventually("the deletion reported", || watcher.last_error().is_some());
    let error = watcher.last_error().unwrap();
    assert_eq!(error.path(), "");
    assert_eq!(
        error.to_string(),
        format!(
            "there is no file at {}, so the configuration in force stays",
            file.display()
        )
    );
    assert_eq!(config::version(), first);
    assert_eq!(retries("watch_deleted"), Some(3));

    save(&file, &entry("watch_deleted", 5));
    eventually("the file back installed", || {
        retries("watch_deleted") == Some(5)
    });
    assert_eq!(watcher.last_error(), None);
    drop(watcher);
    config::clear();
}

#[test]
fn a_file_that_fails_at_start_is_an_error_and_installs_nothing() {
    let _slot = slot();
    let folder = Folder::new("start");
    let file = folder.join("resilient.toml");
    let before = config::version();

    match config::watch(&file) {
        Err(WatchError::Read { path, source }) => {
            assert_eq!(path, file);
            assert_eq!(source.kind(), std::io::ErrorKind::NotFound);
        }
        other => panic!("expected a missing file: {other:?}"),
    }

    fs::write(&file, "[operations.watch_start]\n\nretries = \"three\"\n").unwrap();
    match config::watch(&file) {
        Err(WatchError::Invalid(error)) => {
            assert_eq!(error.path(), "operations.watch_start.retries");
            assert_eq!(error.line(), Some(3));
        }
        other => panic!("expected an invalid file: {other:?}"),
    }
    assert_eq!(config::version(), before);
    assert_eq!(retries("watch_start"), None);

    let missing = folder.join("no-such-folder").join("resilient.toml");
    assert!(matches!(
        config::watch(&missing),
        Err(WatchError::Watch { .. } | WatchError::Read { .. })
    ));
    assert_eq!(config::version(), before);
}

/// A Kubernetes ConfigMap's mount: the file is a link into `..data`, a
/// link to a folder of one version; an update writes a new folder and
/// renames a new `..data` over the old one, an event that names neither
/// the file nor its link.
#[cfg(unix)]
#[test]
fn a_configmap_swap_of_links_is_read() {
    use std::os::unix::fs::symlink;

    let _slot = slot();
    let folder = Folder::new("configmap");
    let version = |name: &str, retries: u32| {
        fs::create_dir(folder.join(name)).unwrap();
        fs::write(
            folder.join(name).join("resilient.toml"),
            entry("watch_configmap", retries),
        )
        .unwrap();
    };
    version("..2026_12_03_v1", 2);
    symlink("..2026_12_03_v1", folder.join("..data")).unwrap();
    let file = folder.join("resilient.toml");
    symlink(Path::new("..data").join("resilient.toml"), &file).unwrap();
    let watcher = config::watch(&file).unwrap();
    let first = watcher.installed_version();
    assert_eq!(retries("watch_configmap"), Some(2));

    version("..2026_12_03_v2", 6);
    symlink("..2026_12_03_v2", folder.join("..data_tmp")).unwrap();
    fs::rename(folder.join("..data_tmp"), folder.join("..data")).unwrap();
    fs::remove_dir_all(folder.join("..2026_12_03_v1")).unwrap();
    eventually("the swapped version installed", || {
        retries("watch_configmap") == Some(6)
    });
    assert_eq!(watcher.installed_version(), first + 1);
    assert_eq!(watcher.last_error(), None);
    drop(watcher);
    config::clear();
}

/// The threads of this process with a name that starts with `prefix`
/// (Linux names a thread in its first 15 bytes).
#[cfg(target_os = "linux")]
fn threads_named(prefix: &str) -> usize {
    fs::read_dir("/proc/self/task")
        .unwrap()
        .filter_map(|task| fs::read_to_string(task.ok()?.path().join("comm")).ok())
        .filter(|name| name.trim_end().starts_with(prefix))
        .count()
}

#[cfg(target_os = "linux")]
#[test]
fn a_dropped_watcher_leaves_no_thread_behind() {
    let _slot = slot();
    let folder = Folder::new("drop");
    let file = folder.join("resilient.toml");
    fs::write(&file, entry("watch_drop", 1)).unwrap();
    // A watcher of another test may still be winding down its system thread.
    eventually("no watcher thread before", || {
        threads_named("config-watch") == 0 && threads_named("notify-rs") == 0
    });

    let watcher = config::watch(&file).unwrap();
    assert_eq!(threads_named("config-watch"), 1);
    assert_eq!(threads_named("notify-rs"), 1);
    drop(watcher);
    // The reading thread is joined by `drop`; the system's own ends on
    // the stop it was sent.
    assert_eq!(threads_named("config-watch"), 0);
    eventually("the system's watcher thread ended", || {
        threads_named("notify-rs") == 0
    });
    config::clear();
}

#[test]
fn a_watcher_can_be_sent_and_shared() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<ConfigWatcher>();
}

/// With `tracing`, what the watcher says from its thread: this binary's
/// subscriber keeps every `config.*` event as `LEVEL name field=value ...`.
#[cfg(feature = "tracing")]
mod traced {
    use std::fmt::Write as _;
    use std::sync::{Mutex, Once};

    use tracing::field::{Field, Visit};
    use tracing::span::{Attributes, Id, Record};
    use tracing::subscriber::Interest;
    use tracing::{Event, Metadata, Subscriber};

    use super::*;

    static EVENTS: Mutex<Vec<String>> = Mutex::new(Vec::new());

    struct Recorder;

    struct Line<'a>(&'a mut String);

    impl Visit for Line<'_> {
        fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
            let _ = write!(self.0, " {}={value:?}", field.name());
        }
    }

    impl Subscriber for Recorder {
        fn register_callsite(&self, _: &'static Metadata<'static>) -> Interest {
            Interest::always()
        }
        fn enabled(&self, _: &Metadata<'_>) -> bool {
            true
        }
        fn new_span(&self, _: &Attributes<'_>) -> Id {
            Id::from_u64(1)
        }
        fn record(&self, _: &Id, _: &Record<'_>) {}
        fn record_follows_from(&self, _: &Id, _: &Id) {}
        fn event(&self, event: &Event<'_>) {
            let metadata = event.metadata();
            if metadata.name().starts_with("config.") {
                let mut line = format!("{} {}", metadata.level(), metadata.name());
                event.record(&mut Line(&mut line));
                EVENTS.lock().unwrap().push(line);
            }
        }
        fn enter(&self, _: &Id) {}
        fn exit(&self, _: &Id) {}
    }

    fn events_of(file: &Path) -> Vec<String> {
        static INSTALLED: Once = Once::new();
        INSTALLED.call_once(|| tracing::subscriber::set_global_default(Recorder).unwrap());
        let file = format!("file={}", file.display());
        let events = EVENTS.lock().unwrap();
        events
            .iter()
            .filter(|line| line.contains(&file))
            .cloned()
            .collect()
    }

    #[test]
    fn an_invalid_file_is_a_warning_with_its_key_and_line() {
        let _slot = slot();
        let folder = Folder::new("traced");
        let file = folder.join("resilient.toml");
        events_of(&file);
        fs::write(&file, entry("watch_traced", 1)).unwrap();
        let watcher = config::watch(&file).unwrap();
        let first = watcher.installed_version();

        save(&file, "[operations.watch_traced]\nretries = -1\n");
        eventually("the invalid file reported", || {
            watcher.last_error().is_some()
        });
        let events = events_of(&file);
        assert_eq!(events.len(), 2, "{events:#?}");
        assert!(
            events[0].starts_with("INFO config.file_installed ")
                && events[0].ends_with(&format!(" file={} version={first}", file.display())),
            "{}",
            events[0]
        );
        assert!(
            events[1].starts_with("WARN config.file_rejected ")
                && events[1].contains(&format!(
                    " file={} key=\"operations.watch_traced.retries\" line=2 errors=1 \
                     error=operations.watch_traced.retries (line 2): ",
                    file.display()
                )),
            "{}",
            events[1]
        );
        assert_eq!(config::version(), first);
        drop(watcher);
        config::clear();
    }

    #[test]
    fn a_deleted_file_is_one_clean_sentence() {
        let _slot = slot();
        let folder = Folder::new("traced-deleted");
        let file = folder.join("resilient.toml");
        events_of(&file);
        fs::write(&file, entry("watch_traced_deleted", 1)).unwrap();
        let watcher = config::watch(&file).unwrap();
        fs::remove_file(&file).unwrap();
        eventually("the deletion reported", || watcher.last_error().is_some());
        let events = events_of(&file);
        assert_eq!(
            events.last().map(String::as_str),
            Some(
                format!(
                    "WARN config.file_rejected message=the configuration file was not installed \
                     file={0} error=there is no file at {0}, so the configuration in force stays",
                    file.display()
                )
                .as_str()
            ),
            "{events:#?}"
        );
        drop(watcher);
        config::clear();
    }
}

/// A deploy that swaps the file's directory, a link `current` to
/// `releases/N` replaced as `ln -sfn` does (a new link renamed over it):
/// no event names the file or happens in the folder first watched, and
/// the watcher follows the link to the new release.
#[cfg(unix)]
#[test]
fn a_swapped_directory_link_is_followed_and_read() {
    use std::os::unix::fs::symlink;

    let _slot = slot();
    let folder = Folder::new("release-link");
    let release = |n: u32, retries: u32| {
        let dir = folder.join("releases").join(n.to_string());
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("resilient.toml"), entry("watch_release", retries)).unwrap();
    };
    release(1, 2);
    symlink(Path::new("releases").join("1"), folder.join("current")).unwrap();
    let watcher = config::watch(folder.join("current").join("resilient.toml")).unwrap();
    let first = watcher.installed_version();
    assert_eq!(retries("watch_release"), Some(2));

    for (n, retries_then) in [(2, 5), (3, 7)] {
        release(n, retries_then);
        let next = folder.join("current.next");
        symlink(Path::new("releases").join(n.to_string()), &next).unwrap();
        fs::rename(&next, folder.join("current")).unwrap();
        eventually("the new release installed", || {
            retries("watch_release") == Some(retries_then)
        });
    }
    // And a change inside the release now current is seen too.
    save(
        &folder.join("releases").join("3").join("resilient.toml"),
        &entry("watch_release", 9),
    );
    eventually("a change in the new release installed", || {
        retries("watch_release") == Some(9)
    });
    assert_eq!(watcher.installed_version(), first + 3);
    assert_eq!(watcher.last_error(), None);
    drop(watcher);
    config::clear();
}

/// The file's directory removed and another renamed into its place: the
/// watch on the old one went with it, and the new one is watched.
#[test]
fn a_directory_replaced_by_another_is_watched_again() {
    let _slot = slot();
    let folder = Folder::new("replaced-dir");
    let conf = folder.join("conf");
    fs::create_dir(&conf).unwrap();
    fs::write(conf.join("resilient.toml"), entry("watch_replaced", 1)).unwrap();
    let watcher = config::watch(conf.join("resilient.toml")).unwrap();
    assert_eq!(retries("watch_replaced"), Some(1));

    let staged = folder.join("conf.staged");
    fs::create_dir(&staged).unwrap();
    fs::write(staged.join("resilient.toml"), entry("watch_replaced", 4)).unwrap();
    fs::remove_dir_all(&conf).unwrap();
    fs::rename(&staged, &conf).unwrap();
    eventually("the replacing directory's file installed", || {
        retries("watch_replaced") == Some(4)
    });
    save(&conf.join("resilient.toml"), &entry("watch_replaced", 8));
    eventually("a change in the replacing directory installed", || {
        retries("watch_replaced") == Some(8)
    });
    drop(watcher);
    config::clear();
}

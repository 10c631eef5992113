//! Settings at run time (feature `config`): an operator changes an
//! operation's retries, timeouts and backoff, a breaker's thresholds, a
//! bulkhead's size, a rate limiter's rate, a retry throttle's tokens, an
//! adaptive throttle's settings and a chaos switch, without a deploy.
//!
//! The attribute's values are the defaults. A [`Config`] read from TOML
//! ([`Config::from_toml`]), JSON ([`Config::from_json`]) or environment
//! variables ([`Config::from_env`], [`Config::from_pairs`]) overrides them
//! by operation name, and a named primitive's by its name, once
//! [`install`]ed:
//!
//! ```toml
//! [operations."payments.charge"]
//! retries = 5
//! timeout = "2s"
//! base_delay = "200ms"
//! max_delay = "5s"
//! jitter = "equal"
//!
//! [breakers.payments]
//! failure_threshold = 5
//! break_duration = "30s"
//!
//! [limits.db]              # a Bulkhead built with .named("db")
//! max_concurrent = 16
//!
//! [limits.search]          # a RateLimiter built with .named("search")
//! rate = 100
//! per = "1s"
//! burst = 20
//!
//! [throttles.payments]     # a RetryThrottle built with .named("payments")
//! max_tokens = 10
//! token_ratio = 0.1
//!
//! [adaptive_throttles.search]  # an AdaptiveThrottle built with .named("search")
//! multiplier = 2.0
//! window = "2m"
//! min_requests = 20
//! max_rejection = 0.9
//!
//! [chaos."pricing.faults"] # a Chaos built with .named("pricing.faults")
//! enabled = true
//! injection_rate = 0.05
//! ```
//!
//! A named primitive reads its entry through a generation check: its
//! state (permits in flight, a limiter's arrival time, a throttle's
//! tokens, a breaker's counts) survives every reload, and what the entry
//! sets applies from its next use. A `rate` without `per` keeps the
//! limiter's period, a `per` without `rate` its rate, and neither changes
//! its `burst`; a rate or a burst of 0, which a [`RateLimiter`] accepts
//! as "admit nothing", is an error here.
//!
//! [`RateLimiter`]: crate::limit::RateLimiter
//!
//! Every value is checked by the attribute's own rules, every key must be
//! known, and an error ([`ConfigFileError`]) names the key's path and its
//! line. Nothing is applied unless the whole text is valid.
//!
//! # Chaos switches
//!
//! A switch built with [`Chaos::named`](crate::chaos::Chaos::named)
//! applies `[chaos.NAME]` when it is first read after an install or a
//! clear, as the other primitives do, rather than at [`install`] to
//! switches registered by name: a switch is a `static` that exists before
//! any registry could hear of it, and reading by generation serves one
//! the dashboard was never given. A disabled switch without a name still
//! costs one relaxed load.
//!
//! What the entry sets is written into the switch, key by key, when the
//! entry changes, not at every reload; the value a key had before an
//! entry first set it is kept. So the dashboard's on/off and
//! [`Chaos::set_enabled`](crate::chaos::Chaos::set_enabled) act at once
//! and hold until the entry's `enabled` changes, however many unrelated
//! reloads come meanwhile; and a key the entry stops setting, and every
//! key at [`clear`] or when the entry goes, takes back the value it had
//! before the configuration set it.
//!
//! # Why an error type of its own
//!
//! [`crate::ConfigError`] is built and matched by `const fn` builders; a
//! variant holding a `String` would give it a destructor, which const
//! evaluation can't run. [`ConfigFileError`] carries the key's path, its
//! line and a reason, and, when a builder rule failed, the
//! [`crate::ConfigError`] itself ([`ConfigFileError::rule`]).
//!
//! # Environment variables
//!
//! `RESILIENT_OPERATIONS__<name>__<KEY>`, `RESILIENT_BREAKERS__<name>__<KEY>`,
//! `RESILIENT_LIMITS__<name>__<KEY>`, `RESILIENT_THROTTLES__<name>__<KEY>`
//! and `RESILIENT_CHAOS__<name>__<KEY>`, with `__` between the parts (the
//! convention of figment's `Env::split("__")`). `<name>` is taken as
//! written, dots included (`RESILIENT_OPERATIONS__payments.charge__RETRIES`,
//! which `env` and container runtimes accept); `<KEY>` is case-insensitive.
//! A shell that can't write a dot in a name can pass the pairs through
//! [`Config::from_pairs`] after its own mapping.
//!
//! ```
//! use resilient::config::Config;
//!
//! let config = Config::from_pairs([
//!     ("RESILIENT_OPERATIONS__payments.charge__RETRIES", "5"),
//!     ("RESILIENT_OPERATIONS__payments.charge__TIMEOUT", "2s"),
//!     ("PATH", "/usr/bin"),
//!     ("RESILIENT_LIMITS__search__RATE", "100"),
//!     ("RESILIENT_CHAOS__pricing.faults__ENABLED", "true"),
//! ])?;
//! assert_eq!(config.operation("payments.charge").unwrap().retries, Some(5));
//! assert_eq!(config.limit("search").unwrap().rate, Some(100));
//! assert_eq!(config.chaos("pricing.faults").unwrap().enabled, Some(true));
//! # Ok::<(), resilient::config::ConfigFileError>(())
//! ```
//!
//! # Watching a file
//!
//! With the feature `config-watch`, `config::watch(path)` installs a TOML
//! file and installs it again on every change, until the `ConfigWatcher`
//! it returns is dropped. An invalid or deleted file keeps the
//! configuration in force; the watcher's `last_error` says why (and, with
//! `tracing`, a `config.file_rejected` warning).

use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::Duration;

use arc_swap::ArcSwapOption;
use toml::Spanned;

use crate::Jitter;

mod file_error;
mod live;
mod orders;
mod origin;
mod parse;
mod sections;
#[cfg(feature = "config-watch")]
mod watch;
pub use file_error::ConfigFileError;
pub(crate) use live::{
    BreakerCache, Cache, First, Resolved, UNKNOWN, first, packed, resolve, resolve_read, version_of,
};
pub(crate) use orders::BreakerOrders;
pub use orders::{isolate, reset};
pub use origin::Origin;
use parse::{Raw, RawEntry, Sections, assemble, key_path, line_of};
pub use sections::{
    AdaptiveThrottleConfig, ChaosConfig, LimitConfig, ThrottleConfig, adaptive_throttle_settings,
    chaos_settings, throttle_settings,
};
pub(crate) use sections::{BuiltRate, ChaosCache, LimitCache, RateCache, ThrottleCache};
#[cfg(feature = "config-watch")]
pub use watch::{ConfigWatcher, WatchBuilder, WatchError, watch};

/// The overrides of one operation, by key; `None` keeps the attribute's value.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct OperationConfig {
    /// `retries`: retries after the first attempt.
    pub retries: Option<u32>,
    /// `min_retries`: retries granted even when `max_elapsed` has passed.
    pub min_retries: Option<u32>,
    /// `timeout`: the cap of each attempt.
    pub timeout: Option<Duration>,
    /// `budget`: the hard cap of the whole call.
    pub budget: Option<Duration>,
    /// `max_elapsed`: the soft cap after which no retry starts.
    pub max_elapsed: Option<Duration>,
    /// `base_delay`: the backoff's first delay.
    pub base_delay: Option<Duration>,
    /// `max_delay`: the backoff's cap.
    pub max_delay: Option<Duration>,
    /// `multiplier`: the backoff's growth, finite and at least 1.
    pub multiplier: Option<f64>,
    /// `jitter`: `"full"`, `"equal"`, `"none"`, `"decorrelated"`,
    /// `"additive"` or `"additive_uncapped"`.
    pub jitter: Option<Jitter>,
    /// `retry_after_max`: the longest Retry-After the call waits for.
    pub retry_after_max: Option<Duration>,
    /// `hedge_delay`: the wait before a hedged attempt starts.
    pub hedge_delay: Option<Duration>,
}

/// The overrides of one named breaker; `None` keeps the builder's value.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct BreakerConfig {
    /// `failure_threshold`: failures that open it, at least 1.
    pub failure_threshold: Option<u32>,
    /// `break_duration`: how long it stays open, greater than zero.
    pub break_duration: Option<Duration>,
}

/// A whole configuration: overrides by operation name and by breaker name.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Config {
    operations: BTreeMap<String, OperationConfig>,
    breakers: BTreeMap<String, BreakerConfig>,
    limits: BTreeMap<String, LimitConfig>,
    throttles: BTreeMap<String, ThrottleConfig>,
    adaptive_throttles: BTreeMap<String, AdaptiveThrottleConfig>,
    chaos: BTreeMap<String, ChaosConfig>,
    version: u64,
    origin: Origin,
}

type TomlLayout = BTreeMap<
    Spanned<String>,
    BTreeMap<Spanned<String>, BTreeMap<Spanned<String>, Spanned<toml::Value>>>,
>;

impl Config {
    /// Reads a configuration from TOML, laid out as in the module's docs.
    ///
    /// ```
    /// use resilient::config::Config;
    /// use std::time::Duration;
    ///
    /// let config = Config::from_toml(r#"
    /// [operations."payments.charge"]
    /// retries = 5
    /// timeout = "2s"
    /// "#)?;
    /// let charge = config.operation("payments.charge").unwrap();
    /// assert_eq!(charge.timeout, Some(Duration::from_secs(2)));
    ///
    /// let error = Config::from_toml("[operations.fetch]\nretries = -1\n").unwrap_err();
    /// assert_eq!(error.path(), "operations.fetch.retries");
    /// assert_eq!(error.line(), Some(2));
    /// # Ok::<(), resilient::config::ConfigFileError>(())
    /// ```
    pub fn from_toml(text: &str) -> Result<Config, ConfigFileError> {
        let layout: TomlLayout = toml::from_str(text).map_err(|error| ConfigFileError {
            path: String::new(),
            line: error.span().map(|span| line_of(text, span.start)),
            reason: error.message().trim().to_owned(),
            rule: None,
            more: Box::default(),
        })?;
        let mut sections = Sections::new();
        for (section, names) in layout {
            let section_line = Some(line_of(text, section.span().start));
            let section = section.into_inner();
            if names.is_empty() {
                sections.insert((section.clone(), String::new()), (section_line, Vec::new()));
                // An empty unknown section is still unknown; an empty known one is nothing.
                if parse::SECTIONS.contains(&section.as_str()) {
                    sections.remove(&(section, String::new()));
                }
                continue;
            }
            for (name, keys) in names {
                let name_line = Some(line_of(text, name.span().start));
                let entries = keys
                    .into_iter()
                    .map(|(key, value)| {
                        let line = Some(line_of(text, key.span().start));
                        let raw = match value.into_inner() {
                            toml::Value::Integer(number) => Raw::Int(number),
                            toml::Value::Float(number) => Raw::Float(number),
                            toml::Value::String(text) => Raw::Str(text),
                            toml::Value::Boolean(truth) => Raw::Bool(truth),
                            toml::Value::Datetime(_) => Raw::Other("datetime"),
                            toml::Value::Array(_) => Raw::Other("array"),
                            toml::Value::Table(_) => Raw::Other("table"),
                        };
                        RawEntry {
                            key: key.into_inner(),
                            line,
                            raw,
                        }
                    })
                    .collect();
                sections.insert((section.clone(), name.into_inner()), (name_line, entries));
            }
        }
        assemble(sections)
    }

    /// Reads the same layout from JSON: `{"operations": {"NAME": {"retries": 5}}}`.
    /// Errors name the key's path; only a syntax error has a line.
    ///
    /// ```
    /// use resilient::config::Config;
    ///
    /// let config = Config::from_json(r#"{"operations": {"fetch": {"retries": 2}}}"#)?;
    /// assert_eq!(config.operation("fetch").unwrap().retries, Some(2));
    /// # Ok::<(), resilient::config::ConfigFileError>(())
    /// ```
    pub fn from_json(text: &str) -> Result<Config, ConfigFileError> {
        let fail = |path: String, reason: &str| ConfigFileError {
            path,
            line: None,
            reason: reason.to_owned(),
            rule: None,
            more: Box::default(),
        };
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|error| ConfigFileError {
                path: String::new(),
                line: Some(error.line()),
                reason: error.to_string(),
                rule: None,
                more: Box::default(),
            })?;
        let serde_json::Value::Object(top) = value else {
            return Err(fail(String::new(), "expected an object of sections"));
        };
        let mut sections = Sections::new();
        for (section, names) in top {
            let serde_json::Value::Object(names) = names else {
                return Err(fail(section, "expected an object of names"));
            };
            for (name, keys) in names {
                let serde_json::Value::Object(keys) = keys else {
                    return Err(fail(
                        key_path(&section, &name, None),
                        "expected an object of keys",
                    ));
                };
                let entries = keys
                    .into_iter()
                    .map(|(key, value)| {
                        let raw = match value {
                            serde_json::Value::Number(number) => match number.as_i64() {
                                Some(whole) => Raw::Int(whole),
                                None => Raw::Float(number.as_f64().unwrap_or(f64::NAN)),
                            },
                            serde_json::Value::String(text) => Raw::Str(text),
                            serde_json::Value::Bool(truth) => Raw::Bool(truth),
                            serde_json::Value::Null => Raw::Other("null"),
                            serde_json::Value::Array(_) => Raw::Other("array"),
                            serde_json::Value::Object(_) => Raw::Other("object"),
                        };
                        RawEntry {
                            key,
                            line: None,
                            raw,
                        }
                    })
                    .collect();
                sections.insert((section.clone(), name), (None, entries));
            }
        }
        assemble(sections)
    }

    /// Reads a configuration from `(key, value)` pairs in the environment's
    /// convention (see the module's docs); keys without the `RESILIENT_`
    /// prefix are ignored.
    pub fn from_pairs<K, V>(
        pairs: impl IntoIterator<Item = (K, V)>,
    ) -> Result<Config, ConfigFileError>
    where
        K: AsRef<str>,
        V: AsRef<str>,
    {
        let mut sections = Sections::new();
        for (key, value) in pairs {
            let key = key.as_ref();
            let Some(rest) = key.strip_prefix("RESILIENT_") else {
                continue;
            };
            let parts: Vec<&str> = rest.split("__").collect();
            let [section, name, field] = parts.as_slice() else {
                return Err(ConfigFileError {
                    path: key.to_owned(),
                    line: None,
                    reason: "expected RESILIENT_<SECTION>__<name>__<KEY>".to_owned(),
                    rule: None,
                    more: Box::default(),
                });
            };
            let entry = RawEntry {
                key: field.to_ascii_lowercase(),
                line: None,
                raw: Raw::Str(value.as_ref().to_owned()),
            };
            sections
                .entry((section.to_ascii_lowercase(), (*name).to_owned()))
                .or_insert_with(|| (None, Vec::new()))
                .1
                .push(entry);
        }
        assemble(sections)
    }

    /// Reads a configuration from this process's environment variables
    /// (`RESILIENT_OPERATIONS__<name>__<KEY>`, see the module's docs).
    pub fn from_env() -> Result<Config, ConfigFileError> {
        Config::from_pairs(
            std::env::vars_os().filter_map(|(key, value)| {
                Some((key.into_string().ok()?, value.into_string().ok()?))
            }),
        )
    }

    /// The overrides of the operation named `name`, if any.
    pub fn operation(&self, name: &str) -> Option<&OperationConfig> {
        self.operations.get(name)
    }

    /// The overrides of the breaker named `name`, if any.
    pub fn breaker(&self, name: &str) -> Option<&BreakerConfig> {
        self.breakers.get(name)
    }

    /// The overrides of the limiter named `name` (`[limits.NAME]`), if any.
    ///
    /// ```
    /// use resilient::config::Config;
    ///
    /// let config = Config::from_toml("[limits.db]\nmax_concurrent = 16\n")?;
    /// assert_eq!(config.limit("db").unwrap().max_concurrent, Some(16));
    /// # Ok::<(), resilient::config::ConfigFileError>(())
    /// ```
    pub fn limit(&self, name: &str) -> Option<&LimitConfig> {
        self.limits.get(name)
    }

    /// The generation it was installed as; 0 when it wasn't.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// Where it came from: [`Origin::Code`] unless said otherwise with
    /// [`from_origin`](Self::from_origin).
    pub fn origin(&self) -> &Origin {
        &self.origin
    }

    /// The same configuration, said to come from `origin`: what a
    /// watcher of a file, or a control endpoint, installs.
    ///
    /// ```
    /// use resilient::config::{Config, Origin};
    ///
    /// let config = Config::from_toml("")?.from_origin(Origin::Panel);
    /// assert_eq!(config.origin(), &Origin::Panel);
    /// # Ok::<(), resilient::config::ConfigFileError>(())
    /// ```
    #[must_use]
    pub fn from_origin(mut self, origin: Origin) -> Config {
        self.origin = origin;
        self
    }
}

/// Where the configuration installed as `version` came from, while it is
/// among the latest 16 versions; `Some(Origin::Code)` for a [`clear`].
///
/// ```
/// use resilient::config::{self, Origin};
///
/// let version = config::install_toml("[operations.fetch]\nretries = 1\n")?;
/// assert_eq!(config::origin(version), Some(Origin::Code));
/// assert_eq!(config::origin(version + 1000), None);
/// # config::clear();
/// # Ok::<(), resilient::config::ConfigFileError>(())
/// ```
pub fn origin(version: u64) -> Option<Origin> {
    installed_at(version).map(|config| config.map_or(Origin::Code, |config| config.origin.clone()))
}

static CURRENT: ArcSwapOption<Config> = ArcSwapOption::const_empty();
static GENERATION: AtomicU64 = AtomicU64::new(0);
/// Whether the installed configuration has a `[throttles.default]`
/// entry, which turns on the process's retry budget
/// ([`budget_default`](crate::throttle::budget_default)).
static BUDGET_DEFAULT: AtomicBool = AtomicBool::new(false);

/// The name of the throttle entry that turns the process's retry budget on.
pub(crate) const BUDGET_DEFAULT_NAME: &str = "default";

/// Whether the installed configuration turns the process's retry budget
/// on: one relaxed load.
#[inline(always)]
pub(crate) fn budget_default_configured() -> bool {
    BUDGET_DEFAULT.load(Ordering::Relaxed)
}

/// The generation of the latest [`clear`].
static CLEARED_AT: AtomicU64 = AtomicU64::new(0);
static INSTALLING: Mutex<()> = Mutex::new(());

/// How many of the latest generations are remembered with their
/// configuration, for the retries of calls whose first attempt read one
/// ([`live::resolve_read`]).
const REMEMBERED: usize = 16;

/// The latest generations and what each installed (`None`: a clear),
/// oldest first.
type Installed = VecDeque<(u64, Option<Arc<Config>>)>;
static HISTORY: Mutex<Installed> = Mutex::new(VecDeque::new());

/// Notes that `generation` installed `config`; the caller holds
/// `INSTALLING`.
fn remember(generation: u64, config: Option<Arc<Config>>) {
    let mut history = HISTORY
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if history.len() == REMEMBERED {
        history.pop_front();
    }
    history.push_back((generation, config));
}

/// What `generation` installed, if it is remembered: `Some(None)` for a
/// clear.
fn installed_at(generation: u64) -> Option<Option<Arc<Config>>> {
    let history = HISTORY
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    history
        .iter()
        .find(|(at, _)| *at == generation)
        .map(|(_, config)| config.clone())
}

/// Makes `config` live and returns its version. Calls that start
/// afterwards see it; calls in flight keep what they started with.
///
/// ```
/// use resilient::config::{self, Config};
///
/// let version = config::install(Config::from_toml("[operations.fetch]\nretries = 2\n")?);
/// assert_eq!(config::current().unwrap().version(), version);
/// config::clear();
/// assert!(config::current().is_none());
/// # Ok::<(), resilient::config::ConfigFileError>(())
/// ```
pub fn install(mut config: Config) -> u64 {
    let _serial = INSTALLING
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let version = GENERATION.load(Ordering::Relaxed).saturating_add(1);
    config.version = version;
    let config = Arc::new(config);
    remember(version, Some(Arc::clone(&config)));
    BUDGET_DEFAULT.store(
        config.throttle(BUDGET_DEFAULT_NAME).is_some(),
        Ordering::Release,
    );
    CURRENT.store(Some(config));
    GENERATION.store(version, Ordering::Release);
    wake_waiters();
    version
}

/// Reads `text` as TOML and installs it; a bad text changes nothing.
/// This is the call a control endpoint makes.
///
/// ```
/// use resilient::config;
///
/// assert!(config::install_toml("[operations.fetch]\nretries = \"many\"\n").is_err());
/// let version = config::install_toml("[operations.fetch]\nretries = 1\n")?;
/// assert!(version >= 1);
/// # config::clear();
/// # Ok::<(), resilient::config::ConfigFileError>(())
/// ```
pub fn install_toml(text: &str) -> Result<u64, ConfigFileError> {
    Config::from_toml(text).map(install)
}

/// Goes back to the attribute's values; returns the new generation.
pub fn clear() -> u64 {
    let _serial = INSTALLING
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let version = GENERATION.load(Ordering::Relaxed).saturating_add(1);
    remember(version, None);
    // Before `CURRENT`: whoever finds none there finds this clear's
    // version, or a later clear's, here.
    CLEARED_AT.store(version, Ordering::Release);
    BUDGET_DEFAULT.store(false, Ordering::Release);
    CURRENT.store(None);
    GENERATION.store(version, Ordering::Release);
    wake_waiters();
    version
}

/// The limiters' waiting callers, each woken by every install and clear:
/// a bulkhead grown by the new configuration admits them at once, rather
/// than when a permit returns or their `limit_wait` runs out. One entry per
/// limiter that ever had a caller wait, dropped with the limiter.
static WAITING: Mutex<Vec<Weak<dyn Resized>>> = Mutex::new(Vec::new());

/// What an install may have resized: a limiter's waiting callers.
pub(crate) trait Resized: Send + Sync {
    /// Wakes them, so that each tries again.
    fn wake(&self);
}

/// Wakes `woken`'s callers at every install and clear from now on.
pub(crate) fn wake_on_install(woken: Weak<dyn Resized>) {
    WAITING
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(woken);
}

/// Wakes every limiter's waiting callers, so that each tries again under
/// the configuration just installed; one whose limiter did not change
/// goes back to waiting.
fn wake_waiters() {
    WAITING
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .retain(|woken| woken.upgrade().map(|woken| woken.wake()).is_some());
}

/// The generation counter: it grows with every [`install`] and [`clear`].
/// A cache of resolved settings is valid while it hasn't changed; where the
/// version came from is [`origin`]`(version)`.
pub fn version() -> u64 {
    GENERATION.load(Ordering::Acquire)
}

/// The installed configuration, if any.
pub fn current() -> Option<Arc<Config>> {
    CURRENT.load_full()
}

/// The installed overrides of the operation `name`, with the version they
/// came from.
pub fn operation_settings(name: &str) -> Option<(u64, OperationConfig)> {
    let config = CURRENT.load();
    let config = config.as_ref()?;
    Some((config.version, config.operation(name)?.clone()))
}

/// The installed overrides of the breaker `name`: what a breaker built with
/// `.name(name)` consults for its threshold and break duration.
pub fn breaker_settings(name: &str) -> Option<BreakerConfig> {
    let config = CURRENT.load();
    config.as_ref()?.breaker(name).cloned()
}

/// The installed configuration's overrides of the limiter `name`, which
/// a [`Bulkhead`](crate::limit::Bulkhead) of that name applies from its
/// next admission.
pub fn limit_settings(name: &str) -> Option<LimitConfig> {
    let config = CURRENT.load();
    config.as_ref()?.limit(name).cloned()
}

#[cfg(test)]
mod tests {
    use super::parse::parse_duration;
    use super::*;
    use crate::ConfigError;

    fn error(text: &str) -> ConfigFileError {
        Config::from_toml(text).unwrap_err()
    }

    #[test]
    fn reads_every_operation_key() {
        let config = Config::from_toml(
            "[operations.\"payments.charge\"]\nretries = 5\nmin_retries = 1\ntimeout = \"2s\"\n\
             budget = \"10s\"\nmax_elapsed = \"8s\"\nbase_delay = \"200ms\"\nmax_delay = \"5s\"\n\
             multiplier = 3\njitter = \"equal\"\nretry_after_max = \"1m\"\nhedge_delay = \"1.5ms\"\n\
             [breakers.payments]\nfailure_threshold = 4\nbreak_duration = \"30s\"\n",
        )
        .unwrap();
        let op = config.operation("payments.charge").unwrap();
        assert_eq!(op.retries, Some(5));
        assert_eq!(op.min_retries, Some(1));
        assert_eq!(op.timeout, Some(Duration::from_secs(2)));
        assert_eq!(op.budget, Some(Duration::from_secs(10)));
        assert_eq!(op.max_elapsed, Some(Duration::from_secs(8)));
        assert_eq!(op.base_delay, Some(Duration::from_millis(200)));
        assert_eq!(op.max_delay, Some(Duration::from_secs(5)));
        assert_eq!(op.multiplier, Some(3.0));
        assert_eq!(op.jitter, Some(Jitter::Equal));
        assert_eq!(op.retry_after_max, Some(Duration::from_secs(60)));
        assert_eq!(op.hedge_delay, Some(Duration::from_micros(1500)));
        let breaker = config.breaker("payments").unwrap();
        assert_eq!(breaker.failure_threshold, Some(4));
        assert_eq!(breaker.break_duration, Some(Duration::from_secs(30)));
    }

    #[test]
    fn every_jitter_has_its_name() {
        let jitters = [
            ("full", Jitter::Full),
            ("equal", Jitter::Equal),
            ("none", Jitter::None),
            ("decorrelated", Jitter::Decorrelated),
            ("additive", Jitter::Additive),
            ("additive_uncapped", Jitter::AdditiveUncapped),
        ];
        for (name, jitter) in jitters {
            let config =
                Config::from_toml(&format!("[operations.f]\njitter = \"{name}\"\n")).unwrap();
            assert_eq!(
                config.operation("f").unwrap().jitter,
                Some(jitter),
                "{name}"
            );
        }
    }

    #[test]
    fn every_rule_names_its_key_and_line() {
        let cases: &[(&str, &str, usize)] = &[
            (
                "[operations.\"a.b\"]\nretries = -1\n",
                "operations.\"a.b\".retries",
                2,
            ),
            (
                "[operations.f]\n\nretries = \"x\"\n",
                "operations.f.retries",
                3,
            ),
            (
                "[operations.f]\ntimeout = \"0s\"\n",
                "operations.f.timeout",
                2,
            ),
            (
                "[operations.f]\ntimeout = \"2 parsecs\"\n",
                "operations.f.timeout",
                2,
            ),
            ("[operations.f]\ntimeout = 5\n", "operations.f.timeout", 2),
            (
                "[operations.f]\nbudget = \"-1s\"\n",
                "operations.f.budget",
                2,
            ),
            (
                "[operations.f]\nmultiplier = 0.5\n",
                "operations.f.multiplier",
                2,
            ),
            (
                "[operations.f]\njitter = \"lots\"\n",
                "operations.f.jitter",
                2,
            ),
            (
                "[operations.f]\nretries = 1\nmin_retries = 2\n",
                "operations.f.min_retries",
                3,
            ),
            (
                "[operations.f]\nbase_delay = \"2s\"\nmax_delay = \"1s\"\n",
                "operations.f.base_delay",
                2,
            ),
            (
                "[operations.f]\nmax_elapsed = \"2s\"\nbudget = \"1s\"\n",
                "operations.f.budget",
                3,
            ),
            ("[operations.f]\nretrys = 1\n", "operations.f.retrys", 2),
            (
                "[breakers.p]\nfailure_threshold = 0\n",
                "breakers.p.failure_threshold",
                2,
            ),
            (
                "[breakers.p]\nbreak_duration = \"0ms\"\n",
                "breakers.p.break_duration",
                2,
            ),
            ("[breakers.p]\nwindow = 3\n", "breakers.p.window", 2),
            ("\n[retries.x]\nrate = 3\n", "retries", 2),
            ("[throttles.x]\nrate = 3\n", "throttles.x.rate", 2),
            (
                "[throttles.x]\nmax_tokens = 0\n",
                "throttles.x.max_tokens",
                2,
            ),
            (
                "[throttles.x]\nmax_tokens = 1001\n",
                "throttles.x.max_tokens",
                2,
            ),
            (
                "[throttles.x]\n\ntoken_ratio = 0.0004\n",
                "throttles.x.token_ratio",
                3,
            ),
            (
                "[throttles.x]\ntoken_ratio = \"much\"\n",
                "throttles.x.token_ratio",
                2,
            ),
            ("[limits.db]\nrate = 0\n", "limits.db.rate", 2),
            ("[limits.db]\nrate = -3\n", "limits.db.rate", 2),
            ("[limits.db]\nburst = 0\n", "limits.db.burst", 2),
            ("[limits.db]\nper = \"0s\"\n", "limits.db.per", 2),
            ("[limits.db]\nper = 60\n", "limits.db.per", 2),
            (
                "[chaos.\"a.b\"]\nenabled = \"yes\"\n",
                "chaos.\"a.b\".enabled",
                2,
            ),
            ("[chaos.c]\nenabled = 1\n", "chaos.c.enabled", 2),
            (
                "[chaos.c]\ninjection_rate = 1.5\n",
                "chaos.c.injection_rate",
                2,
            ),
            (
                "[chaos.c]\ninjection_rate = -0.1\n",
                "chaos.c.injection_rate",
                2,
            ),
            ("[chaos.c]\nrate = 0.1\n", "chaos.c.rate", 2),
            (
                "[limits.db]\nmax_concurrent = 0\n",
                "limits.db.max_concurrent",
                2,
            ),
            (
                "[limits.db]\nmax_concurent = 4\n",
                "limits.db.max_concurent",
                2,
            ),
        ];
        for (text, path, line) in cases {
            let error = error(text);
            assert_eq!(error.path(), *path, "{text}: {error}");
            assert_eq!(error.line(), Some(*line), "{text}: {error}");
        }
    }

    #[test]
    fn reads_every_key_of_the_named_primitives() {
        let config = Config::from_toml(
            "[limits.db]\nmax_concurrent = 4\nrate = 100\nper = \"1m\"\nburst = 7\n\
             [throttles.t]\nmax_tokens = 20\ntoken_ratio = 0.25\n\
             [chaos.\"pricing.faults\"]\nenabled = true\ninjection_rate = 0.05\n\
             [chaos.quiet]\nenabled = false\ninjection_rate = 1\n",
        )
        .unwrap();
        let limit = config.limit("db").unwrap();
        assert_eq!(limit.max_concurrent, Some(4));
        assert_eq!(limit.rate, Some(100));
        assert_eq!(limit.per, Some(Duration::from_secs(60)));
        assert_eq!(limit.burst, Some(7));
        let throttle = config.throttle("t").unwrap();
        assert_eq!(throttle.max_tokens, Some(20));
        assert_eq!(throttle.token_ratio, Some(0.25));
        let chaos = config.chaos("pricing.faults").unwrap();
        assert_eq!(chaos.enabled, Some(true));
        assert_eq!(chaos.injection_rate, Some(0.05));
        let quiet = config.chaos("quiet").unwrap();
        assert_eq!(
            (quiet.enabled, quiet.injection_rate),
            (Some(false), Some(1.0))
        );
        assert!(config.throttle("db").is_none());
        assert!(config.chaos("t").is_none());
    }

    #[test]
    fn a_throttle_value_follows_the_rules_of_try_new() {
        use crate::RetryThrottle;
        for max_tokens in [0_i64, 1, 10, 1000, 1001] {
            let text = format!("[throttles.t]\nmax_tokens = {max_tokens}\n");
            let read = Config::from_toml(&text)
                .map(|_| ())
                .map_err(|e| e.rule().cloned());
            let built = RetryThrottle::try_new(max_tokens as u32, 0.1)
                .map(|_| ())
                .map_err(Some);
            assert_eq!(read, built, "max_tokens {max_tokens}");
        }
        for ratio in ["0.0004", "0.0005", "0.001", "0.1", "7.5", "0", "-0.5"] {
            let text = format!("[throttles.t]\ntoken_ratio = {ratio}\n");
            let read = Config::from_toml(&text)
                .map(|_| ())
                .map_err(|e| e.rule().cloned());
            let built = RetryThrottle::try_new(10, ratio.parse().unwrap())
                .map(|_| ())
                .map_err(Some);
            assert_eq!(read, built, "token_ratio {ratio}");
        }
        let error = error("[throttles.t]\nmax_tokens = 5000\n");
        assert_eq!(error.rule(), Some(&ConfigError::InvalidMaxTokens(5000)));
        assert_eq!(
            error.to_string(),
            "throttles.t.max_tokens (line 2): max_tokens must be within 1..=1000, got 5000"
        );
    }

    #[test]
    fn an_empty_section_of_a_primitive_is_nothing() {
        let config = Config::from_toml("[throttles]\n[chaos]\n[limits]\n").unwrap();
        assert_eq!(config, Config::default());
    }

    #[test]
    fn a_rule_of_the_builders_is_kept() {
        let error = error("[operations.f]\nbase_delay = \"2s\"\nmax_delay = \"1s\"\n");
        assert_eq!(
            error.rule(),
            Some(&ConfigError::BaseAboveMax {
                base: Duration::from_secs(2),
                max: Duration::from_secs(1)
            })
        );
    }

    #[test]
    fn a_syntax_error_has_its_line() {
        let error = error("[operations.f]\nretries = = 2\n");
        assert_eq!(error.line(), Some(2), "{error}");
    }

    #[test]
    fn pairs_follow_the_environment_convention() {
        let config = Config::from_pairs([
            ("RESILIENT_OPERATIONS__payments.charge__RETRIES", "5"),
            ("RESILIENT_OPERATIONS__payments.charge__timeout", "250ms"),
            ("RESILIENT_BREAKERS__payments__FAILURE_THRESHOLD", "3"),
            ("RESILIENT_LIMITS__search__RATE", "50"),
            ("RESILIENT_LIMITS__search__PER", "1s"),
            ("RESILIENT_LIMITS__search__BURST", "5"),
            ("RESILIENT_THROTTLES__payments__MAX_TOKENS", "20"),
            ("RESILIENT_THROTTLES__payments__token_ratio", "0.5"),
            ("RESILIENT_CHAOS__pricing.faults__ENABLED", "TRUE"),
            ("RESILIENT_CHAOS__pricing.faults__INJECTION_RATE", "0.25"),
            ("HOME", "/root"),
        ])
        .unwrap();
        let search = config.limit("search").unwrap();
        assert_eq!(
            (search.rate, search.per, search.burst),
            (Some(50), Some(Duration::from_secs(1)), Some(5))
        );
        let throttle = config.throttle("payments").unwrap();
        assert_eq!(
            (throttle.max_tokens, throttle.token_ratio),
            (Some(20), Some(0.5))
        );
        let chaos = config.chaos("pricing.faults").unwrap();
        assert_eq!(
            (chaos.enabled, chaos.injection_rate),
            (Some(true), Some(0.25))
        );
        let error = Config::from_pairs([("RESILIENT_CHAOS__c__ENABLED", "on")]).unwrap_err();
        assert_eq!(error.path(), "chaos.c.enabled");
        let error = Config::from_pairs([("RESILIENT_THROTTLES__t__MAX_TOKENS", "0")]).unwrap_err();
        assert_eq!(error.path(), "throttles.t.max_tokens");
        assert_eq!(error.rule(), Some(&ConfigError::InvalidMaxTokens(0)));
        let op = config.operation("payments.charge").unwrap();
        assert_eq!(op.retries, Some(5));
        assert_eq!(op.timeout, Some(Duration::from_millis(250)));
        assert_eq!(
            config.breaker("payments").unwrap().failure_threshold,
            Some(3)
        );
        let error = Config::from_pairs([("RESILIENT_OPERATIONS__f__RETRIES", "-2")]).unwrap_err();
        assert_eq!(error.path(), "operations.f.retries");
        assert_eq!(error.line(), None);
        assert!(Config::from_pairs([("RESILIENT_OPERATIONS__f", "1")]).is_err());
    }

    #[test]
    fn json_has_the_same_layout_and_rules() {
        let config = Config::from_json(
            r#"{"operations": {"a.b": {"retries": 3, "timeout": "1s", "multiplier": 1.5}},
                "breakers": {"p": {"failure_threshold": 2}},
                "limits": {"search": {"rate": 10, "per": "1m", "burst": 2}},
                "throttles": {"t": {"max_tokens": 5, "token_ratio": 1}},
                "chaos": {"c": {"enabled": true, "injection_rate": 0.5}}}"#,
        )
        .unwrap();
        let search = config.limit("search").unwrap();
        assert_eq!(
            (search.rate, search.per, search.burst),
            (Some(10), Some(Duration::from_secs(60)), Some(2))
        );
        let throttle = config.throttle("t").unwrap();
        assert_eq!(
            (throttle.max_tokens, throttle.token_ratio),
            (Some(5), Some(1.0))
        );
        let chaos = config.chaos("c").unwrap();
        assert_eq!(
            (chaos.enabled, chaos.injection_rate),
            (Some(true), Some(0.5))
        );
        let error = Config::from_json(r#"{"chaos": {"c": {"injection_rate": 2}}}"#).unwrap_err();
        assert_eq!(error.path(), "chaos.c.injection_rate");
        let error = Config::from_json(r#"{"limits": {"db": {"burst": 0}}}"#).unwrap_err();
        assert_eq!(error.path(), "limits.db.burst");
        let op = config.operation("a.b").unwrap();
        assert_eq!(op.retries, Some(3));
        assert_eq!(op.timeout, Some(Duration::from_secs(1)));
        assert_eq!(op.multiplier, Some(1.5));
        assert_eq!(config.breaker("p").unwrap().failure_threshold, Some(2));
        let error = Config::from_json(r#"{"operations": {"a.b": {"retries": -1}}}"#).unwrap_err();
        assert_eq!(error.path(), "operations.\"a.b\".retries");
        let error = Config::from_json("{\n\"operations\": }").unwrap_err();
        assert_eq!(error.line(), Some(2));
    }

    #[test]
    fn durations_read_as_the_attribute_reads_them() {
        assert_eq!(parse_duration("1.5s"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("7ns"), Ok(Duration::from_nanos(7)));
        assert!(parse_duration("1.5ns").is_err());
        assert!(parse_duration("s").is_err());
        assert!(parse_duration("1..2s").is_err());
        assert!(parse_duration("99999999999999999999999999h").is_err());
    }

    // The tests that install share the process-wide slot: one at a time.
    pub(super) static SLOT: Mutex<()> = Mutex::new(());

    /// Threads reading a bulkhead's and a breaker's cached entries while
    /// another installs sizes back and forth: once the installs stop, every
    /// cache holds the last one's values, whatever refreshes raced.
    #[test]
    fn caches_read_across_installs_end_on_the_last_one() {
        use std::sync::Arc;
        use std::sync::atomic::AtomicBool;

        let _slot = SLOT.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let limit = Arc::new(sections::LimitCache::new());
        let breaker = Arc::new(live::BreakerCache::new());
        let done = Arc::new(AtomicBool::new(false));
        let readers: Vec<_> = (0..4)
            .map(|_| {
                let (limit, breaker, done) = (limit.clone(), breaker.clone(), done.clone());
                std::thread::spawn(move || {
                    while !done.load(Ordering::Relaxed) {
                        let _ = limit.max_concurrent("hammer.pool");
                        let _ = breaker.read("hammer.breaker");
                    }
                })
            })
            .collect();
        for round in 0..300u32 {
            let size = 1 + round % 7;
            install_toml(&format!(
                "[limits.\"hammer.pool\"]\nmax_concurrent = {size}\n\
                 [breakers.\"hammer.breaker\"]\nfailure_threshold = {size}\n"
            ))
            .unwrap();
        }
        done.store(true, Ordering::Relaxed);
        for reader in readers {
            reader.join().unwrap();
        }
        let last = 1 + 299 % 7;
        assert_eq!(limit.max_concurrent("hammer.pool"), Some(last));
        assert_eq!(breaker.read("hammer.breaker").0, Some(last));
        clear();
        assert_eq!(limit.max_concurrent("hammer.pool"), None);
    }

    #[test]
    fn install_swaps_whole_and_a_bad_text_changes_nothing() {
        let _slot = SLOT.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let before = version();
        let first =
            install_toml("[operations.f]\nretries = 2\n[breakers.b]\nfailure_threshold = 7\n")
                .unwrap();
        assert!(first > before);
        assert_eq!(version(), first);
        assert_eq!(operation_settings("f").unwrap().0, first);
        assert_eq!(breaker_settings("b").unwrap().failure_threshold, Some(7));

        assert!(install_toml("[operations.f]\nretries = 9\ntimeout = \"0s\"\n").is_err());
        assert_eq!(version(), first);
        assert_eq!(operation_settings("f").unwrap().1.retries, Some(2));

        let cleared = clear();
        assert!(cleared > first);
        assert!(current().is_none());
        assert!(operation_settings("f").is_none());
        assert!(breaker_settings("b").is_none());
    }

    #[test]
    fn readers_on_threads_see_whole_configurations() {
        let _slot = SLOT.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        // Pairs that belong together: retries = n, timeout = n ms.
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let readers: Vec<_> = (0..4)
            .map(|_| {
                let stop = Arc::clone(&stop);
                std::thread::spawn(move || {
                    let mut seen = 0_u64;
                    while !stop.load(Ordering::Relaxed) {
                        if let Some(config) = current()
                            && let Some(op) = config.operation("pairwise")
                        {
                            let retries = u64::from(op.retries.unwrap());
                            assert_eq!(op.timeout, Some(Duration::from_millis(retries)));
                            seen += 1;
                        }
                    }
                    seen
                })
            })
            .collect();
        for n in 1..=1000_u32 {
            let text = format!("[operations.pairwise]\nretries = {n}\ntimeout = \"{n}ms\"\n");
            install(Config::from_toml(&text).unwrap());
        }
        stop.store(true, Ordering::Relaxed);
        for reader in readers {
            reader.join().unwrap();
        }
        clear();
    }
}

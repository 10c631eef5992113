//! [`RedisBreakerState`]: a breaker's state shared by a fleet through one
//! Redis server (feature `redis`), and the publisher that shares it.
//!
//! Four keys per breaker name, under one hash tag so that a cluster keeps
//! them on one node, `prefix + "{" + name + "}:"` followed by:
//!
//! * `fleet`, a hash: `epoch` (raised on every opening and closing) and
//!   `open_until` (the server's milliseconds; 0 or absent: closed);
//! * `counts`, a hash: each instance's calls and failures over its last
//!   sampling window, `"<calls> <failures>"`, under the instance's id;
//! * `seen`, a sorted set: each instance's id, scored by the time of its
//!   latest report; an instance silent for a window drops out, counts and
//!   all;
//! * `probes`, a sorted set: the instances holding a probe slot of the
//!   fleet's half-open period, scored by the end of their lease.
//!
//! Three Lua scripts change them, each atomic on the server, on the
//! server's clock (`TIME`), so the instances' clocks needn't agree:
//! [`REPORT`] (an instance's counts in, the verdict out, and the opening),
//! [`PROBE`] (a slot of the half-open period) and [`SETTLE`] (a probe's
//! end). Every key expires when the fleet has been quiet for a while.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::sync::{Arc, LazyLock, Weak};
use std::time::{Duration, Instant};

use redis::aio::MultiplexedConnection;
use redis::{AsyncConnectionConfig, IntoConnectionInfo, RedisResult, Script};
use tokio::sync::Notify;

use super::shared::{Fleet, ProbeEnd};
use crate::error::ConfigError;

/// The key prefix unless told otherwise.
const DEFAULT_PREFIX: &str = "resilient:breaker:";
const DEFAULT_FAILURE_RATIO: f64 = 0.5;
const DEFAULT_MINIMUM_THROUGHPUT: u32 = 20;
const DEFAULT_SAMPLING_WINDOW: Duration = Duration::from_secs(10);
const DEFAULT_QUORUM: u32 = 2;
const DEFAULT_PUBLISH_EVERY: Duration = Duration::from_millis(100);

/// How long the publisher waits for Redis to connect, and to answer.
const CONNECT_TIMEOUT: Duration = Duration::from_millis(500);
const RESPONSE_TIMEOUT: Duration = Duration::from_millis(500);

/// The longest time sent to Redis, about 35 000 years (as `RedisStore`'s):
/// Redis refuses an expiry that overflows its clock.
const MAX_MS: u64 = 1 << 50;

/// `KEYS`: fleet, counts, seen, probes. `ARGV`: 1 the instance's id, 2 the
/// epoch its counts belong to, 3 its calls, 4 its failures, 5 the window
/// (ms), 6 the failure ratio, 7 the minimum throughput, 8 the quorum, 9
/// the quorum's share, 10 the break (ms), 11 how long the keys live (ms).
///
/// Records the counts (unless they belong to another epoch, or the fleet
/// is open), and opens the fleet when, over the instances seen in the
/// window, the calls reach the minimum throughput, failures reach the
/// ratio of them, the instances whose own failures reach the ratio number
/// at least `needed = max(quorum, ceil(share × seen))`, and, without the
/// `needed − 1` instances that failed most, the calls still reach the
/// minimum throughput and the failures the ratio of them. That last test
/// is what keeps one instance out of the fleet's verdict: a poisoned
/// instance's failures can outweigh every other's calls, and a stray
/// failure elsewhere makes a second "failing" instance, but without the
/// poisoned one the rest are healthy, or too quiet to judge. Returns
/// `{epoch, open (0 or 1), ms until the break ends (negative:
/// half-open)}`.
static REPORT: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"local t = redis.call('TIME')
        local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
        local keep = ARGV[11]
        local epoch = tonumber(redis.call('HGET', KEYS[1], 'epoch') or '0')
        local open_until = tonumber(redis.call('HGET', KEYS[1], 'open_until') or '0')
        redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now - tonumber(ARGV[5]))
        redis.call('PEXPIRE', KEYS[1], keep)
        if open_until > 0 then
            return {epoch, 1, open_until - now}
        end
        if tonumber(ARGV[2]) == epoch then
            redis.call('HSET', KEYS[2], ARGV[1], ARGV[3] .. ' ' .. ARGV[4])
            redis.call('ZADD', KEYS[3], now, ARGV[1])
        end
        redis.call('PEXPIRE', KEYS[2], keep)
        redis.call('PEXPIRE', KEYS[3], keep)
        local ratio = tonumber(ARGV[6])
        local calls, failures, failing, seen = 0, 0, 0, 0
        local each = {}
        local counts = redis.call('HGETALL', KEYS[2])
        for i = 1, #counts, 2 do
            local c, f = string.match(counts[i + 1], '^(%d+) (%d+)$')
            if c and redis.call('ZSCORE', KEYS[3], counts[i]) then
                c, f = tonumber(c), tonumber(f)
                seen = seen + 1
                calls = calls + c
                failures = failures + f
                each[seen] = {f, c}
                if f > 0 and f >= ratio * c then failing = failing + 1 end
            else
                redis.call('HDEL', KEYS[2], counts[i])
            end
        end
        local needed = math.max(tonumber(ARGV[8]), math.ceil(tonumber(ARGV[9]) * seen))
        local open = calls >= tonumber(ARGV[7]) and calls > 0 and failures >= ratio * calls
            and failing >= needed
        if open and needed > 1 then
            table.sort(each, function(a, b) return a[1] > b[1] end)
            local rest_calls, rest_failures = calls, failures
            for i = 1, needed - 1 do
                rest_calls = rest_calls - each[i][2]
                rest_failures = rest_failures - each[i][1]
            end
            open = rest_calls >= tonumber(ARGV[7]) and rest_failures > 0
                and rest_failures >= ratio * rest_calls
        end
        if open then
            epoch = epoch + 1
            redis.call('HSET', KEYS[1], 'epoch', epoch, 'open_until', now + tonumber(ARGV[10]))
            redis.call('DEL', KEYS[2], KEYS[4])
            return {epoch, 1, tonumber(ARGV[10])}
        end
        return {epoch, 0, 0}",
    )
});

/// `KEYS`: fleet, probes. `ARGV`: 1 the instance's id, 2 the epoch, 3 the
/// fleet's probe slots, 4 the lease (ms). Grants the instance a slot if
/// the fleet is still in that epoch, its break is over, and a slot is
/// free (expired leases are free); returns 1 if granted, else 0.
static PROBE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"local t = redis.call('TIME')
        local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
        local epoch = tonumber(redis.call('HGET', KEYS[1], 'epoch') or '0')
        local open_until = tonumber(redis.call('HGET', KEYS[1], 'open_until') or '0')
        if epoch ~= tonumber(ARGV[2]) or open_until == 0 or now < open_until then
            return 0
        end
        redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
        if not redis.call('ZSCORE', KEYS[2], ARGV[1])
            and redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[3]) then
            return 0
        end
        redis.call('ZADD', KEYS[2], now + tonumber(ARGV[4]), ARGV[1])
        redis.call('PEXPIRE', KEYS[2], ARGV[4])
        return 1",
    )
});

/// `KEYS`: fleet, counts, probes. `ARGV`: 1 the instance's id, 2 the
/// epoch, 3 `succeeded`, `failed` or `released`, 4 the break (ms), 5 how
/// long the keys live (ms). Ends the instance's probe, if its lease still
/// holds in that epoch: a success closes the fleet with fresh counts, a
/// failure opens it for another break, a release frees the slot. Returns
/// 1 if the probe counted, else 0.
static SETTLE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"local t = redis.call('TIME')
        local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
        local epoch = tonumber(redis.call('HGET', KEYS[1], 'epoch') or '0')
        if epoch ~= tonumber(ARGV[2]) then return 0 end
        local lease = redis.call('ZSCORE', KEYS[3], ARGV[1])
        if not lease or tonumber(lease) <= now then return 0 end
        if ARGV[3] == 'released' then
            redis.call('ZREM', KEYS[3], ARGV[1])
            return 1
        end
        redis.call('DEL', KEYS[3])
        if ARGV[3] == 'succeeded' then
            redis.call('HSET', KEYS[1], 'epoch', epoch + 1, 'open_until', 0)
            redis.call('DEL', KEYS[2])
        else
            redis.call('HSET', KEYS[1], 'epoch', epoch + 1, 'open_until', now + tonumber(ARGV[4]))
        end
        redis.call('PEXPIRE', KEYS[1], ARGV[5])
        return 1",
    )
});

/// A breaker's state shared by every instance of a service through one
/// Redis server (feature `redis`); attach it with
/// [`CircuitBreakerBuilder::shared`](super::CircuitBreakerBuilder::shared).
///
/// Each instance's breaker keeps deciding each call on its own, with its
/// own rules and no I/O on the call's way. On top of that, a publisher of
/// its own sends the instance's calls and failures over the last
/// [sampling window](Self::sampling_window) to Redis every
/// [100 ms](Self::publish_every), and reads the fleet's verdict back.
///
/// **The fleet opens every instance's breaker** when, over the instances
/// that reported within the window:
///
/// * the calls reach the [minimum throughput](Self::minimum_throughput)
///   (default 20) and the failures reach the
///   [failure ratio](Self::failure_ratio) of them (default 0.5);
/// * the instances whose own failures reach that ratio are at least
///   the [quorum](Self::quorum) (default 2), and at least the
///   [share](Self::quorum_share) of the instances seen (default none);
/// * and without the instances that failed most, one fewer than that
///   number, the calls still reach the minimum throughput and the
///   failures the ratio of them: no instance, however many calls it
///   fails, can tip the verdict by itself.
///
/// So one instance whose own network is broken, failing every call while
/// the others succeed, opens its own breaker only, even when a stray
/// failure elsewhere makes a second instance look failing. The fleet's break lasts
/// the breaker's [`break_duration`](super::CircuitBreakerBuilder::break_duration)
/// for every instance; after it, [`fleet_probes`](Self::fleet_probes)
/// probes (default 1) run across the whole fleet, each slot leased for the
/// breaker's [`probe_timeout`](super::CircuitBreakerBuilder::probe_timeout)
/// so that a probe whose instance died frees its slot. A probe's success
/// closes the fleet's breaker, its failure opens it for another break.
///
/// While Redis doesn't answer (down, paused, cut off), each instance
/// decides alone, with its local breaker, and says so: its
/// [`fleet_state`](super::CircuitBreaker::fleet_state) is
/// [`FleetState::Alone`](super::FleetState::Alone), the gauge
/// `resilient_circuit_fleet_joined` reads 0 (feature `metrics`), and a
/// `circuit.fleet_left` warning is emitted (feature `tracing`). It joins
/// the fleet again as soon as Redis answers.
///
/// ```no_run
/// use resilient::CircuitBreaker;
/// use resilient::breaker::RedisBreakerState;
/// use std::time::Duration;
///
/// let fleet = RedisBreakerState::new("redis://127.0.0.1:6379/")?
///     .failure_ratio(0.5)
///     .minimum_throughput(50)
///     .sampling_window(Duration::from_secs(10))
///     .quorum(3);
/// let breaker = CircuitBreaker::builder().name("search").shared(fleet).build()?;
/// # let _ = breaker;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct RedisBreakerState {
    client: redis::Client,
    prefix: Cow<'static, str>,
    rule: Rule,
}

/// The fleet's rule and pace, as set.
#[derive(Debug, Clone, Copy)]
struct Rule {
    failure_ratio: f64,
    minimum_throughput: u32,
    sampling_window: Duration,
    quorum: u32,
    quorum_share: f64,
    fleet_probes: u32,
    publish_every: Duration,
}

impl RedisBreakerState {
    /// A fleet on the Redis server at `server` (a `redis://` URL, or any
    /// [`redis::IntoConnectionInfo`]). Nothing connects yet: the publisher
    /// does once the breaker is built, and the breaker decides alone until
    /// Redis answers.
    ///
    /// # Errors
    ///
    /// When `server` is not a valid address.
    ///
    /// ```
    /// use resilient::breaker::RedisBreakerState;
    ///
    /// assert!(RedisBreakerState::new("redis://127.0.0.1:6379/").is_ok());
    /// assert!(RedisBreakerState::new("not a url").is_err());
    /// ```
    pub fn new(server: impl IntoConnectionInfo) -> RedisResult<RedisBreakerState> {
        Ok(RedisBreakerState {
            client: redis::Client::open(server)?,
            prefix: Cow::Borrowed(DEFAULT_PREFIX),
            rule: Rule {
                failure_ratio: DEFAULT_FAILURE_RATIO,
                minimum_throughput: DEFAULT_MINIMUM_THROUGHPUT,
                sampling_window: DEFAULT_SAMPLING_WINDOW,
                quorum: DEFAULT_QUORUM,
                quorum_share: 0.0,
                fleet_probes: 1,
                publish_every: DEFAULT_PUBLISH_EVERY,
            },
        })
    }

    /// Puts the breaker's keys under `prefix` (default
    /// `"resilient:breaker:"`), followed by `{name}:`.
    ///
    /// ```
    /// use resilient::breaker::RedisBreakerState;
    ///
    /// let state = RedisBreakerState::new("redis://127.0.0.1/")?.with_prefix("shop:");
    /// # let _ = state;
    /// # Ok::<(), redis::RedisError>(())
    /// ```
    pub fn with_prefix(mut self, prefix: impl Into<Cow<'static, str>>) -> RedisBreakerState {
        self.prefix = prefix.into();
        self
    }

    /// The share of the fleet's calls that must fail, over the window, to
    /// open the fleet's breaker (default 0.5; within `(0.0, 1.0]`). It is
    /// also the share of its own calls an instance must fail to count
    /// towards the [quorum](Self::quorum).
    ///
    /// ```
    /// use resilient::CircuitBreaker;
    /// use resilient::ConfigError;
    /// use resilient::breaker::RedisBreakerState;
    ///
    /// let state = RedisBreakerState::new("redis://127.0.0.1/")?.failure_ratio(1.5);
    /// let err = CircuitBreaker::builder().shared(state).build().unwrap_err();
    /// assert_eq!(err, ConfigError::InvalidFailureRatio(1.5));
    /// # Ok::<(), redis::RedisError>(())
    /// ```
    pub fn failure_ratio(mut self, ratio: f64) -> RedisBreakerState {
        self.rule.failure_ratio = ratio;
        self
    }

    /// Calls the fleet must have made within the window before its ratio
    /// counts (default 20; 0 behaves like 1).
    ///
    /// ```
    /// # use resilient::breaker::RedisBreakerState;
    /// let state = RedisBreakerState::new("redis://127.0.0.1/")?.minimum_throughput(100);
    /// # let _ = state;
    /// # Ok::<(), redis::RedisError>(())
    /// ```
    pub fn minimum_throughput(mut self, calls: u32) -> RedisBreakerState {
        self.rule.minimum_throughput = calls;
        self
    }

    /// The window over which each instance counts the calls it reports
    /// (default 10 s; must not be zero). An instance that hasn't reported
    /// for as long drops out of the fleet's counts.
    ///
    /// ```
    /// # use resilient::breaker::RedisBreakerState;
    /// use std::time::Duration;
    /// let state = RedisBreakerState::new("redis://127.0.0.1/")?.sampling_window(Duration::from_secs(5));
    /// # let _ = state;
    /// # Ok::<(), redis::RedisError>(())
    /// ```
    pub fn sampling_window(mut self, window: Duration) -> RedisBreakerState {
        self.rule.sampling_window = window;
        self
    }

    /// How many distinct instances must be failing, each at the failure
    /// ratio of its own calls, for the fleet's breaker to open (default 2:
    /// more than one; 0 behaves like 1, which lets one instance open the
    /// fleet's breaker).
    ///
    /// ```
    /// # use resilient::breaker::RedisBreakerState;
    /// let state = RedisBreakerState::new("redis://127.0.0.1/")?.quorum(3);
    /// # let _ = state;
    /// # Ok::<(), redis::RedisError>(())
    /// ```
    pub fn quorum(mut self, instances: u32) -> RedisBreakerState {
        self.rule.quorum = instances;
        self
    }

    /// The share of the instances seen in the window that must be failing,
    /// on top of the [quorum](Self::quorum) (default 0; within `[0.0,
    /// 1.0]`): with 0.25, 3 failing instances of 12 are not enough.
    ///
    /// ```
    /// use resilient::CircuitBreaker;
    /// use resilient::ConfigError;
    /// use resilient::breaker::RedisBreakerState;
    ///
    /// let state = RedisBreakerState::new("redis://127.0.0.1/")?.quorum_share(0.25);
    /// # let _ = state;
    /// let state = RedisBreakerState::new("redis://127.0.0.1/")?.quorum_share(f64::NAN);
    /// let err = CircuitBreaker::builder().shared(state).build().unwrap_err();
    /// assert!(matches!(err, ConfigError::InvalidQuorumShare(share) if share.is_nan()));
    /// # Ok::<(), redis::RedisError>(())
    /// ```
    pub fn quorum_share(mut self, share: f64) -> RedisBreakerState {
        self.rule.quorum_share = share;
        self
    }

    /// How many probes may run at once across the fleet once its break is
    /// over (default 1; must not be zero).
    ///
    /// ```
    /// use resilient::CircuitBreaker;
    /// use resilient::ConfigError;
    /// use resilient::breaker::RedisBreakerState;
    ///
    /// let state = RedisBreakerState::new("redis://127.0.0.1/")?.fleet_probes(0);
    /// let err = CircuitBreaker::builder().shared(state).build().unwrap_err();
    /// assert_eq!(err, ConfigError::ZeroFleetProbes);
    /// # Ok::<(), redis::RedisError>(())
    /// ```
    pub fn fleet_probes(mut self, probes: u32) -> RedisBreakerState {
        self.rule.fleet_probes = probes;
        self
    }

    /// How often the publisher sends the counts and reads the verdict
    /// (default 100 ms; must not be zero). A probe's outcome, and a call
    /// that asks for a probe, are sent at once.
    ///
    /// ```
    /// use resilient::CircuitBreaker;
    /// use resilient::ConfigError;
    /// use resilient::breaker::RedisBreakerState;
    /// use std::time::Duration;
    ///
    /// let state = RedisBreakerState::new("redis://127.0.0.1/")?.publish_every(Duration::ZERO);
    /// let err = CircuitBreaker::builder().shared(state).build().unwrap_err();
    /// assert_eq!(err, ConfigError::ZeroDuration("publish_every"));
    /// # Ok::<(), redis::RedisError>(())
    /// ```
    pub fn publish_every(mut self, period: Duration) -> RedisBreakerState {
        self.rule.publish_every = period;
        self
    }

    fn validate(&self) -> Result<(), ConfigError> {
        let rule = &self.rule;
        // Written so that NaN fails the checks.
        if !(rule.failure_ratio > 0.0 && rule.failure_ratio <= 1.0) {
            return Err(ConfigError::InvalidFailureRatio(rule.failure_ratio));
        }
        if !(rule.quorum_share >= 0.0 && rule.quorum_share <= 1.0) {
            return Err(ConfigError::InvalidQuorumShare(rule.quorum_share));
        }
        if rule.fleet_probes == 0 {
            return Err(ConfigError::ZeroFleetProbes);
        }
        if rule.sampling_window.is_zero() {
            return Err(ConfigError::ZeroDuration("sampling_window"));
        }
        if rule.publish_every.is_zero() {
            return Err(ConfigError::ZeroDuration("publish_every"));
        }
        Ok(())
    }

    /// Validates the settings, and starts the publisher of the breaker
    /// `breaker`, on the time scale of `anchor`.
    pub(super) fn attach(
        self,
        breaker: Breaking<'_>,
        anchor: Instant,
    ) -> Result<Arc<Fleet>, ConfigError> {
        self.validate()?;
        let fleet = Arc::new(Fleet::new(anchor, Instant::now));
        let breaker_name = breaker.name;
        let plan = Publishing::new(self, breaker);
        let (weak, wake) = (Arc::downgrade(&fleet), fleet.waker());
        let name = format!("resilient-breaker-{}", plan.name);
        let started = std::thread::Builder::new().name(name).spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build();
            match runtime {
                Ok(runtime) => runtime.block_on(publish(weak, wake, plan)),
                Err(err) => left(&plan.name, &err),
            }
        });
        if let Err(err) = started {
            left(breaker_name, &err);
        }
        Ok(fleet)
    }
}

/// What the fleet needs of the breaker it serves: its name, which keys
/// the fleet's state, its break and its probe's lease.
#[derive(Debug, Clone, Copy)]
pub(super) struct Breaking<'c> {
    pub(super) name: &'c Cow<'static, str>,
    pub(super) break_nanos: u64,
    pub(super) probe_timeout_nanos: u64,
}

/// What the publisher needs: where, what, and how often.
struct Publishing {
    client: redis::Client,
    name: Cow<'static, str>,
    /// `fleet`, `counts`, `seen`, `probes`.
    keys: [String; 4],
    /// This instance's id in the fleet.
    id: String,
    rule: Rule,
    window_ms: u64,
    break_ms: u64,
    lease: Duration,
    keep_ms: u64,
}

impl Publishing {
    fn new(state: RedisBreakerState, breaker: Breaking<'_>) -> Publishing {
        let base = format!("{}{{{}}}:", state.prefix, breaker.name);
        let millis = |nanos: u64| (nanos / 1_000_000).clamp(1, MAX_MS);
        let window_ms = millis(super::saturating_nanos(state.rule.sampling_window));
        let break_ms = millis(breaker.break_nanos);
        let lease_ms = millis(breaker.probe_timeout_nanos);
        Publishing {
            client: state.client,
            name: breaker.name.clone(),
            keys: ["fleet", "counts", "seen", "probes"].map(|key| format!("{base}{key}")),
            id: format!(
                "{}-{:08x}",
                std::process::id(),
                crate::seed::random_u64() as u32
            ),
            rule: state.rule,
            window_ms,
            break_ms,
            lease: Duration::from_millis(lease_ms),
            // Long enough for a break, a probe and a window to pass.
            keep_ms: window_ms
                .saturating_add(break_ms)
                .saturating_add(lease_ms)
                .saturating_mul(2)
                .min(MAX_MS),
        }
    }

    /// How long a verdict is trusted: a few periods, and the time for a
    /// request to time out and say the fleet is gone.
    fn fresh_for(&self) -> Duration {
        self.rule
            .publish_every
            .saturating_mul(3)
            .saturating_add(CONNECT_TIMEOUT)
            .saturating_add(RESPONSE_TIMEOUT)
    }
}

/// This instance's counts over the sampling window, one entry a tick.
struct Counts {
    ticks: VecDeque<(Instant, u64, u64)>,
    window: Duration,
}

impl Counts {
    fn new(window: Duration) -> Counts {
        Counts {
            ticks: VecDeque::new(),
            window,
        }
    }

    /// Adds a tick's counts at `now` and drops the ticks the window left.
    fn add(&mut self, now: Instant, (calls, failures): (u32, u32)) {
        while let Some(&(at, ..)) = self.ticks.front() {
            if now.saturating_duration_since(at) < self.window {
                break;
            }
            self.ticks.pop_front();
        }
        if calls > 0 {
            self.ticks
                .push_back((now, u64::from(calls), u64::from(failures)));
        }
    }

    fn totals(&self) -> (u64, u64) {
        self.ticks
            .iter()
            .fold((0, 0), |(calls, failures), &(_, c, f)| {
                (calls + c, failures + f)
            })
    }

    fn clear(&mut self) {
        self.ticks.clear();
    }
}

/// What the publisher remembers between ticks.
struct Publisher {
    plan: Publishing,
    link: Option<MultiplexedConnection>,
    counts: Counts,
    /// The fleet epoch this instance's counts belong to.
    epoch: u64,
    /// When the slot this instance was granted runs out, if one is ready.
    ready_until: Option<(u64, Instant)>,
}

/// The publisher's loop: every period (or at once when a call wakes it),
/// the counts out and the verdict in, until the breaker is gone.
async fn publish(fleet: Weak<Fleet>, wake: Arc<Notify>, plan: Publishing) {
    let mut publisher = Publisher {
        counts: Counts::new(plan.rule.sampling_window),
        plan,
        link: None,
        epoch: 0,
        ready_until: None,
    };
    loop {
        let Some(fleet) = fleet.upgrade() else {
            return;
        };
        let answer = publisher.tick(&fleet).await;
        match answer {
            Ok(()) => {}
            Err(err) => {
                publisher.link = None;
                publisher.ready_until = None;
                if fleet.alone() {
                    left(&publisher.plan.name, &err);
                }
            }
        }
        gauges(&publisher.plan.name, &fleet);
        drop(fleet);
        let period = publisher.plan.rule.publish_every;
        let _ = tokio::time::timeout(period, wake.notified()).await;
    }
}

impl Publisher {
    async fn tick(&mut self, fleet: &Fleet) -> RedisResult<()> {
        let now = Instant::now();
        self.counts.add(now, fleet.take_outcomes());
        let link = match &mut self.link {
            Some(link) => link,
            None => {
                let config = AsyncConnectionConfig::new()
                    .set_connection_timeout(Some(CONNECT_TIMEOUT))
                    .set_response_timeout(Some(RESPONSE_TIMEOUT));
                let link = self
                    .plan
                    .client
                    .get_multiplexed_async_connection_with_config(&config)
                    .await?;
                self.link.insert(link)
            }
        };
        let (plan, [fleet_key, counts_key, seen_key, probes_key]) = (&self.plan, &self.plan.keys);
        if let Some((word, epoch, how)) = fleet.settlement() {
            let how = match how {
                ProbeEnd::Succeeded => "succeeded",
                ProbeEnd::Failed => "failed",
                ProbeEnd::Released => "released",
            };
            let _: i64 = SETTLE
                .key(fleet_key)
                .key(counts_key)
                .key(probes_key)
                .arg(&plan.id)
                .arg(epoch)
                .arg(how)
                .arg(plan.break_ms)
                .arg(plan.keep_ms)
                .invoke_async(link)
                .await?;
            fleet.free(word);
            self.ready_until = None;
        }
        let (calls, failures) = self.counts.totals();
        let (epoch, open, left_ms): (u64, u8, i64) = REPORT
            .key(fleet_key)
            .key(counts_key)
            .key(seen_key)
            .key(probes_key)
            .arg(&plan.id)
            .arg(self.epoch)
            .arg(calls)
            .arg(failures)
            .arg(plan.window_ms)
            .arg(plan.rule.failure_ratio.to_string())
            .arg(plan.rule.minimum_throughput)
            .arg(plan.rule.quorum)
            .arg(plan.rule.quorum_share.to_string())
            .arg(plan.break_ms)
            .arg(plan.keep_ms)
            .invoke_async(link)
            .await?;
        if epoch != self.epoch {
            // Counts of another epoch would open the fleet again at once.
            self.counts.clear();
            self.epoch = epoch;
            self.ready_until = None;
        }
        let open_for = (open == 1).then(|| Duration::from_millis(left_ms.max(0).unsigned_abs()));
        if fleet.joined(epoch, open_for, plan.fresh_for()) {
            joined(&plan.name);
        }
        if let Some((ready, until)) = self.ready_until
            && now >= until
        {
            fleet.expire_ready(ready);
            self.ready_until = None;
        }
        let half_open = open_for.is_some_and(|left| left.is_zero());
        if half_open && fleet.slot_free() && fleet.probe_wanted() {
            let granted: u8 = PROBE
                .key(fleet_key)
                .key(probes_key)
                .arg(&plan.id)
                .arg(epoch)
                .arg(plan.rule.fleet_probes)
                .arg(u64::try_from(plan.lease.as_millis()).unwrap_or(MAX_MS))
                .invoke_async(link)
                .await?;
            if granted == 1 {
                fleet.granted(epoch);
                self.ready_until = Some((epoch, now + plan.lease));
            }
        }
        Ok(())
    }
}

/// The breaker `name` reached its fleet (again).
#[cfg_attr(not(feature = "tracing"), allow(unused_variables))]
fn joined(name: &str) {
    #[cfg(feature = "tracing")]
    tracing::info!(
        name: "circuit.fleet_joined",
        breaker = name,
        "the circuit breaker shares its state with its fleet"
    );
}

/// The breaker `name` can't reach its fleet, for `err`: it decides alone.
#[cfg_attr(not(feature = "tracing"), allow(unused_variables))]
pub(super) fn left(name: &str, err: &dyn std::fmt::Display) {
    #[cfg(feature = "tracing")]
    tracing::warn!(
        name: "circuit.fleet_left",
        breaker = name,
        error = %err,
        "the circuit breaker can't reach its fleet: it decides alone until Redis answers"
    );
}

/// Sets the breaker's fleet gauges: joined or not, and the fleet's state.
#[cfg_attr(not(feature = "metrics"), allow(unused_variables))]
fn gauges(name: &str, fleet: &Fleet) {
    #[cfg(feature = "metrics")]
    {
        use super::FleetState;
        let state = fleet.state();
        let joined = matches!(state, FleetState::Joined(_));
        ::metrics::gauge!(crate::catalog::CIRCUIT_FLEET_JOINED, "breaker" => name.to_owned())
            .set(f64::from(u8::from(joined)));
        if let FleetState::Joined(state) = state {
            ::metrics::gauge!(crate::catalog::CIRCUIT_FLEET_STATE, "breaker" => name.to_owned())
                .set(f64::from(super::view::code(state)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Leaving the fleet is said once, joining again once: the
    /// transitions the publisher reports.
    #[test]
    fn leaving_and_joining_the_fleet_are_each_said_once() {
        let fleet = Fleet::new(Instant::now(), Instant::now);
        assert!(!fleet.alone(), "never joined: nothing to say");
        assert!(fleet.joined(1, None, Duration::from_secs(1)));
        assert!(!fleet.joined(1, None, Duration::from_secs(1)));
        assert!(fleet.alone());
        assert!(!fleet.alone());
    }

    #[cfg(feature = "tracing")]
    #[test]
    fn leaving_the_fleet_is_a_warning_naming_the_breaker() {
        use crate::engine::events::seen::Seen;
        use tracing::Level;

        let seen = Seen::during(|| {
            left("payments", &"connection refused");
            joined("payments");
        });
        assert_eq!(
            seen,
            [
                (Level::WARN, "circuit.fleet_left"),
                (Level::INFO, "circuit.fleet_joined")
            ]
        );
    }

    #[cfg(feature = "metrics")]
    #[test]
    fn the_gauges_say_whether_the_breaker_reaches_its_fleet_and_its_state() {
        use metrics_util::debugging::{DebugValue, DebuggingRecorder};

        let recorder = DebuggingRecorder::new();
        let snapshotter = recorder.snapshotter();
        // One snapshot per look: taking one resets what it read.
        let gauges_now = || {
            let snapshot = snapshotter.snapshot().into_vec();
            let find = |name: &str| {
                snapshot.iter().find_map(|(key, _, _, value)| match value {
                    DebugValue::Gauge(value) if key.key().name() == name => Some(value.0),
                    _ => None,
                })
            };
            (
                find(crate::catalog::CIRCUIT_FLEET_JOINED),
                find(crate::catalog::CIRCUIT_FLEET_STATE),
            )
        };
        let fleet = Fleet::new(Instant::now(), Instant::now);
        let name = "fleet.gauges";
        metrics::with_local_recorder(&recorder, || {
            fleet.joined(3, Some(Duration::from_secs(30)), Duration::from_secs(5));
            gauges(name, &fleet);
            assert_eq!(gauges_now(), (Some(1.0), Some(2.0)));
            fleet.alone();
            gauges(name, &fleet);
            assert_eq!(gauges_now().0, Some(0.0));
        });
    }

    #[test]
    fn counts_keep_only_the_ticks_of_the_window() {
        let t0 = Instant::now();
        let mut counts = Counts::new(Duration::from_secs(1));
        counts.add(t0, (10, 2));
        counts.add(t0 + Duration::from_millis(500), (5, 5));
        assert_eq!(counts.totals(), (15, 7));
        counts.add(t0 + Duration::from_millis(1000), (0, 0));
        assert_eq!(counts.totals(), (5, 5), "the first tick left the window");
        counts.clear();
        assert_eq!(counts.totals(), (0, 0));
    }

    #[test]
    fn a_plan_saturates_every_time_it_sends() {
        let state = RedisBreakerState::new("redis://127.0.0.1/")
            .unwrap()
            .sampling_window(Duration::MAX);
        let name = Cow::Borrowed("circuit_breaker");
        let breaker = Breaking {
            name: &name,
            break_nanos: u64::MAX,
            probe_timeout_nanos: u64::MAX,
        };
        let plan = Publishing::new(state, breaker);
        let forever = u64::MAX / 1_000_000;
        assert_eq!((plan.window_ms, plan.break_ms), (forever, forever));
        assert!(plan.keep_ms <= MAX_MS && plan.lease.as_millis() == u128::from(forever));
        assert!(plan.fresh_for() < Duration::from_secs(2));
        assert_eq!(plan.keys[0], "resilient:breaker:{circuit_breaker}:fleet");
    }
}

//! A settings cache's refresh: how a named bulkhead, rate limiter,
//! throttle or breaker takes its entry of the installed configuration and
//! stamps it with the generation it is of, so that later calls read it
//! with one load while the generation stays.
//!
//! The protocol is generic over its lock and its words so that the loom
//! model below runs the very function `config` calls, with loom's
//! primitives (`RUSTFLAGS="--cfg loom" cargo test -p resilient-core
//! --release loom`).
#![cfg_attr(not(feature = "config"), allow(dead_code))]

use std::sync::atomic::Ordering;

/// An atomic word: std's, or loom's in the model.
pub(crate) trait Word {
    fn load(&self, order: Ordering) -> u64;
    fn store(&self, value: u64, order: Ordering);
}

impl Word for std::sync::atomic::AtomicU64 {
    fn load(&self, order: Ordering) -> u64 {
        std::sync::atomic::AtomicU64::load(self, order)
    }

    fn store(&self, value: u64, order: Ordering) {
        std::sync::atomic::AtomicU64::store(self, value, order);
    }
}

/// A lock that lets one refresh run at a time.
pub(crate) trait OneAtATime {
    fn run(&self, refresh: impl FnOnce());
}

impl OneAtATime for std::sync::Mutex<()> {
    fn run(&self, refresh: impl FnOnce()) {
        let _one = self
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        refresh();
    }
}

/// Refreshes a cache whose generation is `stamp`, under `lock`: loads
/// the installed `generation`, then (in `store`) reads the configuration
/// and stores the values, and last stamps them with that generation.
///
/// An install stores the configuration before its generation, so what
/// `store` reads is that generation's or a newer one's: never older than
/// its stamp. Without the lock, two refreshes across an install could
/// interleave their stores and leave the older one's values under the
/// newer one's stamp, which nothing would refresh until the next install
/// (the model `without_the_lock_an_old_value_ends_under_the_new_stamp`
/// finds that interleaving).
pub(crate) fn refresh(
    lock: &impl OneAtATime,
    generation: &impl Word,
    stamp: &impl Word,
    store: impl FnOnce(),
) {
    lock.run(|| {
        let generation = generation.load(Ordering::Acquire);
        if stamp.load(Ordering::Acquire) == generation {
            return;
        }
        store();
        stamp.store(generation, Ordering::Release);
    });
}

#[cfg(all(test, loom))]
mod loom_models {
    use loom::sync::atomic::{AtomicU64, Ordering};
    use loom::sync::{Arc, Mutex};
    use loom::thread;

    use super::{OneAtATime, Word, refresh};

    impl Word for AtomicU64 {
        fn load(&self, order: Ordering) -> u64 {
            AtomicU64::load(self, order)
        }

        fn store(&self, value: u64, order: Ordering) {
            AtomicU64::store(self, value, order);
        }
    }

    impl OneAtATime for Mutex<()> {
        fn run(&self, refresh: impl FnOnce()) {
            let _one = self.lock().unwrap();
            refresh();
        }
    }

    /// No lock at all: what the caches did before.
    struct Unlocked;

    impl OneAtATime for Unlocked {
        fn run(&self, refresh: impl FnOnce()) {
            refresh();
        }
    }

    /// The installed world: its generation, the configuration's value, and
    /// a cache (its stamp and the value it keeps).
    struct World {
        generation: AtomicU64,
        config: AtomicU64,
        stamp: AtomicU64,
        kept: AtomicU64,
    }

    /// Generation 1 sets 10; an install of generation 2 sets 20, storing
    /// the configuration before the generation, as `config::install`
    /// does. Two calls refresh the cache meanwhile, each under `lock`.
    /// Once all are done, a cache stamped 2 must keep 20.
    fn two_refreshes_across_an_install(lock: impl OneAtATime + Send + Sync + 'static) {
        let lock = Arc::new(lock);
        let world = Arc::new(World {
            generation: AtomicU64::new(1),
            config: AtomicU64::new(10),
            stamp: AtomicU64::new(0),
            kept: AtomicU64::new(0),
        });
        let install = {
            let world = Arc::clone(&world);
            thread::spawn(move || {
                world.config.store(20, Ordering::Release);
                world.generation.store(2, Ordering::Release);
            })
        };
        let refreshes: Vec<_> = (0..2)
            .map(|_| {
                let (world, lock) = (Arc::clone(&world), Arc::clone(&lock));
                thread::spawn(move || {
                    refresh(&*lock, &world.generation, &world.stamp, || {
                        let value = world.config.load(Ordering::Acquire);
                        world.kept.store(value, Ordering::Relaxed);
                    });
                })
            })
            .collect();
        install.join().unwrap();
        for refresh in refreshes {
            refresh.join().unwrap();
        }
        let stamp = world.stamp.load(Ordering::Acquire);
        let kept = world.kept.load(Ordering::Relaxed);
        match stamp {
            2 => assert_eq!(kept, 20, "generation 2's cache keeps generation 1's value"),
            1 => assert!(kept == 10 || kept == 20, "{kept}"),
            other => panic!("stamped {other}"),
        }
    }

    #[test]
    fn loom_refreshes_across_an_install_never_keep_an_old_value_under_the_new_stamp() {
        loom::model(|| two_refreshes_across_an_install(Mutex::new(())));
    }

    #[test]
    #[should_panic(expected = "generation 2's cache keeps generation 1's value")]
    fn loom_without_the_lock_an_old_value_ends_under_the_new_stamp() {
        loom::model(|| two_refreshes_across_an_install(Unlocked));
    }
}

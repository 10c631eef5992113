//! [`Stamped`]: two words and the stamp they were written at, read
//! without a lock by many threads and written by one at a time (a
//! sequence lock). An operation's `static` keeps its configuration entry's
//! bounds in one, stamped with the generation they are of.
//!
//! Under `cfg(loom)` its atomics are loom's, for the model below
//! (`RUSTFLAGS="--cfg loom" cargo test -p resilient-core --release loom`).

#[cfg(all(test, loom))]
use loom::sync::atomic::{AtomicU64, Ordering, fence};
#[cfg(not(all(test, loom)))]
use std::sync::atomic::{AtomicU64, Ordering, fence};

/// Two words written together under a stamp; 0 stamps nothing.
#[derive(Debug)]
pub(crate) struct Stamped {
    stamp: AtomicU64,
    first: AtomicU64,
    second: AtomicU64,
}

impl Stamped {
    /// Nothing stamped.
    #[cfg(not(all(test, loom)))]
    pub(crate) const fn new() -> Self {
        Stamped {
            stamp: AtomicU64::new(0),
            first: AtomicU64::new(0),
            second: AtomicU64::new(0),
        }
    }

    /// Nothing stamped (loom's atomics are made at run time).
    #[cfg(all(test, loom))]
    pub(crate) fn new() -> Self {
        Stamped {
            stamp: AtomicU64::new(0),
            first: AtomicU64::new(0),
            second: AtomicU64::new(0),
        }
    }

    /// The two words, if they were written at `stamp` (never 0) and no
    /// write overlapped their reading: read between two reads of the
    /// stamp that both find `stamp`.
    #[inline(always)]
    pub(crate) fn read(&self, stamp: u64) -> Option<(u64, u64)> {
        if self.stamp.load(Ordering::Acquire) != stamp {
            return None;
        }
        let words = (
            self.first.load(Ordering::Relaxed),
            self.second.load(Ordering::Relaxed),
        );
        // The words' loads before the second read of the stamp: a write
        // that overlapped them has changed it.
        fence(Ordering::Acquire);
        (self.stamp.load(Ordering::Relaxed) == stamp).then_some(words)
    }

    /// Writes the two words at `stamp` (not 0). One writer at a time: the
    /// caller serialises its writes (the configuration's install lock).
    /// Stamps only grow, or come again with the same words: a read that
    /// spans two writes of one stamp can't tell them apart. Generations,
    /// the stamps used, only grow.
    pub(crate) fn write(&self, stamp: u64, first: u64, second: u64) {
        // Unstamped while the words change, and that before they do.
        self.stamp.store(0, Ordering::Relaxed);
        fence(Ordering::Release);
        self.first.store(first, Ordering::Relaxed);
        self.second.store(second, Ordering::Relaxed);
        self.stamp.store(stamp, Ordering::Release);
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn a_read_finds_the_words_of_its_stamp_only() {
        let stamped = Stamped::new();
        assert_eq!(stamped.read(1), None);
        stamped.write(1, 10, 11);
        assert_eq!(stamped.read(1), Some((10, 11)));
        assert_eq!(stamped.read(2), None);
        stamped.write(2, 20, 21);
        assert_eq!(stamped.read(1), None);
        assert_eq!(stamped.read(2), Some((20, 21)));
    }

    #[test]
    fn readers_on_many_threads_never_see_two_writes_mixed() {
        use std::sync::Arc;
        use std::sync::atomic::AtomicBool;
        let stamped = Arc::new(Stamped::new());
        let latest = Arc::new(AtomicU64::new(0));
        let reads = Arc::new(AtomicU64::new(0));
        let done = Arc::new(AtomicBool::new(false));
        let readers: Vec<_> = (0..3)
            .map(|_| {
                let (stamped, latest, reads, done) = (
                    Arc::clone(&stamped),
                    Arc::clone(&latest),
                    Arc::clone(&reads),
                    Arc::clone(&done),
                );
                std::thread::spawn(move || {
                    while !done.load(Ordering::Relaxed) {
                        // The stamp just written, and the one being written
                        // (a stamp is never 0).
                        let latest = latest.load(Ordering::Acquire);
                        for stamp in [latest, latest + 1].into_iter().filter(|&s| s != 0) {
                            if let Some(words) = stamped.read(stamp) {
                                assert_eq!(words, (stamp * 3, stamp * 3 + 1));
                                reads.fetch_add(1, Ordering::Relaxed);
                            }
                        }
                    }
                })
            })
            .collect();
        // Stamps that only grow, as generations do. On a busy machine the
        // readers may start only once 200 000 writes are done: the writes
        // go on until one has read, within a bound.
        let mut stamp = 0u64;
        while stamp < 200_000 || (reads.load(Ordering::Relaxed) == 0 && stamp < 50_000_000) {
            stamp += 1;
            stamped.write(stamp, stamp * 3, stamp * 3 + 1);
            latest.store(stamp, Ordering::Release);
        }
        done.store(true, Ordering::Relaxed);
        for reader in readers {
            reader.join().unwrap();
        }
        assert!(
            reads.load(Ordering::Relaxed) > 0,
            "the readers read something"
        );
    }
}

#[cfg(all(test, loom))]
mod loom_model {
    use loom::sync::Arc;
    use loom::thread;

    use super::Stamped;

    /// A reader racing two writes finds each stamp's own words or none.
    #[test]
    fn loom_a_read_never_mixes_two_writes() {
        let mut builder = loom::model::Builder::new();
        // Two preemptions already put a write between a read's two loads
        // of the stamp, and between its loads of the words.
        builder.preemption_bound.get_or_insert(2);
        builder.check(|| {
            let stamped = Arc::new(Stamped::new());
            stamped.write(1, 10, 11);
            let writer = {
                let stamped = Arc::clone(&stamped);
                thread::spawn(move || {
                    stamped.write(2, 20, 21);
                    stamped.write(3, 30, 31);
                })
            };
            for stamp in 1..=3 {
                if let Some(words) = stamped.read(stamp) {
                    assert_eq!(words, (stamp * 10, stamp * 10 + 1));
                }
            }
            writer.join().unwrap();
            assert_eq!(stamped.read(3), Some((30, 31)));
        });
    }
}

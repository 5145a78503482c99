//! [`TimerQueue`]: everything scheduled, popped in `(time, lane, sequence)`
//! order.
//!
//! The queue is a calendar wheel: time is cut into buckets of 1.024 ms, and a
//! ring of 65 536 buckets covers the next 67 s. Scheduling drops an entry
//! into its bucket (O(1)); popping sorts a bucket once when the cursor
//! reaches it and then takes entries from its end. A bitmap finds the next
//! occupied bucket a word at a time. Timers beyond the ring's horizon wait
//! in a small binary heap and move into the ring as the cursor approaches.
//! The order is exactly the order of `(time, lane, sequence)`, so it never
//! depends on the bucket layout.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use serde::{Deserialize, Serialize};
use slotmap::{new_key_type, SlotMap};

use super::SimTime;

new_key_type! {
    /// A scheduled timer. Generation-checked: a key of a fired or cancelled
    /// timer never matches a later one.
    pub struct TimerKey;
}

/// Which of two timers due at the same instant fires first.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Lane {
    /// Ends of state (an effect's duration running out). At any instant,
    /// everything that ends then has ended before anything else happens:
    /// an ability pressed at the exact instant its cooldown ends is ready.
    Expiry,
    /// Everything else, in scheduling order.
    Normal,
}

/// Microseconds per bucket, as a shift: 2^10 µs = 1.024 ms.
const BUCKET_SHIFT: u32 = 10;
/// Buckets in the ring, as a shift: 2^16 buckets ≈ 67 s.
const RING_SHIFT: u32 = 16;
const RING: u64 = 1 << RING_SHIFT;
const RING_MASK: u64 = RING - 1;

/// One scheduled timer: its order key and its slot.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
struct Entry {
    at: SimTime,
    lane: Lane,
    seq: u64,
    key: TimerKey,
}

impl Entry {
    fn bucket(&self) -> u64 {
        self.at.as_micros() >> BUCKET_SHIFT
    }
}

/// Timers ordered by `(time, lane, sequence)`: at equal times expiries come
/// first, then everything else in the order it was scheduled, so the order
/// of events never depends on anything but the order of inputs.
///
/// Scheduling is O(1) (O(log n) past the 67 s horizon); popping is O(1)
/// amortised plus one sort per occupied bucket. Cancelling is O(1): the
/// payload leaves a slot map, and the entry is skipped by a generation check
/// when it surfaces. Nothing is ever searched for.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TimerQueue<P> {
    /// The ring; bucket `b` holds entries of absolute bucket `b` within
    /// `cursor..cursor + RING`.
    buckets: Vec<Vec<Entry>>,
    /// Bit `i` set when ring slot `i` holds entries.
    occupied: Vec<u64>,
    /// Absolute index of the first bucket not yet drained.
    cursor: u64,
    /// The cursor's bucket is sorted (descending, minimum last) and being drained.
    draining: bool,
    /// Timers beyond the ring's horizon.
    far: BinaryHeap<Reverse<Entry>>,
    live: SlotMap<TimerKey, P>,
    next_seq: u64,
}

impl<P> Default for TimerQueue<P> {
    fn default() -> Self {
        Self {
            buckets: Vec::new(),
            occupied: vec![0; (RING / 64) as usize],
            cursor: 0,
            draining: false,
            far: BinaryHeap::new(),
            live: SlotMap::with_key(),
            next_seq: 0,
        }
    }
}

impl<P> TimerQueue<P> {
    /// An empty queue.
    pub fn new() -> Self {
        Self::default()
    }

    /// Schedules `payload` at `at` in the normal lane; returns a key to
    /// cancel it with.
    pub fn schedule(&mut self, at: SimTime, payload: P) -> TimerKey {
        self.schedule_in(at, Lane::Normal, payload)
    }

    /// Schedules `payload` at `at` in `lane`.
    pub fn schedule_in(&mut self, at: SimTime, lane: Lane, payload: P) -> TimerKey {
        let key = self.live.insert(payload);
        let entry = Entry {
            at,
            lane,
            seq: self.next_seq,
            key,
        };
        self.next_seq += 1;
        self.place(entry);
        key
    }

    /// Puts an entry where it belongs: the ring, or the far heap.
    fn place(&mut self, entry: Entry) {
        // A timer in the past of the cursor (only possible for a time before
        // any timer ever popped) belongs to the cursor's bucket.
        let bucket = entry.bucket().max(self.cursor);
        if bucket >= self.cursor + RING {
            self.far.push(Reverse(entry));
            return;
        }
        if self.buckets.is_empty() {
            self.buckets.resize_with(RING as usize, Vec::new);
        }
        let slot = (bucket & RING_MASK) as usize;
        let list = &mut self.buckets[slot];
        if bucket == self.cursor && self.draining {
            // Keep the drained bucket sorted, largest first.
            let at = list.partition_point(|e| *e > entry);
            list.insert(at, entry);
        } else {
            list.push(entry);
        }
        self.occupied[slot / 64] |= 1 << (slot % 64);
    }

    /// Cancels a pending timer; returns its payload, or `None` if it already
    /// fired or was cancelled. O(1).
    pub fn cancel(&mut self, key: TimerKey) -> Option<P> {
        self.live.remove(key)
    }

    /// True while `key` is pending.
    pub fn is_pending(&self, key: TimerKey) -> bool {
        self.live.contains_key(key)
    }

    /// Moves far timers whose bucket has come within the ring's horizon.
    fn pull_far(&mut self) {
        while let Some(Reverse(entry)) = self.far.peek() {
            if entry.bucket() >= self.cursor + RING {
                break;
            }
            let Reverse(entry) = self.far.pop().expect("peeked");
            self.place(entry);
        }
    }

    /// The absolute index of the first occupied bucket at or after the
    /// cursor, within the ring.
    fn next_occupied(&self) -> Option<u64> {
        let start = (self.cursor & RING_MASK) as usize;
        let words = self.occupied.len();
        for step in 0..=words {
            let word_index = (start / 64 + step) % words;
            let mut word = self.occupied[word_index];
            if step == 0 {
                word &= u64::MAX << (start % 64);
            }
            if word != 0 {
                let slot = (word_index * 64 + word.trailing_zeros() as usize) as u64;
                let offset = (slot + RING - (self.cursor & RING_MASK)) & RING_MASK;
                return Some(self.cursor + offset);
            }
            if step == words - 1 && start % 64 == 0 {
                break;
            }
        }
        None
    }

    /// Pops the earliest pending timer due at or before `until`.
    pub fn pop_due(&mut self, until: SimTime) -> Option<(SimTime, P)> {
        loop {
            self.pull_far();
            let bucket = match self.next_occupied() {
                Some(bucket) => bucket,
                None => match self.far.peek() {
                    // The ring is empty: jump the cursor to the far timers.
                    Some(Reverse(entry)) if entry.at <= until => {
                        self.cursor = entry.bucket();
                        self.draining = false;
                        continue;
                    }
                    _ => return None,
                },
            };
            if bucket != self.cursor {
                if (bucket << BUCKET_SHIFT) > until.as_micros() {
                    return None;
                }
                self.cursor = bucket;
                self.draining = false;
            }
            let slot = (bucket & RING_MASK) as usize;
            let list = &mut self.buckets[slot];
            if !self.draining {
                list.sort_unstable_by(|a, b| b.cmp(a));
                self.draining = true;
            }
            let Some(&entry) = list.last() else {
                // Fully drained (every entry cancelled): move on.
                self.occupied[slot / 64] &= !(1 << (slot % 64));
                self.cursor += 1;
                self.draining = false;
                continue;
            };
            if entry.at > until {
                return None;
            }
            list.pop();
            if list.is_empty() {
                self.occupied[slot / 64] &= !(1 << (slot % 64));
                self.cursor += 1;
                self.draining = false;
            }
            if let Some(payload) = self.live.remove(entry.key) {
                return Some((entry.at, payload));
            }
        }
    }

    /// The time of the earliest pending timer. Walks occupied buckets from
    /// the cursor until one holds a live entry; not meant for hot paths.
    pub fn next_due(&self) -> Option<SimTime> {
        let live = |e: &&Entry| self.live.contains_key(e.key);
        let in_ring = (0..RING)
            .map(|offset| self.cursor + offset)
            .filter(|bucket| {
                let slot = (bucket & RING_MASK) as usize;
                self.occupied[slot / 64] & (1 << (slot % 64)) != 0
            })
            .find_map(|bucket| {
                self.buckets[(bucket & RING_MASK) as usize]
                    .iter()
                    .filter(live)
                    .min()
            });
        let in_far = self.far.iter().map(|Reverse(e)| e).filter(live).min();
        in_ring.into_iter().chain(in_far).min().map(|e| e.at)
    }

    /// Number of pending timers.
    pub fn len(&self) -> usize {
        self.live.len()
    }

    /// True when nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.live.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::rand_core::{Rng, SeedableRng};

    fn at(micros: u64) -> SimTime {
        SimTime::from_micros(micros)
    }

    #[test]
    fn pops_in_time_then_schedule_order() {
        let mut q = TimerQueue::new();
        q.schedule(at(20), "c");
        q.schedule(at(10), "a");
        q.schedule(at(10), "b");
        q.schedule(at(30), "d");
        assert_eq!(q.pop_due(at(25)), Some((at(10), "a")));
        assert_eq!(q.pop_due(at(25)), Some((at(10), "b")));
        assert_eq!(q.pop_due(at(25)), Some((at(20), "c")));
        assert_eq!(q.pop_due(at(25)), None, "d is not due yet");
        assert_eq!(q.next_due(), Some(at(30)));
        assert_eq!(q.len(), 1);
    }

    #[test]
    fn expiries_come_first_at_equal_times() {
        let mut q = TimerQueue::new();
        q.schedule(at(10), "event scheduled early");
        q.schedule_in(at(10), Lane::Expiry, "expiry scheduled late");
        q.schedule(at(5), "earlier");
        assert_eq!(q.pop_due(at(10)), Some((at(5), "earlier")));
        assert_eq!(q.pop_due(at(10)), Some((at(10), "expiry scheduled late")));
        assert_eq!(q.pop_due(at(10)), Some((at(10), "event scheduled early")));
    }

    #[test]
    fn cancelled_timers_never_fire_and_stale_keys_do_nothing() {
        let mut q = TimerQueue::new();
        let a = q.schedule(at(5), 1);
        let b = q.schedule(at(6), 2);
        assert_eq!(q.cancel(a), Some(1));
        assert_eq!(q.cancel(a), None, "second cancel is a no-op");
        assert!(!q.is_pending(a) && q.is_pending(b));
        assert_eq!(q.next_due(), Some(at(6)));
        assert_eq!(q.pop_due(at(100)), Some((at(6), 2)));
        // The slot of `a` is reused; the old key must not reach the new timer.
        let c = q.schedule(at(7), 3);
        assert_eq!(q.cancel(a), None);
        assert!(q.is_pending(c));
        assert!(!q.is_empty());
        assert_eq!(q.pop_due(at(7)), Some((at(7), 3)));
        assert!(q.is_empty());
    }

    /// The wheel against the obvious model (a sorted list), under random
    /// schedules, cancels and pops, with times near and far beyond the ring.
    #[test]
    fn matches_a_sorted_reference_under_random_use() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(99);
        for round in 0..40 {
            let mut q = TimerQueue::new();
            let mut model: Vec<(SimTime, Lane, u64, TimerKey, u32)> = Vec::new();
            let mut now = 0u64;
            let mut seq = 0u64;
            for step in 0..2_000u32 {
                match rng.next_u32() % 10 {
                    0..=4 => {
                        let spread = if rng.next_u32() % 20 == 0 {
                            200_000_000
                        } else {
                            3_000_000
                        };
                        let when = now + u64::from(rng.next_u32()) % spread;
                        let lane = if rng.next_u32() % 3 == 0 {
                            Lane::Expiry
                        } else {
                            Lane::Normal
                        };
                        let key = q.schedule_in(at(when), lane, step);
                        model.push((at(when), lane, seq, key, step));
                        seq += 1;
                    }
                    5 => {
                        if !model.is_empty() {
                            let i = (rng.next_u32() as usize) % model.len();
                            let (_, _, _, key, payload) = model.remove(i);
                            assert_eq!(q.cancel(key), Some(payload));
                        }
                    }
                    _ => {
                        now += u64::from(rng.next_u32()) % 500_000;
                        model.sort();
                        while model.first().is_some_and(|m| m.0 <= at(now)) {
                            let (when, _, _, _, payload) = model.remove(0);
                            assert_eq!(
                                q.pop_due(at(now)),
                                Some((when, payload)),
                                "round {round} step {step}"
                            );
                        }
                        assert_eq!(q.pop_due(at(now)), None, "round {round} step {step}");
                    }
                }
                assert_eq!(q.len(), model.len());
            }
        }
    }
}

//! [`TimerQueue`]: everything scheduled, popped in `(time, sequence)` order.

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

/// Timers ordered by `(time, lane, sequence)`: at equal times expiries come
/// first, then everything else in the order it was scheduled, so the order
/// of events never depends on anything but the order of inputs.
///
/// Cancelling is O(1): the entry is dropped from a slot map, and its heap
/// entry is skipped by a generation check when it surfaces. Nothing is ever
/// searched for.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TimerQueue<P> {
    heap: BinaryHeap<Reverse<(SimTime, Lane, u64, TimerKey)>>,
    live: SlotMap<TimerKey, P>,
    next_seq: u64,
}

impl<P> Default for TimerQueue<P> {
    fn default() -> Self {
        Self {
            heap: BinaryHeap::new(),
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
    /// cancel it with. O(log n).
    pub fn schedule(&mut self, at: SimTime, payload: P) -> TimerKey {
        self.schedule_in(at, Lane::Normal, payload)
    }

    /// Schedules `payload` at `at` in `lane`.
    pub fn schedule_in(&mut self, at: SimTime, lane: Lane, payload: P) -> TimerKey {
        let key = self.live.insert(payload);
        self.heap.push(Reverse((at, lane, self.next_seq, key)));
        self.next_seq += 1;
        key
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

    /// Pops the earliest pending timer due at or before `until`.
    pub fn pop_due(&mut self, until: SimTime) -> Option<(SimTime, P)> {
        while let Some(&Reverse((at, _, _, key))) = self.heap.peek() {
            if at > until {
                return None;
            }
            self.heap.pop();
            if let Some(payload) = self.live.remove(key) {
                return Some((at, payload));
            }
        }
        None
    }

    /// The time of the earliest pending timer.
    pub fn next_due(&mut self) -> Option<SimTime> {
        while let Some(&Reverse((at, _, _, key))) = self.heap.peek() {
            if self.live.contains_key(key) {
                return Some(at);
            }
            self.heap.pop();
        }
        None
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
}

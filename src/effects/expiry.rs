//! [`ExpiryTimers`]: the pending expiry timers of a host's effects.

use smallvec::SmallVec;

use super::active::EffectKey;
use super::host::slot_of;
use crate::time::{SimTime, TimerKey};

/// An effect's pending expiry timer and the instant it fires.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ExpiryTimer {
    pub timer: TimerKey,
    /// When `timer` fires. A refresh that only pushes the expiry later
    /// keeps the timer; it re-arms itself when it fires early.
    pub at: SimTime,
}

/// The pending expiry timer of each of a host's effects that holds one,
/// by the effect's slot.
///
/// Beside the effects rather than in them: an effect that ends lazily
/// (a cooldown, a combat mark) or never holds no timer, and those are
/// most of the effects most entities hold, while every entity reserves
/// room for several effects. In each slot the timer took 16 bytes
/// (a fighter of the arena paid 48 for its three reserved slots); here
/// it is one pointer until the host's first timer (kept
/// [aside](super::aside::HostAside)), and a host that once held one keeps
/// the room, so holding them again allocates nothing. The box has room
/// for the three slots every host reserves.
///
/// Whether an effect holds an entry is also on the effect itself
/// ([`ActiveEffect::holds_expiry_timer`](super::ActiveEffect::holds_expiry_timer)),
/// which every read of whether it ends lazily uses; the host sets both
/// together. Not saved as a list of its own: each timer is saved with its
/// effect, in the shape an effect always had.
#[derive(Clone, Debug, Default)]
pub(crate) struct ExpiryTimers(Option<Box<SmallVec<[Option<ExpiryTimer>; 3]>>>);

impl ExpiryTimers {
    /// None, with no room.
    pub(crate) const fn new() -> Self {
        Self(None)
    }

    /// The timer of the effect under `key`, if it holds one.
    #[inline]
    pub(crate) fn get(&self, key: EffectKey) -> Option<ExpiryTimer> {
        self.0
            .as_ref()
            .and_then(|timers| timers.get(slot_of(key) as usize).copied().flatten())
    }

    /// Notes `timer` as the timer of the effect under `key`, in place of
    /// any it held.
    pub(crate) fn set(&mut self, key: EffectKey, timer: ExpiryTimer) {
        *self.entry(key) = Some(timer);
    }

    /// Where the timer of the effect under `key` is kept, made if there
    /// was no room for it: one lookup to take the old timer and note the
    /// new one.
    #[inline]
    pub(crate) fn entry(&mut self, key: EffectKey) -> &mut Option<ExpiryTimer> {
        let timers = self.0.get_or_insert_with(Box::default);
        let slot = slot_of(key) as usize;
        if timers.len() <= slot {
            timers.resize(slot + 1, None);
        }
        &mut timers[slot]
    }

    /// Takes the timer of the effect under `key`, leaving none.
    #[inline]
    pub(crate) fn take(&mut self, key: EffectKey) -> Option<ExpiryTimer> {
        self.0
            .as_mut()
            .and_then(|timers| timers.get_mut(slot_of(key) as usize))
            .and_then(Option::take)
    }

    /// Every pending timer, with the slot of its effect, in slot order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (u32, ExpiryTimer)> + '_ {
        self.0
            .iter()
            .flat_map(|timers| timers.iter().enumerate())
            .filter_map(|(slot, timer)| Some((slot as u32, (*timer)?)))
    }
}

#[cfg(test)]
mod tests {
    use slotmap::KeyData;

    use super::*;

    fn key(slot: u32, version: u32) -> EffectKey {
        KeyData::from_ffi((u64::from(version) << 32) | u64::from(slot)).into()
    }

    fn timer(n: u64) -> ExpiryTimer {
        ExpiryTimer {
            timer: KeyData::from_ffi((1 << 32) | n).into(),
            at: SimTime::from_micros(n * 1_000),
        }
    }

    /// No room until the first timer; each effect's timer under its slot,
    /// taken once; the room kept when the timers are gone.
    #[test]
    fn timers_are_kept_by_slot_and_the_room_once_made() {
        let mut timers = ExpiryTimers::default();
        assert!(timers.0.is_none());
        assert_eq!(timers.get(key(2, 1)), None);
        assert_eq!(timers.take(key(2, 1)), None);
        assert!(timers.0.is_none(), "looking makes no room");
        timers.set(key(2, 1), timer(7));
        timers.set(key(0, 3), timer(5));
        assert_eq!(timers.get(key(2, 1)), Some(timer(7)));
        assert_eq!(timers.get(key(1, 1)), None);
        assert_eq!(
            timers.iter().collect::<Vec<_>>(),
            [(0, timer(5)), (2, timer(7))]
        );
        timers.set(key(2, 1), timer(9));
        assert_eq!(timers.take(key(2, 1)), Some(timer(9)));
        assert_eq!(timers.take(key(2, 1)), None);
        assert_eq!(timers.iter().collect::<Vec<_>>(), [(0, timer(5))]);
        assert_eq!(timers.take(key(0, 3)), Some(timer(5)));
        assert_eq!(timers.iter().count(), 0);
        assert!(timers.0.is_some(), "the room is kept");
    }
}

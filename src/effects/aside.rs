//! [`HostAside`]: the parts of an effect host few hosts need, behind one
//! pointer.

use super::active::EffectKey;
use super::expiry::{ExpiryTimer, ExpiryTimers};
use super::lazy::LazyIndex;
use super::listening::ListeningKeys;

/// What a host keeps only once it needs it: the index of its listening
/// effects (from the first effect with an immunity query, ongoing
/// requirements or live captures), the expiry timers of its effects
/// (from the first effect whose end is observed on a timer) and the index
/// of its lazy ends (once it holds many effects).
///
/// Each is out of line, made at its first use and kept. Each was also a
/// pointer of its own in every host, 24 bytes, where most entities hold
/// none of them (a fighter's cooldown, combat mark and buffs are plain,
/// end lazily or never, and are few): the three pointers are kept
/// together, behind one, made at the first of them and kept, so holding
/// them again allocates nothing. Each entity saves 16 bytes; one that
/// needs any of them pays a 24-byte box for the three pointers and one
/// more step to reach them.
#[derive(Clone, Debug, Default)]
pub(crate) struct HostAside(Option<Box<Parts>>);

#[derive(Clone, Debug, Default)]
struct Parts {
    listening: ListeningKeys,
    expiry: ExpiryTimers,
    lazy_index: Option<Box<LazyIndex>>,
}

/// What a host without the box reads.
static NO_LISTENING: ListeningKeys = ListeningKeys::new();
static NO_EXPIRY: ExpiryTimers = ExpiryTimers::new();

impl HostAside {
    /// The box, made if there is none.
    fn parts(&mut self) -> &mut Parts {
        self.0.get_or_insert_with(Box::default)
    }

    /// The listening effects' keys, in slot order.
    #[inline]
    pub(crate) fn listening(&self) -> &ListeningKeys {
        self.0
            .as_ref()
            .map_or(&NO_LISTENING, |parts| &parts.listening)
    }

    /// True when no listening effect is active: the test every
    /// application makes, answered from the pointer alone for a host
    /// that keeps nothing aside.
    #[inline]
    pub(crate) fn no_listening(&self) -> bool {
        self.0
            .as_ref()
            .is_none_or(|parts| parts.listening.is_empty())
    }

    /// Lists `key` among the listening effects.
    pub(crate) fn insert_listening(&mut self, key: EffectKey) {
        self.parts().listening.insert(key);
    }

    /// Drops `key` from the listening effects, if listed.
    pub(crate) fn remove_listening(&mut self, key: EffectKey) {
        if let Some(parts) = &mut self.0 {
            parts.listening.remove(key);
        }
    }

    /// Makes `keys` the listening effects (no box for none).
    pub(crate) fn set_listening(&mut self, keys: ListeningKeys) {
        if keys.is_empty() && self.0.is_none() {
            return;
        }
        self.parts().listening = keys;
    }

    /// The pending expiry timers.
    #[inline]
    pub(crate) fn expiry(&self) -> &ExpiryTimers {
        self.0.as_ref().map_or(&NO_EXPIRY, |parts| &parts.expiry)
    }

    /// The pending expiry timers, to note one in (the box made if needed).
    pub(crate) fn expiry_mut(&mut self) -> &mut ExpiryTimers {
        &mut self.parts().expiry
    }

    /// Takes the timer of the effect under `key`, leaving none.
    #[inline]
    pub(crate) fn take_expiry(&mut self, key: EffectKey) -> Option<ExpiryTimer> {
        self.0.as_mut()?.expiry.take(key)
    }

    /// The index of lazy ends, for a host that keeps one.
    #[inline]
    pub(crate) fn lazy_index(&self) -> Option<&LazyIndex> {
        self.0.as_ref()?.lazy_index.as_deref()
    }

    /// The index of lazy ends, for a host that keeps one, to change.
    #[inline]
    pub(crate) fn lazy_index_mut(&mut self) -> Option<&mut LazyIndex> {
        self.0.as_mut()?.lazy_index.as_deref_mut()
    }

    /// Keeps `index`, or none (no box for none).
    pub(crate) fn set_lazy_index(&mut self, index: Option<LazyIndex>) {
        match index {
            Some(index) => self.parts().lazy_index = Some(Box::new(index)),
            None => {
                if let Some(parts) = &mut self.0 {
                    parts.lazy_index = None;
                }
            }
        }
    }

    /// True when the box has been made.
    #[cfg(test)]
    pub(crate) fn is_made(&self) -> bool {
        self.0.is_some()
    }
}

#[cfg(test)]
mod tests {
    use slotmap::KeyData;

    use super::*;
    use crate::time::SimTime;

    fn key(slot: u32) -> EffectKey {
        KeyData::from_ffi((1u64 << 32) | u64::from(slot)).into()
    }

    /// One pointer in every host; reading, taking and clearing make no
    /// box, the first thing kept makes it, and it stays once made.
    #[test]
    fn the_box_is_made_by_the_first_thing_kept_and_stays() {
        assert_eq!(std::mem::size_of::<HostAside>(), 8);
        let mut aside = HostAside::default();
        assert!(aside.listening().is_empty() && aside.no_listening());
        assert_eq!(aside.expiry().get(key(0)), None);
        assert_eq!(aside.take_expiry(key(0)), None);
        assert!(aside.lazy_index().is_none());
        aside.remove_listening(key(1));
        aside.set_listening(ListeningKeys::new());
        aside.set_lazy_index(None);
        assert!(!aside.is_made(), "nothing kept, no box");

        aside.insert_listening(key(2));
        assert!(aside.is_made());
        assert_eq!(aside.listening().as_slice(), [key(2)]);
        assert!(!aside.no_listening());
        let timer = ExpiryTimer {
            timer: KeyData::from_ffi((1 << 32) | 5).into(),
            at: SimTime::from_micros(5),
        };
        aside.expiry_mut().set(key(1), timer);
        assert_eq!(aside.expiry().get(key(1)), Some(timer));
        assert_eq!(aside.take_expiry(key(1)), Some(timer));
        aside.remove_listening(key(2));
        assert!(aside.listening().is_empty() && aside.no_listening());
        assert!(aside.is_made(), "the room is kept");

        let mut lazy = HostAside::default();
        lazy.set_lazy_index(Some(LazyIndex::default()));
        assert!(lazy.is_made() && lazy.lazy_index().is_some());
        lazy.set_lazy_index(None);
        assert!(lazy.lazy_index().is_none());
    }
}

//! [`ListeningKeys`]: the index of a host's listening effects.

use smallvec::SmallVec;

use super::active::EffectKey;
use super::host::slot_of;

/// The keys of the active effects whose definitions
/// [listen](super::EffectDef::listens) to their host (an immunity query,
/// ongoing requirements, live captures), in slot order: the order a scan
/// of the host's effects would meet them.
///
/// Out of line, and only from the first such effect on: most entities
/// never hold one (a fighter's cooldown, combat mark and buffs are plain),
/// and every entity pays for what is inline, so the index costs one
/// pointer rather than a list's 24 bytes, and that pointer is kept
/// [aside](super::aside::HostAside). A host that once held a listening
/// effect keeps the room, so holding them again allocates nothing.
#[derive(Clone, Debug, Default)]
pub(crate) struct ListeningKeys(Option<Box<SmallVec<[EffectKey; 2]>>>);

impl ListeningKeys {
    /// None, with no room.
    pub(crate) const fn new() -> Self {
        Self(None)
    }

    /// The index of exactly `keys` (in slot order); no room for none.
    pub(crate) fn of(keys: SmallVec<[EffectKey; 2]>) -> Self {
        Self((!keys.is_empty()).then(|| Box::new(keys)))
    }

    /// The keys, in slot order.
    pub(crate) fn as_slice(&self) -> &[EffectKey] {
        self.0.as_deref().map_or(&[], |keys| keys.as_slice())
    }

    /// True when no listening effect is active.
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.0.as_ref().is_none_or(|keys| keys.is_empty())
    }

    /// Adds `key` where a scan would meet it.
    pub(crate) fn insert(&mut self, key: EffectKey) {
        let keys = self.0.get_or_insert_with(Box::default);
        let at = keys.partition_point(|k| slot_of(*k) < slot_of(key));
        keys.insert(at, key);
    }

    /// Drops `key`, if listed (keeping the room).
    pub(crate) fn remove(&mut self, key: EffectKey) {
        if let Some(keys) = self.0.as_mut() {
            keys.retain(|k| *k != key);
        }
    }
}

#[cfg(test)]
mod tests {
    use slotmap::KeyData;

    use super::*;

    fn key(slot: u32) -> EffectKey {
        KeyData::from_ffi((1u64 << 32) | u64::from(slot)).into()
    }

    /// The keys stay in slot order whatever order they come in; no room
    /// is taken before the first, and the room stays once made.
    #[test]
    fn listening_keys_keep_slot_order_and_take_room_from_the_first() {
        let mut listening = ListeningKeys::default();
        assert!(listening.is_empty() && listening.0.is_none());
        assert_eq!(std::mem::size_of::<ListeningKeys>(), 8);
        listening.insert(key(4));
        listening.insert(key(1));
        listening.insert(key(2));
        assert_eq!(listening.as_slice(), [key(1), key(2), key(4)]);
        listening.remove(key(2));
        listening.remove(key(9));
        assert_eq!(listening.as_slice(), [key(1), key(4)]);
        listening.remove(key(1));
        listening.remove(key(4));
        assert!(listening.is_empty());
        assert!(listening.0.is_some(), "the room is kept");
        assert!(ListeningKeys::of(SmallVec::new()).0.is_none());
    }
}

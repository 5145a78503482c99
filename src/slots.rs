//! [`Slots`]: a generational slot map whose whole state, free list
//! included, is saved and restored.
//!
//! gaskit's keyed stores (active effects, ability instances, timer payloads)
//! hand out keys that other state holds on to. A restored store must hand
//! out the *same* next keys as the original, or a restored run drifts from
//! the uninterrupted one (the `slotmap` crate rebuilds its free list in
//! index order on deserialization, so it does not). Keys are `slotmap` key
//! types, with the same layout: a slot index and an odd version while the
//! slot is occupied.

use std::marker::PhantomData;
use std::ops::{Index, IndexMut};

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use slotmap::{Key, KeyData};
use smallvec::SmallVec;

/// Below this many slots a full store grows by exactly one.
const SMALL_STORE: usize = 8;
/// End of the free list.
const NIL: u32 = u32::MAX;

/// One slot: an odd version while it holds a value, even while vacant.
#[derive(Clone, Debug)]
struct Slot<V> {
    version: u32,
    content: Content<V>,
}

/// What a slot holds. A vacant slot links to the slot freed before it, so
/// the free list lives in the slots themselves and a store needs no second
/// allocation for it; the link takes no room of its own, since the
/// compiler lays it out beside the niche the value already has, as it did
/// the `None` of an `Option` (a test checks). Saved without the link (the
/// free list is saved as a list of its own).
#[derive(Clone, Debug)]
enum Content<V> {
    Value(V),
    Vacant { next_free: u32 },
}

impl<V> Content<V> {
    fn value(&self) -> Option<&V> {
        match self {
            Content::Value(value) => Some(value),
            Content::Vacant { .. } => None,
        }
    }

    fn value_mut(&mut self) -> Option<&mut V> {
        match self {
            Content::Value(value) => Some(value),
            Content::Vacant { .. } => None,
        }
    }

    fn is_value(&self) -> bool {
        matches!(self, Content::Value(_))
    }
}

/// A generational slot map with O(1) insert, remove and lookup, and a
/// last-freed-first-reused free list that survives serialization.
///
/// Room for `N` slots inline. A store in every entity (its effects, its
/// ability instances) keeps the room each entity reserves there, in its
/// component, rather than behind a pointer: a block of its own would cost
/// the store's 24-byte vector, malloc's header, and a read that waits on
/// the component's before it can start. A large store (the timers'
/// payloads, the queued events) has none (`N` = 0) and is a vector.
#[derive(Clone, Debug)]
pub(crate) struct Slots<K, V, const N: usize = 0> {
    slots: SmallVec<[Slot<V>; N]>,
    /// The vacant slot reused first (the last one freed), `NIL` if none.
    free_head: u32,
    len: u32,
    _key: PhantomData<fn(K) -> K>,
}

impl<K: Key, V, const N: usize> Default for Slots<K, V, N> {
    fn default() -> Self {
        Self {
            slots: SmallVec::new(),
            free_head: NIL,
            len: 0,
            _key: PhantomData,
        }
    }
}

fn key_of<K: Key>(index: u32, version: u32) -> K {
    KeyData::from_ffi((u64::from(version) << 32) | u64::from(index)).into()
}

fn parts<K: Key>(key: K) -> (usize, u32) {
    let ffi = key.data().as_ffi();
    ((ffi & 0xffff_ffff) as usize, (ffi >> 32) as u32)
}

impl<K: Key, V, const N: usize> Slots<K, V, N> {
    /// An empty store, with room for `N` values before it allocates.
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Stores `value` and returns its key.
    pub(crate) fn insert(&mut self, value: V) -> K {
        if self.free_head != NIL {
            let index = self.free_head;
            let slot = &mut self.slots[index as usize];
            debug_assert!(!slot.content.is_value(), "the free list names a full slot");
            if let Content::Vacant { next_free } = slot.content {
                self.free_head = next_free;
            }
            slot.version = slot.version.wrapping_add(1) | 1;
            slot.content = Content::Value(value);
            self.len += 1;
            return key_of(index, slot.version);
        }
        // The null key uses index u32::MAX (also the free list's end); stop
        // one short of it.
        let index = u32::try_from(self.slots.len())
            .ok()
            .filter(|&i| i < NIL)
            .expect("fewer than 2^32 - 1 live keys");
        self.len += 1;
        // Stores inside a component (an entity's effects, its ability
        // instances) are small and there is one per entity: they grow one
        // slot at a time, not to four or double, so an entity that needs
        // one more pays for one. Large stores double as usual.
        if self.slots.len() == self.slots.capacity() && self.slots.len() < SMALL_STORE {
            self.slots.reserve_exact(1);
        }
        self.slots.push(Slot {
            version: 1,
            content: Content::Value(value),
        });
        key_of(index, 1)
    }

    fn slot(&self, key: K) -> Option<&Slot<V>> {
        let (index, version) = parts(key);
        self.slots
            .get(index)
            .filter(|s| s.version == version && s.content.is_value())
    }

    /// The same store with every value mapped by `f`: the same keys, the
    /// same free list, so the mapped store hands out the same next keys.
    pub(crate) fn map<W, const M: usize>(&self, mut f: impl FnMut(&V) -> W) -> Slots<K, W, M> {
        Slots {
            slots: self
                .slots
                .iter()
                .map(|slot| Slot {
                    version: slot.version,
                    content: match &slot.content {
                        Content::Value(value) => Content::Value(f(value)),
                        &Content::Vacant { next_free } => Content::Vacant { next_free },
                    },
                })
                .collect(),
            free_head: self.free_head,
            len: self.len,
            _key: PhantomData,
        }
    }

    /// The same store with every value, taken with its key, mapped by
    /// `f`: the same keys and free list, as [`map`](Self::map) keeps them.
    pub(crate) fn into_map<W, const M: usize>(
        self,
        mut f: impl FnMut(K, V) -> W,
    ) -> Slots<K, W, M> {
        Slots {
            slots: self
                .slots
                .into_iter()
                .enumerate()
                .map(|(index, slot)| Slot {
                    version: slot.version,
                    content: match slot.content {
                        Content::Value(value) => {
                            Content::Value(f(key_of(index as u32, slot.version), value))
                        }
                        Content::Vacant { next_free } => Content::Vacant { next_free },
                    },
                })
                .collect(),
            free_head: self.free_head,
            len: self.len,
            _key: PhantomData,
        }
    }

    /// The store as it saves, with each value saved as `view` shows it,
    /// given its key: the saved form of the store of those views, written
    /// from borrows (a value whose saved form takes in state kept beside
    /// the store).
    pub(crate) fn saved_as<'a, W: Serialize>(
        &'a self,
        view: impl Fn(K, &'a V) -> W + 'a,
    ) -> impl Serialize + 'a {
        SavedSlots {
            slots: SavedSlotList {
                slots: &self.slots[..],
                view,
                _key: PhantomData,
            },
            free: self.saved_free_list(),
        }
    }

    /// The value under `key`, if it is still there.
    pub(crate) fn get(&self, key: K) -> Option<&V> {
        self.slot(key).and_then(|s| s.content.value())
    }

    /// The value under `key`, mutably.
    pub(crate) fn get_mut(&mut self, key: K) -> Option<&mut V> {
        let (index, version) = parts(key);
        self.slots
            .get_mut(index)
            .filter(|s| s.version == version)
            .and_then(|s| s.content.value_mut())
    }

    /// True while `key` holds a value.
    pub(crate) fn contains_key(&self, key: K) -> bool {
        self.slot(key).is_some()
    }

    /// Removes and returns the value under `key`.
    pub(crate) fn remove(&mut self, key: K) -> Option<V> {
        self.vacate(key, |content, vacant| {
            match std::mem::replace(content, vacant) {
                Content::Value(value) => Some(value),
                Content::Vacant { .. } => None,
            }
        })
        .flatten()
    }

    /// Removes the value under `key` and drops it where it lies: for a
    /// caller done reading it, no copy of a large value out of the store.
    /// `false` if there was none.
    pub(crate) fn discard(&mut self, key: K) -> bool {
        // An assignment drops the old content in place.
        self.vacate(key, |content, vacant| *content = vacant)
            .is_some()
    }

    /// Frees the occupied slot under `key`, letting `empty` put the given
    /// vacant content (linked into the free list) in place of the value,
    /// taking or dropping it; `None` if `key` names no value.
    fn vacate<R>(
        &mut self,
        key: K,
        empty: impl FnOnce(&mut Content<V>, Content<V>) -> R,
    ) -> Option<R> {
        let (index, version) = parts(key);
        let next_free = self.free_head;
        let slot = self
            .slots
            .get_mut(index)
            .filter(|s| s.version == version && s.content.is_value())?;
        let emptied = empty(&mut slot.content, Content::Vacant { next_free });
        slot.version = slot.version.wrapping_add(1);
        self.free_head = index as u32;
        self.len -= 1;
        Some(emptied)
    }

    /// Gives the slot under `key` a new key, as [`discard`](Self::discard)
    /// followed by [`insert`](Self::insert) would (the insert takes the
    /// slot the discard just freed), with no trip through the free list:
    /// the value stays where it lies and comes back, under its new key,
    /// for the caller to rewrite in place into the value that insert would
    /// have stored. `None`, nothing changed, if `key` names no value.
    pub(crate) fn renew(&mut self, key: K) -> Option<(K, &mut V)> {
        let (index, version) = parts(key);
        let slot = self.slots.get_mut(index).filter(|s| s.version == version)?;
        let Content::Value(value) = &mut slot.content else {
            return None;
        };
        // Vacated (+1, even), then occupied again (+1, odd).
        slot.version = slot.version.wrapping_add(2);
        Some((key_of(index as u32, slot.version), value))
    }

    /// Removes every value, keeping the memory (a restore refills it).
    /// Versions start over, so a key from before may name a new value:
    /// only for a store whose holders of keys are all replaced with it.
    pub(crate) fn clear(&mut self) {
        self.slots.clear();
        self.free_head = NIL;
        self.len = 0;
    }

    /// Gives back the memory of an empty store that grew beyond room for
    /// `keep` values, keeping room for `keep`: what a burst grew, once the
    /// burst is handled. Versions start over, as with
    /// [`clear`](Self::clear): only for a store nothing holds keys of
    /// while it is empty.
    pub(crate) fn release_if_empty(&mut self, keep: usize) {
        if self.len == 0 && self.slots.capacity() > keep {
            self.clear();
            // Empty, so this reallocates to `keep` (or moves inline).
            self.slots.grow(keep);
        }
    }

    /// Room for values before the store allocates again.
    #[cfg(test)]
    pub(crate) fn capacity(&self) -> usize {
        self.slots.capacity()
    }

    /// Asks the memory system for the slot under `key` (a hint before it is
    /// read; see [`crate::prefetch`]), wherever it lies: inline, in the
    /// store's owner, as well.
    #[inline]
    pub(crate) fn prefetch(&self, key: K) {
        if let Some(slot) = self.slots.get(parts(key).0) {
            crate::prefetch::value(slot);
        }
    }

    /// Asks the memory system for the slot at `index` (a hint that may
    /// name none: nothing then).
    #[inline]
    pub(crate) fn prefetch_slot(&self, index: u32) {
        if let Some(slot) = self.slots.get(index as usize) {
            crate::prefetch::value(slot);
        }
    }

    /// Asks the memory system for the slot the next insert takes (the
    /// head of the free list).
    #[inline]
    pub(crate) fn prefetch_next_insert(&self) {
        if let Some(slot) = self.slots.get(self.free_head as usize) {
            crate::prefetch::value(slot);
        }
    }

    /// Asks the memory system for the first `count` slots (as many as
    /// there are, if fewer), wherever they lie.
    #[inline]
    pub(crate) fn prefetch_first(&self, count: usize) {
        crate::prefetch::value(&self.slots[..count.min(self.slots.len())]);
    }

    /// Number of values.
    pub(crate) fn len(&self) -> usize {
        self.len as usize
    }

    /// True when empty.
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Keys and values in slot order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (K, &V)> + '_ {
        self.slots.iter().enumerate().filter_map(|(i, s)| {
            s.content
                .value()
                .map(|v| (key_of::<K>(i as u32, s.version), v))
        })
    }

    /// Keys in slot order.
    pub(crate) fn keys(&self) -> impl Iterator<Item = K> + '_ {
        self.iter().map(|(k, _)| k)
    }

    /// Values in slot order.
    pub(crate) fn values(&self) -> impl Iterator<Item = &V> + '_ {
        self.slots.iter().filter_map(|s| s.content.value())
    }
}

impl<K: Key, V, const N: usize> Index<K> for Slots<K, V, N> {
    type Output = V;

    fn index(&self, key: K) -> &V {
        self.get(key).expect("a live key of this store")
    }
}

impl<K: Key, V, const N: usize> IndexMut<K> for Slots<K, V, N> {
    fn index_mut(&mut self, key: K) -> &mut V {
        self.get_mut(key).expect("a live key of this store")
    }
}

impl<K, V, const N: usize> Slots<K, V, N> {
    /// The free list as saved: vacant slot indices, the one reused first
    /// last (the order they were freed in). A few inline: state checksums
    /// write every entity's stores, and most hold a vacant slot or two, so
    /// a heap list here was an allocation per entity per checksum.
    fn saved_free_list(&self) -> SmallVec<[u32; 4]> {
        let mut free = SmallVec::new();
        let mut next = self.free_head;
        while next != NIL {
            free.push(next);
            next = match self.slots[next as usize].content {
                Content::Vacant { next_free } => next_free,
                Content::Value(_) => NIL,
            };
        }
        free.reverse();
        free
    }
}

/// A store as saved: its slots (version and value) and its free list.
#[derive(Serialize, Deserialize)]
struct SavedSlots<S, F> {
    slots: S,
    free: F,
}

/// A slot as saved: its version and value.
#[derive(Serialize, Deserialize)]
#[serde(rename = "Slot")]
struct SavedSlot<V> {
    version: u32,
    value: Option<V>,
}

/// Serializes a store's slots without their free-list links, each value
/// as `view` shows it.
struct SavedSlotList<'a, K, V, F> {
    slots: &'a [Slot<V>],
    view: F,
    _key: PhantomData<fn(K) -> K>,
}

impl<'a, K: Key, V, W: Serialize, F: Fn(K, &'a V) -> W> Serialize for SavedSlotList<'a, K, V, F> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.slots.iter().enumerate().map(|(index, slot)| {
            SavedSlot {
                version: slot.version,
                value: slot
                    .content
                    .value()
                    .map(|value| (self.view)(key_of(index as u32, slot.version), value)),
            }
        }))
    }
}

impl<K: Key, V: Serialize, const N: usize> Serialize for Slots<K, V, N> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.saved_as(|_, value| value).serialize(serializer)
    }
}

impl<'de, K: Key, V: Deserialize<'de>, const N: usize> Deserialize<'de> for Slots<K, V, N> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let saved = SavedSlots::<Vec<SavedSlot<V>>, Vec<u32>>::deserialize(deserializer)?;
        if saved.slots.len() >= NIL as usize {
            return Err(D::Error::custom("too many slots"));
        }
        let mut listed = vec![false; saved.slots.len()];
        for &index in &saved.free {
            let slot = saved
                .slots
                .get(index as usize)
                .ok_or_else(|| D::Error::custom("a free slot index is out of range"))?;
            if slot.value.is_some() || std::mem::replace(&mut listed[index as usize], true) {
                return Err(D::Error::custom(
                    "the free list names a slot twice or a full one",
                ));
            }
        }
        let mut len = 0;
        for (slot, &listed) in saved.slots.iter().zip(&listed) {
            let occupied = slot.value.is_some();
            if occupied != (slot.version % 2 == 1) || occupied == listed {
                return Err(D::Error::custom(
                    "a slot's version, value and free listing disagree",
                ));
            }
            len += u32::from(occupied);
        }
        let mut slots: SmallVec<[Slot<V>; N]> = saved
            .slots
            .into_iter()
            .map(|slot| Slot {
                version: slot.version,
                content: match slot.value {
                    Some(value) => Content::Value(value),
                    None => Content::Vacant { next_free: NIL },
                },
            })
            .collect();
        let mut free_head = NIL;
        for &index in &saved.free {
            slots[index as usize].content = Content::Vacant {
                next_free: free_head,
            };
            free_head = index;
        }
        Ok(Self {
            slots,
            free_head,
            len,
            _key: PhantomData,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    slotmap::new_key_type! { struct TestKey; }

    #[test]
    fn keys_are_generation_checked() {
        let mut s: Slots<TestKey, &str> = Slots::new();
        let a = s.insert("a");
        assert_eq!(s.remove(a), Some("a"));
        let b = s.insert("b");
        assert_ne!(a, b, "the slot is reused under a new version");
        assert_eq!(s.get(a), None);
        assert_eq!(s.remove(a), None);
        assert!(!s.discard(a));
        assert_eq!(s[b], "b");
        assert!(s.discard(b));
        assert_eq!((s.get(b), s.len()), (None, 0));
        let c = s.insert("c");
        assert_ne!(b, c, "a discarded slot is reused under a new version");
        assert_eq!(s[c], "c");
        assert_eq!(s.len(), 1);
        assert_eq!(s.get(TestKey::null()), None);
    }

    /// A renewal leaves the store as a discard and an insert would: the
    /// same new key, the same free list, the same next keys.
    #[test]
    fn a_renewal_is_a_discard_then_an_insert() {
        let fill = || {
            let mut s: Slots<TestKey, u32> = Slots::new();
            let keys: Vec<_> = (0..4).map(|i| s.insert(i)).collect();
            s.discard(keys[2]);
            (s, keys)
        };
        let (mut renewed, keys) = fill();
        let (mut replaced, _) = fill();
        let (new, value) = renewed.renew(keys[1]).unwrap();
        assert_eq!(*value, 1, "the value stays for the caller to rewrite");
        *value = 10;
        replaced.discard(keys[1]);
        assert_eq!(replaced.insert(10), new);
        assert_eq!(renewed.get(keys[1]), None);
        assert_eq!(renewed[new], 10);
        assert!(
            renewed.renew(keys[2]).is_none(),
            "a freed slot is not renewed"
        );
        for value in 20..23 {
            assert_eq!(renewed.insert(value), replaced.insert(value));
        }
        let pairs = |s: &Slots<TestKey, u32>| s.iter().map(|(k, v)| (k, *v)).collect::<Vec<_>>();
        assert_eq!(pairs(&renewed), pairs(&replaced));
        assert_eq!(renewed.len(), replaced.len());
    }

    #[test]
    fn a_restored_store_hands_out_the_same_next_keys() {
        let mut s: Slots<TestKey, u32> = Slots::new();
        let keys: Vec<_> = (0..6).map(|i| s.insert(i)).collect();
        for &k in &[keys[4], keys[1], keys[3]] {
            s.remove(k);
        }
        let text = serde_json::to_string(&s).unwrap();
        let mut restored: Slots<TestKey, u32> = serde_json::from_str(&text).unwrap();
        for value in 10..14 {
            assert_eq!(restored.insert(value), s.insert(value));
        }
        let pairs = |s: &Slots<TestKey, u32>| s.iter().map(|(k, v)| (k, *v)).collect::<Vec<_>>();
        assert_eq!(pairs(&restored), pairs(&s));
    }

    /// The free list lives in the vacant slots, but is saved as the list
    /// of vacant indices in the order they were freed, beside slots of a
    /// version and a value: the form saves had before.
    #[test]
    fn the_free_list_is_threaded_through_the_slots_and_saved_as_a_list() {
        use std::mem::size_of;
        assert_eq!(size_of::<Slots<TestKey, u64>>(), 32);
        // The link takes no room: a slot is the size a version and an
        // `Option` of the value were, for the values gaskit stores.
        fn same_size_as_before<V>() {
            assert_eq!(size_of::<Slot<V>>(), size_of::<(u32, Option<V>)>());
        }
        same_size_as_before::<crate::gas::Timer>();
        same_size_as_before::<crate::effects::ActiveEffect>();
        same_size_as_before::<crate::abilities::Instance>();
        same_size_as_before::<(hecs::Entity, crate::abilities::GameplayEvent)>();
        let mut s: Slots<TestKey, u32> = Slots::new();
        let keys: Vec<_> = (0..4).map(|i| s.insert(i)).collect();
        s.remove(keys[2]);
        s.remove(keys[0]);
        assert_eq!(
            serde_json::to_string(&s).unwrap(),
            r#"{"slots":[{"version":2,"value":null},{"version":1,"value":1},{"version":2,"value":null},{"version":1,"value":3}],"free":[2,0]}"#
        );
        let reused = s.insert(7);
        assert_eq!(parts(reused), (0, 3), "the last freed is reused first");
        assert_eq!(parts(s.insert(8)).0, 2);
        assert_eq!(parts(s.insert(9)).0, 4, "then the store grows");
    }

    #[test]
    fn small_stores_grow_by_one_and_large_ones_double() {
        let mut s: Slots<TestKey, u64, 1> = Slots::new();
        for i in 0..3 {
            s.insert(i);
        }
        assert_eq!(s.slots.capacity(), 3, "one more slot per growth");
        for i in 3..SMALL_STORE as u64 + 1 {
            s.insert(i);
        }
        assert!(
            s.slots.capacity() >= 2 * SMALL_STORE,
            "doubling past the small size"
        );
    }

    /// A store with room inline holds that many values without a block of
    /// its own, moves them to one (one slot more) for the next, and moves
    /// back inline when a burst that grew it is given back. Its keys, its
    /// saved form and the next keys it hands out do not depend on where
    /// its slots lie.
    #[test]
    fn a_store_keeps_its_first_values_inline() {
        let mut inline: Slots<TestKey, u32, 3> = Slots::new();
        let mut heap: Slots<TestKey, u32> = Slots::new();
        let keys: Vec<_> = (0..3).map(|i| inline.insert(i)).collect();
        assert_eq!(keys, (0..3).map(|i| heap.insert(i)).collect::<Vec<_>>());
        assert!(!inline.slots.spilled(), "three values fit inline");
        assert_eq!(inline.capacity(), 3);
        inline.remove(keys[1]);
        heap.remove(keys[1]);
        let text = serde_json::to_string(&inline).unwrap();
        assert_eq!(text, serde_json::to_string(&heap).unwrap());
        let restored: Slots<TestKey, u32, 3> = serde_json::from_str(&text).unwrap();
        assert!(!restored.slots.spilled(), "a restored store is inline too");
        let mut restored = restored;
        assert_eq!(
            restored.insert(7),
            heap.clone().insert(7),
            "the same next key"
        );
        assert_eq!(inline.insert(7), heap.insert(7));
        let fourth = inline.insert(8);
        assert_eq!(fourth, heap.insert(8));
        assert!(
            inline.slots.spilled(),
            "a fourth value moves them to a block"
        );
        assert_eq!(inline.capacity(), 4, "of one slot more");
        assert_eq!((inline[keys[0]], inline[fourth]), (0, 8));
        for key in inline.keys().collect::<Vec<_>>() {
            inline.remove(key);
        }
        inline.release_if_empty(3);
        assert!(
            !inline.slots.spilled(),
            "given back, the room is inline again"
        );
        assert_eq!(inline.capacity(), 3);
    }

    #[test]
    fn a_cleared_store_is_empty_and_keeps_its_memory() {
        let mut s: Slots<TestKey, u32> = Slots::new();
        let keys: Vec<_> = (0..5).map(|i| s.insert(i)).collect();
        s.remove(keys[2]);
        let capacity = s.slots.capacity();
        s.clear();
        assert_eq!((s.len(), s.iter().count()), (0, 0));
        assert_eq!(s.slots.capacity(), capacity);
        let again = s.insert(9);
        assert_eq!((s.len(), s[again]), (1, 9));
    }

    #[test]
    fn a_mapped_store_keeps_its_keys() {
        let mut s: Slots<TestKey, u32> = Slots::new();
        let keys: Vec<_> = (0..4).map(|i| s.insert(i)).collect();
        s.remove(keys[1]);
        let mut mapped: Slots<TestKey, u32> = s.map(|v| v * 10);
        assert_eq!(mapped[keys[3]], 30);
        assert_eq!(mapped.get(keys[1]), None);
        assert_eq!(mapped.len(), 3);
        assert_eq!(mapped.insert(7), s.insert(7), "the same next key");
    }

    /// A store taken apart value by value, given each value's key, keeps
    /// its keys and free list; a store saved through a view of its values
    /// saves as the store of those views would.
    #[test]
    fn a_store_maps_by_key_and_saves_through_a_view() {
        let mut s: Slots<TestKey, u32> = Slots::new();
        let keys: Vec<_> = (0..4).map(|i| s.insert(i)).collect();
        s.remove(keys[2]);
        s.remove(keys[0]);
        let keyed: Slots<TestKey, (TestKey, u32)> = s.clone().into_map(|key, v| (key, v + 1));
        for &key in [keys[1], keys[3]].iter() {
            assert_eq!(keyed[key], (key, s[key] + 1));
        }
        let viewed = serde_json::to_string(&s.saved_as(|key, v| (key, v + 1))).unwrap();
        assert_eq!(viewed, serde_json::to_string(&keyed).unwrap());
        let (mut keyed, mut s) = (keyed, s);
        assert_eq!(keyed.insert((keys[0], 0)), s.insert(0), "the same next key");
    }

    #[test]
    fn inconsistent_saves_are_refused() {
        for text in [
            r#"{"slots":[{"version":1,"value":5}],"free":[0]}"#,
            r#"{"slots":[{"version":2,"value":null}],"free":[]}"#,
            r#"{"slots":[{"version":2,"value":null}],"free":[0,0]}"#,
            r#"{"slots":[],"free":[3]}"#,
            r#"{"slots":[{"version":2,"value":7}],"free":[]}"#,
        ] {
            assert!(
                serde_json::from_str::<Slots<TestKey, u32>>(text).is_err(),
                "{text}"
            );
        }
    }
}

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

/// How a store's slot keeps its version (odd while it holds a value, even
/// while vacant) and, while vacant, its link in the free list: beside the
/// value ([`Slot`], for any value) or inside it ([`Embedded`], for a
/// value with room for it).
pub(crate) trait SlotCell<V>: Sized {
    /// A slot holding `value` under `version`.
    fn occupied(version: u32, value: V) -> Self;
    /// A vacant slot under `version`, linking to `next_free`.
    fn vacant(version: u32, next_free: u32) -> Self;
    /// Its version.
    fn version(&self) -> u32;
    /// Its value, if it holds one.
    fn value(&self) -> Option<&V>;
    /// Its value, mutably.
    fn value_mut(&mut self) -> Option<&mut V>;
    /// Its value, taken.
    fn into_value(self) -> Option<V>;
    /// The next vacant slot, for a vacant one.
    fn next_free(&self) -> Option<u32>;
    /// Makes it hold `value` under `version`.
    fn fill(&mut self, version: u32, value: V) {
        *self = Self::occupied(version, value);
    }
    /// Makes it vacant under `version`, linking to `next_free`, and
    /// returns the value it held, if any.
    fn empty(&mut self, version: u32, next_free: u32) -> Option<V> {
        std::mem::replace(self, Self::vacant(version, next_free)).into_value()
    }
    /// Makes it vacant, dropping its value where it lies (an assignment
    /// drops the old content in place: no copy of a large value out).
    fn discard(&mut self, version: u32, next_free: u32) {
        *self = Self::vacant(version, next_free);
    }
    /// Its value, if it holds one under `version`: one test where a
    /// value keeps the version (the default reads the two apart).
    #[inline]
    fn value_under(&self, version: u32) -> Option<&V> {
        self.value().filter(|_| self.version() == version)
    }
    /// [`value_under`](Self::value_under), mutably.
    #[inline]
    fn value_under_mut(&mut self, version: u32) -> Option<&mut V> {
        if self.version() != version {
            return None;
        }
        self.value_mut()
    }
    /// Moves the value held under `version` to `renewed`, and returns it.
    fn renew_under(&mut self, version: u32, renewed: u32) -> Option<&mut V>;
}

/// One slot, its version beside its value.
#[derive(Clone, Debug)]
pub(crate) struct Slot<V> {
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

impl<V> SlotCell<V> for Slot<V> {
    #[inline]
    fn occupied(version: u32, value: V) -> Self {
        Self {
            version,
            content: Content::Value(value),
        }
    }

    #[inline]
    fn vacant(version: u32, next_free: u32) -> Self {
        Self {
            version,
            content: Content::Vacant { next_free },
        }
    }

    #[inline]
    fn version(&self) -> u32 {
        self.version
    }

    #[inline]
    fn value(&self) -> Option<&V> {
        match &self.content {
            Content::Value(value) => Some(value),
            Content::Vacant { .. } => None,
        }
    }

    #[inline]
    fn value_mut(&mut self) -> Option<&mut V> {
        match &mut self.content {
            Content::Value(value) => Some(value),
            Content::Vacant { .. } => None,
        }
    }

    fn into_value(self) -> Option<V> {
        match self.content {
            Content::Value(value) => Some(value),
            Content::Vacant { .. } => None,
        }
    }

    #[inline]
    fn next_free(&self) -> Option<u32> {
        match self.content {
            Content::Vacant { next_free } => Some(next_free),
            Content::Value(_) => None,
        }
    }

    #[inline]
    fn fill(&mut self, version: u32, value: V) {
        self.version = version;
        self.content = Content::Value(value);
    }

    #[inline]
    fn empty(&mut self, version: u32, next_free: u32) -> Option<V> {
        self.version = version;
        match std::mem::replace(&mut self.content, Content::Vacant { next_free }) {
            Content::Value(value) => Some(value),
            Content::Vacant { .. } => None,
        }
    }

    #[inline]
    fn discard(&mut self, version: u32, next_free: u32) {
        self.version = version;
        self.content = Content::Vacant { next_free };
    }

    #[inline]
    fn renew_under(&mut self, version: u32, renewed: u32) -> Option<&mut V> {
        match &mut self.content {
            Content::Value(value) if self.version == version => {
                self.version = renewed;
                Some(value)
            }
            _ => None,
        }
    }
}

/// A value that keeps its store's version of its slot itself, in room its
/// layout has (see [`Embedded`]).
pub(crate) trait Versioned {
    /// The version kept.
    fn slot_version(&self) -> u32;
    /// Keeps `version`.
    fn set_slot_version(&mut self, version: u32);
}

/// One slot whose value keeps the version: a value of 60 bytes aligned
/// to eight takes a 64-byte slot, where beside it the version would make
/// the slot 72. A vacant slot keeps the version and the link where the
/// value was, beside the niche the value has.
#[derive(Clone, Debug)]
pub(crate) enum Embedded<V> {
    Value(V),
    Vacant { version: u32, next_free: u32 },
}

impl<V: Versioned> SlotCell<V> for Embedded<V> {
    #[inline]
    fn occupied(version: u32, mut value: V) -> Self {
        value.set_slot_version(version);
        Self::Value(value)
    }

    #[inline]
    fn vacant(version: u32, next_free: u32) -> Self {
        Self::Vacant { version, next_free }
    }

    #[inline]
    fn version(&self) -> u32 {
        match self {
            Self::Value(value) => value.slot_version(),
            &Self::Vacant { version, .. } => version,
        }
    }

    #[inline]
    fn value(&self) -> Option<&V> {
        match self {
            Self::Value(value) => Some(value),
            Self::Vacant { .. } => None,
        }
    }

    #[inline]
    fn value_mut(&mut self) -> Option<&mut V> {
        match self {
            Self::Value(value) => Some(value),
            Self::Vacant { .. } => None,
        }
    }

    fn into_value(self) -> Option<V> {
        match self {
            Self::Value(value) => Some(value),
            Self::Vacant { .. } => None,
        }
    }

    #[inline]
    fn next_free(&self) -> Option<u32> {
        match *self {
            Self::Vacant { next_free, .. } => Some(next_free),
            Self::Value(_) => None,
        }
    }

    #[inline]
    fn value_under(&self, version: u32) -> Option<&V> {
        match self {
            Self::Value(value) if value.slot_version() == version => Some(value),
            _ => None,
        }
    }

    #[inline]
    fn value_under_mut(&mut self, version: u32) -> Option<&mut V> {
        match self {
            Self::Value(value) if value.slot_version() == version => Some(value),
            _ => None,
        }
    }

    #[inline]
    fn renew_under(&mut self, version: u32, renewed: u32) -> Option<&mut V> {
        match self {
            Self::Value(value) if value.slot_version() == version => {
                value.set_slot_version(renewed);
                Some(value)
            }
            _ => None,
        }
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
pub(crate) struct Slots<K, V, const N: usize = 0, C = Slot<V>> {
    slots: SmallVec<[C; N]>,
    /// The vacant slot reused first (the last one freed), `NIL` if none.
    free_head: u32,
    len: u32,
    _key: PhantomData<fn(K) -> (K, V)>,
}

impl<K: Key, V, const N: usize, C> Default for Slots<K, V, N, C> {
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

impl<K: Key, V, const N: usize, C: SlotCell<V>> Slots<K, V, N, C> {
    /// An empty store, with room for `N` values before it allocates.
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Stores `value` and returns its key.
    pub(crate) fn insert(&mut self, value: V) -> K {
        if self.free_head != NIL {
            let index = self.free_head;
            let slot = &mut self.slots[index as usize];
            debug_assert!(slot.value().is_none(), "the free list names a full slot");
            if let Some(next_free) = slot.next_free() {
                self.free_head = next_free;
            }
            let version = slot.version().wrapping_add(1) | 1;
            slot.fill(version, value);
            self.len += 1;
            return key_of(index, version);
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
        self.slots.push(C::occupied(1, value));
        key_of(index, 1)
    }

    /// The same store with every value mapped by `f`: the same keys, the
    /// same free list, so the mapped store hands out the same next keys.
    pub(crate) fn map<W, const M: usize, D: SlotCell<W>>(
        &self,
        mut f: impl FnMut(&V) -> W,
    ) -> Slots<K, W, M, D> {
        Slots {
            slots: self
                .slots
                .iter()
                .map(|slot| match (slot.value(), slot.next_free()) {
                    (Some(value), _) => D::occupied(slot.version(), f(value)),
                    (None, next_free) => D::vacant(slot.version(), next_free.unwrap_or(NIL)),
                })
                .collect(),
            free_head: self.free_head,
            len: self.len,
            _key: PhantomData,
        }
    }

    /// The same store with every value, taken with its key, mapped by
    /// `f`: the same keys and free list, as [`map`](Self::map) keeps them.
    pub(crate) fn into_map<W, const M: usize, D: SlotCell<W>>(
        self,
        mut f: impl FnMut(K, V) -> W,
    ) -> Slots<K, W, M, D> {
        Slots {
            slots: self
                .slots
                .into_iter()
                .enumerate()
                .map(|(index, slot)| {
                    let (version, next_free) = (slot.version(), slot.next_free());
                    match slot.into_value() {
                        Some(value) => {
                            D::occupied(version, f(key_of(index as u32, version), value))
                        }
                        None => D::vacant(version, next_free.unwrap_or(NIL)),
                    }
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
                _value: PhantomData,
            },
            free: self.saved_free_list(),
        }
    }

    /// The value under `key`, if it is still there.
    pub(crate) fn get(&self, key: K) -> Option<&V> {
        let (index, version) = parts(key);
        self.slots.get(index)?.value_under(version)
    }

    /// The value under `key`, mutably.
    pub(crate) fn get_mut(&mut self, key: K) -> Option<&mut V> {
        let (index, version) = parts(key);
        self.slots.get_mut(index)?.value_under_mut(version)
    }

    /// True while `key` holds a value.
    pub(crate) fn contains_key(&self, key: K) -> bool {
        self.get(key).is_some()
    }

    /// Removes and returns the value under `key`.
    pub(crate) fn remove(&mut self, key: K) -> Option<V> {
        self.vacate(key, |slot, version, next_free| {
            slot.empty(version, next_free)
        })
        .flatten()
    }

    /// Removes the value under `key` and drops it where it lies: for a
    /// caller done reading it, no copy of a large value out of the store.
    /// `false` if there was none.
    pub(crate) fn discard(&mut self, key: K) -> bool {
        self.vacate(key, |slot, version, next_free| {
            slot.discard(version, next_free)
        })
        .is_some()
    }

    /// Frees the occupied slot under `key`, letting `empty` make it vacant
    /// under its next version, linked into the free list, taking or
    /// dropping its value; `None` if `key` names no value.
    fn vacate<R>(&mut self, key: K, empty: impl FnOnce(&mut C, u32, u32) -> R) -> Option<R> {
        let (index, version) = parts(key);
        let next_free = self.free_head;
        let slot = self
            .slots
            .get_mut(index)
            .filter(|s| s.value_under(version).is_some())?;
        let emptied = empty(slot, version.wrapping_add(1), next_free);
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
        // Vacated (+1, even), then occupied again (+1, odd).
        let renewed = version.wrapping_add(2);
        let value = self.slots.get_mut(index)?.renew_under(version, renewed)?;
        Some((key_of(index as u32, renewed), value))
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
        self.slots
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.value().map(|v| (key_of::<K>(i as u32, s.version()), v)))
    }

    /// Keys in slot order.
    pub(crate) fn keys(&self) -> impl Iterator<Item = K> + '_ {
        self.iter().map(|(k, _)| k)
    }

    /// Values in slot order.
    pub(crate) fn values(&self) -> impl Iterator<Item = &V> + '_ {
        self.slots.iter().filter_map(|s| s.value())
    }
}

impl<K: Key, V, const N: usize, C: SlotCell<V>> Index<K> for Slots<K, V, N, C> {
    type Output = V;

    fn index(&self, key: K) -> &V {
        self.get(key).expect("a live key of this store")
    }
}

impl<K: Key, V, const N: usize, C: SlotCell<V>> IndexMut<K> for Slots<K, V, N, C> {
    fn index_mut(&mut self, key: K) -> &mut V {
        self.get_mut(key).expect("a live key of this store")
    }
}

impl<K, V, const N: usize, C: SlotCell<V>> Slots<K, V, N, C> {
    /// The free list as saved: vacant slot indices, the one reused first
    /// last (the order they were freed in). A few inline: state checksums
    /// write every entity's stores, and most hold a vacant slot or two, so
    /// a heap list here was an allocation per entity per checksum.
    fn saved_free_list(&self) -> SmallVec<[u32; 4]> {
        let mut free = SmallVec::new();
        let mut next = self.free_head;
        while next != NIL {
            free.push(next);
            next = self.slots[next as usize].next_free().unwrap_or(NIL);
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
struct SavedSlotList<'a, K, V, C, F> {
    slots: &'a [C],
    view: F,
    _key: PhantomData<fn(K) -> K>,
    _value: PhantomData<fn() -> V>,
}

impl<'a, K: Key, V: 'a, C: SlotCell<V>, W: Serialize, F: Fn(K, &'a V) -> W> Serialize
    for SavedSlotList<'a, K, V, C, F>
{
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.slots.iter().enumerate().map(|(index, slot)| {
            let version = slot.version();
            SavedSlot {
                version,
                value: slot
                    .value()
                    .map(|value| (self.view)(key_of(index as u32, version), value)),
            }
        }))
    }
}

impl<K: Key, V: Serialize, const N: usize, C: SlotCell<V>> Serialize for Slots<K, V, N, C> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.saved_as(|_, value| value).serialize(serializer)
    }
}

impl<'de, K: Key, V: Deserialize<'de>, const N: usize, C: SlotCell<V>> Deserialize<'de>
    for Slots<K, V, N, C>
{
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
        let mut slots: SmallVec<[C; N]> = saved
            .slots
            .into_iter()
            .map(|slot| match slot.value {
                Some(value) => C::occupied(slot.version, value),
                None => C::vacant(slot.version, NIL),
            })
            .collect();
        let mut free_head = NIL;
        for &index in &saved.free {
            let slot = &mut slots[index as usize];
            slot.discard(slot.version(), free_head);
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

    /// A value that keeps its slot's version itself.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    struct Held {
        value: u32,
        #[serde(skip)]
        version: u32,
    }

    impl Versioned for Held {
        fn slot_version(&self) -> u32 {
            self.version
        }
        fn set_slot_version(&mut self, version: u32) {
            self.version = version;
        }
    }

    /// A store whose values keep the versions hands out the keys, keeps
    /// the free list and saves the text a store of versions beside them
    /// does, through inserts, removals, renewals and a restore.
    #[test]
    fn a_store_of_values_that_keep_their_versions_is_the_same_store() {
        let held = |value| Held { value, version: 0 };
        let mut inside: Slots<TestKey, Held, 2, Embedded<Held>> = Slots::new();
        let mut beside: Slots<TestKey, Held, 2> = Slots::new();
        let keys: Vec<_> = (0..4).map(|i| inside.insert(held(i))).collect();
        assert_eq!(
            keys,
            (0..4).map(|i| beside.insert(held(i))).collect::<Vec<_>>()
        );
        inside.remove(keys[1]);
        beside.remove(keys[1]);
        assert!(inside.discard(keys[3]) && beside.discard(keys[3]));
        let renewed = inside.renew(keys[2]).unwrap().0;
        assert_eq!(renewed, beside.renew(keys[2]).unwrap().0);
        assert_eq!(
            inside[renewed].version,
            parts(renewed).1,
            "the value keeps it"
        );
        assert_eq!(inside.get(keys[2]), None, "the old key names nothing");
        let text = serde_json::to_string(&inside).unwrap();
        assert_eq!(text, serde_json::to_string(&beside).unwrap());
        let mut restored: Slots<TestKey, Held, 2, Embedded<Held>> =
            serde_json::from_str(&text).unwrap();
        for value in 10..13 {
            let key = beside.insert(held(value));
            assert_eq!(inside.insert(held(value)), key);
            assert_eq!(restored.insert(held(value)), key);
            assert_eq!(restored[key].version, parts(key).1);
        }
        let values = |s: &Slots<TestKey, Held, 2, Embedded<Held>>| {
            s.iter().map(|(k, v)| (k, v.value)).collect::<Vec<_>>()
        };
        assert_eq!(values(&inside), values(&restored));
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

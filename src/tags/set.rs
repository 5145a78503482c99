//! [`TagSet`]: a container of gameplay tags with GAS matching rules.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use smallvec::SmallVec;

use super::Tag;

/// Inline capacity of the member list: sets of up to this many tags (an
/// entity's owned tags, an effect's granted tags, a spec's tags) never
/// touch the heap.
const INLINE_TAGS: usize = 6;
/// Words of the presence bitset a saved set carries inline: registries of
/// up to 256 tags save without allocating.
const SAVED_INLINE_WORDS: usize = 4;

/// A set of gameplay tags (the role of `FGameplayTagContainer`).
///
/// Matching follows GAS: [`has`](TagSet::has) is parent-aware (a set holding
/// `A.B.C` has `A.B` and `A`), [`has_exact`](TagSet::has_exact) is not.
/// Each query is O(1) in the size of a large set (O(n) over a small one's
/// few members), or O(n) in the size of the *argument* set for the
/// `has_any`/`has_all` family, and never allocates.
///
/// Empty arguments follow GAS: `has_any(empty)` is `false`,
/// `has_all(empty)` is `true` (every one of zero tags is present).
///
/// Internally the set keeps its members sorted by id. A set of up to six
/// members answers membership by scanning them (a few comparisons, and the
/// set stays 40 bytes: every entity and every active effect holds several);
/// a larger one also keeps a bitset over tag ids, for O(1) membership and
/// subtree-range tests.
#[derive(Default)]
pub struct TagSet {
    /// Members sorted by id.
    tags: SmallVec<[Tag; INLINE_TAGS]>,
    /// Bit `i` is set when the tag with id `i` is a member; kept only once
    /// the set has outgrown its inline room (then for good, like the
    /// member list's heap room).
    bits: Option<Box<Bits>>,
}

/// A presence bitset over tag ids, with no trailing zero words.
type Bits = SmallVec<[u64; SAVED_INLINE_WORDS]>;

/// Members are copied as one block: the derived clone would push them one
/// by one (`SmallVec`'s clone goes through an iterator), and a spec's tags
/// are cloned on every hit.
impl Clone for TagSet {
    #[inline]
    fn clone(&self) -> Self {
        Self {
            tags: SmallVec::from_slice(&self.tags),
            bits: self.bits.clone(),
        }
    }
}

impl TagSet {
    /// True when every member is one of `registry`'s (a set read from
    /// outside is canonical by construction: see its `Deserialize`).
    pub(crate) fn is_valid_in(&self, registry: &crate::tags::TagRegistry) -> bool {
        self.iter().all(|t| registry.knows(t))
    }

    /// An empty set.
    pub const fn new() -> Self {
        Self {
            tags: SmallVec::new_const(),
            bits: None,
        }
    }

    /// Number of tags explicitly in the set (parents implied by them are not counted).
    pub fn len(&self) -> usize {
        self.tags.len()
    }

    /// True when the set holds no tag.
    pub fn is_empty(&self) -> bool {
        self.tags.is_empty()
    }

    /// The explicit members, in registry (depth-first) order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Tag> + '_ {
        self.tags.iter().copied()
    }

    /// Adds `tag`; returns `true` if it was not already a member.
    pub fn insert(&mut self, tag: Tag) -> bool {
        match self.position(tag) {
            Ok(_) => false,
            Err(at) => {
                self.insert_at(at, tag);
                true
            }
        }
    }

    /// Removes `tag`; returns `true` if it was a member.
    pub fn remove(&mut self, tag: Tag) -> bool {
        match self.position(tag) {
            Ok(at) => {
                self.remove_at(at);
                true
            }
            Err(_) => false,
        }
    }

    /// Where `tag` stands among the members (`Ok`), or would stand
    /// (`Err`): one search for a caller that goes on to insert or remove.
    #[inline]
    pub(super) fn position(&self, tag: Tag) -> Result<usize, usize> {
        let at = self.index_for(tag);
        match self.tags.get(at) {
            Some(t) if t.index() == tag.index() => Ok(at),
            _ => Err(at),
        }
    }

    /// Inserts `tag`, not a member, at `at` (its [`position`](Self::position)).
    pub(super) fn insert_at(&mut self, at: usize, tag: Tag) {
        self.tags.insert(at, tag);
        match &mut self.bits {
            Some(bits) => set_bit(bits, tag.index()),
            None if self.tags.len() > INLINE_TAGS => self.keep_bits(),
            None => {}
        }
    }

    /// Removes the member at `at` (its [`position`](Self::position)).
    pub(super) fn remove_at(&mut self, at: usize) {
        let tag = self.tags.remove(at);
        if let Some(bits) = &mut self.bits {
            let (word, bit) = split(tag.index());
            bits[word] &= !bit;
            while bits.last() == Some(&0) {
                bits.pop();
            }
        }
    }

    /// Starts keeping the bitset (the set has outgrown its inline room).
    #[cold]
    fn keep_bits(&mut self) {
        let mut bits = Bits::new();
        for member in &self.tags {
            set_bit(&mut bits, member.index());
        }
        self.bits = Some(Box::new(bits));
    }

    /// Where `tag` stands among the members, if it is one.
    pub(super) fn index_of(&self, tag: Tag) -> Option<usize> {
        self.position(tag).ok()
    }

    /// Where `tag` stands, or would stand, among the members.
    fn index_for(&self, tag: Tag) -> usize {
        self.tags.partition_point(|t| t.index() < tag.index())
    }

    /// Removes every tag, keeping any heap capacity.
    pub fn clear(&mut self) {
        self.tags.clear();
        if let Some(bits) = &mut self.bits {
            bits.clear();
        }
    }

    /// Adds every tag of `other`.
    pub fn extend_from(&mut self, other: &TagSet) {
        for tag in other.iter() {
            self.insert(tag);
        }
    }

    /// Parent-aware membership: `tag` itself or any descendant of it is in
    /// the set. O(1) for leaves of a large set, O(subtree width / 64) for
    /// parents; a small set compares its few members.
    #[inline]
    pub fn has(&self, tag: Tag) -> bool {
        self.any_in_range(tag.index(), tag.subtree_end())
    }

    /// Exact membership: `tag` itself is in the set.
    #[inline]
    pub fn has_exact(&self, tag: Tag) -> bool {
        match &self.bits {
            Some(bits) => bit_is_set(bits, tag.index()),
            None => self.tags.iter().any(|t| t.index() == tag.index()),
        }
    }

    /// At least one tag of `other` is [`has`](TagSet::has)-present here.
    /// `false` when `other` is empty.
    pub fn has_any(&self, other: &TagSet) -> bool {
        other.iter().any(|tag| self.has(tag))
    }

    /// At least one tag of `other` is exactly present here. `false` when
    /// `other` is empty.
    pub fn has_any_exact(&self, other: &TagSet) -> bool {
        match (&self.bits, &other.bits) {
            (Some(a), Some(b)) => a.iter().zip(b.iter()).any(|(a, b)| a & b != 0),
            (Some(a), None) => {
                let a = a.as_slice();
                other.iter().any(|tag| bit_is_set(a, tag.index()))
            }
            (None, _) => other.iter().any(|tag| self.has_exact(tag)),
        }
    }

    /// Every tag of `other` is [`has`](TagSet::has)-present here. `true` when
    /// `other` is empty.
    pub fn has_all(&self, other: &TagSet) -> bool {
        other.iter().all(|tag| self.has(tag))
    }

    /// Every tag of `other` is exactly present here. `true` when `other` is
    /// empty.
    pub fn has_all_exact(&self, other: &TagSet) -> bool {
        match (&self.bits, &other.bits) {
            (Some(a), Some(b)) => b
                .iter()
                .enumerate()
                .all(|(i, w)| a.get(i).copied().unwrap_or(0) & w == *w),
            (Some(a), None) => {
                let a = a.as_slice();
                other.iter().all(|tag| bit_is_set(a, tag.index()))
            }
            (None, _) => other.len() <= self.len() && other.iter().all(|tag| self.has_exact(tag)),
        }
    }

    /// True when a member's id is in `lo..hi` (`lo < hi`).
    #[inline]
    fn any_in_range(&self, lo: usize, hi: usize) -> bool {
        match &self.bits {
            Some(bits) => bits_in_range(bits, lo, hi),
            // Members are sorted: the first at or past `lo` decides.
            None => self
                .tags
                .iter()
                .find(|t| t.index() >= lo)
                .is_some_and(|t| t.index() < hi),
        }
    }

    /// The presence bitset of the members (what a saved set carries).
    fn bitset(&self) -> Bits {
        match &self.bits {
            Some(bits) => Bits::clone(bits),
            None => {
                let mut bits = Bits::new();
                for member in &self.tags {
                    set_bit(&mut bits, member.index());
                }
                bits
            }
        }
    }
}

/// True when bit `index` is set.
#[inline]
fn bit_is_set(bits: &[u64], index: usize) -> bool {
    let (word, bit) = split(index);
    bits.get(word).is_some_and(|w| w & bit != 0)
}

/// Sets bit `index`, growing the words as needed.
fn set_bit(bits: &mut Bits, index: usize) {
    let (word, bit) = split(index);
    if word >= bits.len() {
        bits.resize(word + 1, 0);
    }
    bits[word] |= bit;
}

/// True when any bit in `lo..hi` is set (`lo < hi`).
#[inline]
fn bits_in_range(words: &[u64], lo: usize, hi: usize) -> bool {
    let first = lo / 64;
    if first >= words.len() {
        return false;
    }
    let last = (hi - 1) / 64;
    let low_mask = u64::MAX << (lo % 64);
    let high_mask = u64::MAX >> (63 - (hi - 1) % 64);
    if first == last {
        // Leaves and small subtrees: one word, one test.
        return words[first] & low_mask & high_mask != 0;
    }
    if words[first] & low_mask != 0 {
        return true;
    }
    let middle = &words[first + 1..last.min(words.len())];
    if middle.iter().any(|w| *w != 0) {
        return true;
    }
    words.get(last).is_some_and(|w| w & high_mask != 0)
}

/// Two sets are equal when they hold the same members (the bitset is a
/// derived index, present or not).
impl PartialEq for TagSet {
    fn eq(&self, other: &Self) -> bool {
        self.tags == other.tags
    }
}

impl Eq for TagSet {}

impl std::hash::Hash for TagSet {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.tags.hash(state);
    }
}

/// Saved as `(bits, tags)`: the shape (and so the checksums) of every
/// snapshot taken before the bitset became optional.
impl Serialize for TagSet {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        SavedTagSet {
            bits: self.bitset(),
            tags: self.tags.clone(),
        }
        .serialize(serializer)
    }
}

/// Read back through [`insert`](TagSet::insert), so a set read from
/// outside is canonical; one whose bits or order disagree with its members
/// is refused, naming what disagrees.
impl<'de> Deserialize<'de> for TagSet {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let saved = SavedTagSet::deserialize(deserializer)?;
        let set: TagSet = saved.tags.iter().copied().collect();
        if set.tags != saved.tags {
            return Err(serde::de::Error::custom(
                "a tag set's members are not sorted by id, or repeat",
            ));
        }
        if set.bitset() != saved.bits {
            return Err(serde::de::Error::custom(
                "a tag set's bits do not match its members",
            ));
        }
        Ok(set)
    }
}

/// [`TagSet`]'s saved form.
#[derive(Serialize, Deserialize)]
#[serde(rename = "TagSet")]
struct SavedTagSet {
    bits: Bits,
    tags: SmallVec<[Tag; INLINE_TAGS]>,
}

#[inline]
fn split(index: usize) -> (usize, u64) {
    (index / 64, 1u64 << (index % 64))
}

impl FromIterator<Tag> for TagSet {
    fn from_iter<I: IntoIterator<Item = Tag>>(iter: I) -> Self {
        let mut set = TagSet::new();
        for tag in iter {
            set.insert(tag);
        }
        set
    }
}

impl Extend<Tag> for TagSet {
    fn extend<I: IntoIterator<Item = Tag>>(&mut self, iter: I) {
        for tag in iter {
            self.insert(tag);
        }
    }
}

impl std::fmt::Debug for TagSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set()
            .entries(self.tags.iter().map(|t| t.index()))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clone_keeps_the_form_of_the_set() {
        let large: TagSet = (0..8).map(Tag::leaf).collect();
        assert!(large.bits.is_some(), "eight members keep a bitset");
        let copy = large.clone();
        assert_eq!((&copy.tags, &copy.bits), (&large.tags, &large.bits));
        let small: TagSet = [3, 1].into_iter().map(Tag::leaf).collect();
        let copy = small.clone();
        assert_eq!(copy.tags, small.tags);
        assert!(copy.bits.is_none() && !copy.tags.spilled());
    }
}

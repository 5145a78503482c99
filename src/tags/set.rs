//! [`TagSet`]: a container of gameplay tags with GAS matching rules.

use serde::{Deserialize, Serialize};
use smallvec::SmallVec;

use super::Tag;

/// Inline capacity of the presence bitset, in 64-bit words: registries of up
/// to 256 tags never touch the heap. Larger registries spill once and reuse.
const INLINE_WORDS: usize = 4;
/// Inline capacity of the member list.
const INLINE_TAGS: usize = 6;

/// A set of gameplay tags (the role of `FGameplayTagContainer`).
///
/// Matching follows GAS: [`has`](TagSet::has) is parent-aware (a set holding
/// `A.B.C` has `A.B` and `A`), [`has_exact`](TagSet::has_exact) is not.
/// Each query is O(1) in the size of the set, or O(n) in the size of the
/// *argument* set for the `has_any`/`has_all` family, and never allocates.
///
/// Empty arguments follow GAS: `has_any(empty)` is `false`,
/// `has_all(empty)` is `true` (every one of zero tags is present).
///
/// Internally the set keeps a bitset over tag ids (for O(1) membership and
/// subtree-range tests) and a sorted list of members (for iteration).
#[derive(Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TagSet {
    /// Bit `i` is set when the tag with id `i` is a member. No trailing zero
    /// words, so derived equality is set equality.
    bits: SmallVec<[u64; INLINE_WORDS]>,
    /// Members sorted by id.
    tags: SmallVec<[Tag; INLINE_TAGS]>,
}

impl TagSet {
    /// True when every member is one of `registry`'s and the set is in its
    /// canonical form (what a set read from outside must satisfy).
    pub(crate) fn is_valid_in(&self, registry: &crate::tags::TagRegistry) -> bool {
        self.iter().all(|t| registry.knows(t)) && self.iter().collect::<TagSet>() == *self
    }

    /// An empty set.
    pub fn new() -> Self {
        Self::default()
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
        let (word, bit) = split(tag.index());
        if word >= self.bits.len() {
            self.bits.resize(word + 1, 0);
        }
        if self.bits[word] & bit != 0 {
            return false;
        }
        self.bits[word] |= bit;
        let at = self.index_for(tag);
        self.tags.insert(at, tag);
        true
    }

    /// Removes `tag`; returns `true` if it was a member.
    pub fn remove(&mut self, tag: Tag) -> bool {
        let (word, bit) = split(tag.index());
        match self.bits.get_mut(word) {
            Some(w) if *w & bit != 0 => *w &= !bit,
            _ => return false,
        }
        while self.bits.last() == Some(&0) {
            self.bits.pop();
        }
        let at = self.index_for(tag);
        self.tags.remove(at);
        true
    }

    /// Where `tag` stands among the members, if it is one.
    pub(super) fn index_of(&self, tag: Tag) -> Option<usize> {
        self.has_exact(tag).then(|| self.index_for(tag))
    }

    /// Where `tag` stands, or would stand, among the members.
    pub(super) fn index_for(&self, tag: Tag) -> usize {
        self.tags.partition_point(|t| t.index() < tag.index())
    }

    /// Removes every tag, keeping any heap capacity.
    pub fn clear(&mut self) {
        self.bits.clear();
        self.tags.clear();
    }

    /// Adds every tag of `other`.
    pub fn extend_from(&mut self, other: &TagSet) {
        for tag in other.iter() {
            self.insert(tag);
        }
    }

    /// Parent-aware membership: `tag` itself or any descendant of it is in
    /// the set. O(1) for leaves, O(subtree width / 64) for parents.
    #[inline]
    pub fn has(&self, tag: Tag) -> bool {
        self.any_in_range(tag.index(), tag.subtree_end())
    }

    /// Exact membership: `tag` itself is in the set. O(1).
    #[inline]
    pub fn has_exact(&self, tag: Tag) -> bool {
        let (word, bit) = split(tag.index());
        self.bits.get(word).is_some_and(|w| w & bit != 0)
    }

    /// At least one tag of `other` is [`has`](TagSet::has)-present here.
    /// `false` when `other` is empty.
    pub fn has_any(&self, other: &TagSet) -> bool {
        other.iter().any(|tag| self.has(tag))
    }

    /// At least one tag of `other` is exactly present here. `false` when
    /// `other` is empty. O(words).
    pub fn has_any_exact(&self, other: &TagSet) -> bool {
        self.bits.iter().zip(&other.bits).any(|(a, b)| a & b != 0)
    }

    /// Every tag of `other` is [`has`](TagSet::has)-present here. `true` when
    /// `other` is empty.
    pub fn has_all(&self, other: &TagSet) -> bool {
        other.iter().all(|tag| self.has(tag))
    }

    /// Every tag of `other` is exactly present here. `true` when `other` is
    /// empty. O(words).
    pub fn has_all_exact(&self, other: &TagSet) -> bool {
        other
            .bits
            .iter()
            .enumerate()
            .all(|(i, b)| self.bits.get(i).copied().unwrap_or(0) & b == *b)
    }

    /// True when any bit in `lo..hi` is set (`lo < hi`).
    #[inline]
    fn any_in_range(&self, lo: usize, hi: usize) -> bool {
        let words = self.bits.as_slice();
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

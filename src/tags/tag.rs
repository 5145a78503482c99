//! [`Tag`]: one interned gameplay tag.

use serde::{Deserialize, Serialize};

/// One gameplay tag, such as `Combat.DamageType.Slash`.
///
/// A tag is four bytes: its id in the [`TagRegistry`](crate::TagRegistry) and
/// the id one past the end of its subtree. The registry numbers tags in
/// depth-first order, so every descendant of a tag has an id inside
/// `id..end`. That makes the hierarchy test ([`Tag::matches`]) two integer
/// comparisons with no registry lookup, and a parent-aware membership test on
/// a [`TagSet`](crate::TagSet) a bit-range test.
///
/// Tags are only meaningful with the registry that produced them. Names are
/// resolved to tags once, at load; nothing at run time compares strings.
///
/// A tag read back (a save, a client's event) is refused unless its
/// subtree holds it (`end > id`): every tag a registry hands out does, and
/// the hierarchy test relies on it. Whether the registry knows it is the
/// reader's check ([`TagRegistry::knows`](crate::TagRegistry::knows)).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "SavedTag")]
pub struct Tag {
    id: u16,
    end: u16,
}

/// A tag as read, before the check that it is well formed.
#[derive(Deserialize)]
#[serde(rename = "Tag")]
struct SavedTag {
    id: u16,
    end: u16,
}

impl TryFrom<SavedTag> for Tag {
    type Error = String;

    fn try_from(saved: SavedTag) -> Result<Self, Self::Error> {
        if saved.end > saved.id {
            Ok(Tag::from_parts(saved.id, saved.end))
        } else {
            Err(format!(
                "tag {} ends its subtree at {}: a tag's subtree holds the tag itself",
                saved.id, saved.end
            ))
        }
    }
}

impl Tag {
    /// Builds a tag from registry numbering. Only the registry calls this.
    pub(crate) const fn from_parts(id: u16, end: u16) -> Self {
        Self { id, end }
    }

    /// A tag with id `id` and no children, for unit tests that need tags
    /// without a registry.
    #[cfg(test)]
    pub(crate) const fn leaf(id: u16) -> Self {
        Self::from_parts(id, id + 1)
    }

    /// The tag's dense index in its registry, usable to index arrays.
    #[inline]
    pub const fn index(self) -> usize {
        self.id as usize
    }

    /// One past the index of the last descendant of this tag.
    #[inline]
    pub const fn subtree_end(self) -> usize {
        self.end as usize
    }

    /// True when `self` is `other` or a descendant of it, the way GAS
    /// `MatchesTag` works: `Action.Modal.Banking` matches `Action.Modal`, but
    /// `Action.Modal` does not match `Action.Modal.Banking`. O(1).
    #[inline]
    pub const fn matches(self, other: Tag) -> bool {
        other.id <= self.id && self.id < other.end
    }

    /// True when `self` is exactly `other`. O(1).
    #[inline]
    pub const fn matches_exact(self, other: Tag) -> bool {
        self.id == other.id
    }

    /// True when no other tag descends from this one.
    #[inline]
    pub const fn is_leaf(self) -> bool {
        self.end == self.id + 1
    }
}

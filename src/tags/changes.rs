//! [`TagChanges`]: the tags that appeared on (or vanished from) an entity
//! since its last reconcile.

use serde::{Deserialize, Serialize};
use smallvec::SmallVec;

use super::{Tag, TagRegistry, TagSet};

/// A handful of tags, in id order, each once: what changed presence on an
/// entity during one context call (usually one tag, a cooldown coming or
/// going).
///
/// Every entity carries two of these, so they are a short list rather than
/// a [`TagSet`] (a quarter of the size, and adding a tag is a push, not a
/// bitset update plus a list insert). Saved as a `TagSet`, so a saved state
/// reads the same either way.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "TagSet", into = "TagSet")]
pub(crate) struct TagChanges {
    /// Sorted by id, no repeats.
    tags: SmallVec<[Tag; 2]>,
}

impl TagChanges {
    /// Notes `tag` (once).
    pub(crate) fn insert(&mut self, tag: Tag) {
        if let Err(at) = self.tags.binary_search_by_key(&tag.index(), |t| t.index()) {
            self.tags.insert(at, tag);
        }
    }

    /// True when nothing changed.
    pub(crate) fn is_empty(&self) -> bool {
        self.tags.is_empty()
    }

    /// Forgets every change, keeping the room.
    pub(crate) fn clear(&mut self) {
        self.tags.clear();
    }

    /// The changed tags, in id order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = Tag> + '_ {
        self.tags.iter().copied()
    }

    /// Parent-aware, like [`TagSet::has`]: `tag` or a tag below it changed.
    pub(crate) fn has(&self, tag: Tag) -> bool {
        self.tags.iter().any(|t| t.matches(tag))
    }

    /// Some changed tag is exactly a member of `set`.
    pub(crate) fn meets(&self, set: &TagSet) -> bool {
        self.tags.iter().any(|&t| set.has_exact(t))
    }

    /// Every tag is one of `registry`'s (what a saved state must satisfy).
    pub(crate) fn is_valid_in(&self, registry: &TagRegistry) -> bool {
        self.tags.iter().all(|&t| registry.knows(t))
    }
}

impl From<TagSet> for TagChanges {
    fn from(set: TagSet) -> Self {
        Self {
            tags: set.iter().collect(),
        }
    }
}

impl From<TagChanges> for TagSet {
    fn from(changes: TagChanges) -> Self {
        changes.tags.into_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notes_each_tag_once_in_id_order_and_matches_parents() {
        let registry = TagRegistry::core();
        let tags: Vec<Tag> = registry.iter().take(6).collect();
        let mut changes = TagChanges::default();
        for &t in &[tags[4], tags[1], tags[4], tags[3]] {
            changes.insert(t);
        }
        assert_eq!(
            changes.iter().collect::<Vec<_>>(),
            [tags[1], tags[3], tags[4]]
        );
        let set: TagSet = changes.iter().collect();
        for &t in &tags {
            assert_eq!(changes.has(t), set.has(t), "parent-aware like a TagSet");
        }
        let only: TagSet = [tags[3]].into_iter().collect();
        assert!(changes.meets(&only));
        assert!(!changes.meets(&[tags[0]].into_iter().collect()));
        // Saved as the set it stands for.
        let text = ron::to_string(&changes).unwrap();
        assert_eq!(text, ron::to_string(&set).unwrap());
        assert_eq!(ron::from_str::<TagChanges>(&text).unwrap(), changes);
        changes.clear();
        assert!(changes.is_empty());
    }
}

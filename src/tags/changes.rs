//! [`TagNotes`]: the tags that appeared on or vanished from an entity
//! since its last reconcile, and [`TagChanges`], either way's list as the
//! reconcile takes it.

use serde::{Deserialize, Serialize};
use smallvec::SmallVec;

use super::{Tag, TagRegistry, TagSet};

/// A handful of tags, in id order, each once: what changed presence one
/// way on an entity during one context call (usually one tag, a cooldown
/// coming or going), as the reconcile takes it from the entity's
/// [`TagNotes`]. A short list rather than a [`TagSet`] (24 bytes, not
/// 40). Saved as a `TagSet`, so a saved state reads the same either way.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "TagSet", into = "TagSet")]
pub(crate) struct TagChanges {
    /// Sorted by id, no repeats.
    tags: SmallVec<[Tag; 2]>,
}

impl TagChanges {
    /// True when nothing changed.
    pub(crate) fn is_empty(&self) -> bool {
        self.tags.is_empty()
    }

    /// The changed tags, in id order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = Tag> + '_ {
        self.tags.iter().copied()
    }

    /// Parent-aware, like [`TagSet::has`]: `tag` or a tag below it changed.
    pub(crate) fn has(&self, tag: Tag) -> bool {
        self.tags.iter().any(|t| t.matches(tag))
    }
}

/// What changed presence on an entity since its last reconcile: the tags
/// that appeared and those that vanished, in one short list (a tag that
/// came and went is in it twice, once each way).
///
/// Every entity carries one; as two [`TagChanges`] it would carry two
/// lists' words, 24 bytes more, for notes that are nearly always empty
/// (a fighter's cooldown and combat mark end lazily and stay owned
/// between swings). The reconcile takes it as the two lists it stands
/// for, and a save writes those.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct TagNotes {
    /// Each changed tag with `true` if it appeared, `false` if it
    /// vanished; sorted by id and then that flag, no repeats.
    notes: SmallVec<[(Tag, bool); 2]>,
}

impl TagNotes {
    /// The notes the two lists stand for.
    pub(crate) fn from_changes(appeared: &TagChanges, vanished: &TagChanges) -> Self {
        let mut notes = Self::default();
        appeared.iter().for_each(|tag| notes.note(tag, true));
        vanished.iter().for_each(|tag| notes.note(tag, false));
        notes
    }

    /// Notes that `tag` became present (once).
    pub(crate) fn appeared(&mut self, tag: Tag) {
        self.note(tag, true);
    }

    /// Notes that `tag` became absent (once).
    pub(crate) fn vanished(&mut self, tag: Tag) {
        self.note(tag, false);
    }

    fn note(&mut self, tag: Tag, appeared: bool) {
        let key = (tag.index(), appeared);
        if let Err(at) = self
            .notes
            .binary_search_by_key(&key, |&(t, a)| (t.index(), a))
        {
            self.notes.insert(at, (tag, appeared));
        }
    }

    /// True when nothing changed.
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.notes.is_empty()
    }

    /// Forgets every change, keeping the room.
    pub(crate) fn clear(&mut self) {
        self.notes.clear();
    }

    /// Some changed tag, either way, is exactly a member of `set`.
    pub(crate) fn meets(&self, set: &TagSet) -> bool {
        self.notes.iter().any(|&(t, _)| set.has_exact(t))
    }

    /// Every tag is one of `registry`'s (what a saved state must satisfy).
    pub(crate) fn is_valid_in(&self, registry: &TagRegistry) -> bool {
        self.notes.iter().all(|&(t, _)| registry.knows(t))
    }

    /// The tags that appeared and those that vanished, each in id order.
    pub(crate) fn split(&self) -> (TagChanges, TagChanges) {
        let way = |appeared: bool| TagChanges {
            tags: self
                .notes
                .iter()
                .filter(|&&(_, a)| a == appeared)
                .map(|&(t, _)| t)
                .collect(),
        };
        (way(true), way(false))
    }

    /// [`split`](Self::split), leaving the notes empty.
    pub(crate) fn take(&mut self) -> (TagChanges, TagChanges) {
        let split = self.split();
        self.clear();
        split
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
    fn changes_hold_each_tag_once_in_id_order_and_match_parents() {
        let registry = TagRegistry::core();
        let tags: Vec<Tag> = registry.iter().take(6).collect();
        let mut notes = TagNotes::default();
        for &t in &[tags[4], tags[1], tags[4], tags[3]] {
            notes.appeared(t);
        }
        let (changes, none) = notes.split();
        assert!(none.is_empty() && !changes.is_empty());
        assert_eq!(
            changes.iter().collect::<Vec<_>>(),
            [tags[1], tags[3], tags[4]]
        );
        let set: TagSet = changes.iter().collect();
        for &t in &tags {
            assert_eq!(changes.has(t), set.has(t), "parent-aware like a TagSet");
        }
        // Saved as the set it stands for.
        let text = ron::to_string(&changes).unwrap();
        assert_eq!(text, ron::to_string(&set).unwrap());
        assert_eq!(ron::from_str::<TagChanges>(&text).unwrap(), changes);
    }

    /// One list holds both ways: a tag that came and went is noted each
    /// way once, and the two lists come back apart, each in id order.
    #[test]
    fn notes_keep_both_ways_in_one_list() {
        let registry = TagRegistry::core();
        let tags: Vec<Tag> = registry.iter().take(6).collect();
        let mut notes = TagNotes::default();
        assert!(notes.is_empty());
        assert_eq!(std::mem::size_of::<TagNotes>(), 24);
        notes.appeared(tags[4]);
        notes.vanished(tags[2]);
        notes.appeared(tags[1]);
        notes.vanished(tags[4]);
        notes.appeared(tags[4]);
        let (appeared, vanished) = notes.split();
        assert_eq!(appeared.iter().collect::<Vec<_>>(), [tags[1], tags[4]]);
        assert_eq!(vanished.iter().collect::<Vec<_>>(), [tags[2], tags[4]]);
        assert!(notes.meets(&[tags[2]].into_iter().collect()));
        assert!(!notes.meets(&[tags[3]].into_iter().collect()));
        assert_eq!(TagNotes::from_changes(&appeared, &vanished), notes);
        assert_eq!(notes.take(), (appeared, vanished));
        assert!(notes.is_empty());
    }
}

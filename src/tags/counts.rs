//! [`TagCounts`]: counted owned tags (the role of `FGameplayTagCountContainer`).

use std::fmt;

use serde::{Deserialize, Serialize};
use smallvec::SmallVec;

use super::{Tag, TagSet};

/// The tags an entity owns, each with a reference count.
///
/// Several sources can grant the same tag (two effects granting
/// `Status.Stunned`, a loose tag and an effect): each adds a reference, and
/// the tag stays present until the last one is removed. Every mutation
/// reports which tags changed *presence* (count 0 ↔ 1), exactly per tag as
/// added or removed. Observers that care about a parent ask the reported set
/// with [`TagSet::has`]: as in GAS, matching is parent-aware while the report
/// itself names leaves, so a listener on `Combat.DamageType` learns *which*
/// type arrived instead of a bare parent event.
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TagCounts {
    present: TagSet,
    /// Non-zero counts, sorted by tag index.
    counts: SmallVec<[(Tag, u32); 8]>,
}

/// Removing a reference that was never added: the caller's bookkeeping is
/// wrong. Nothing was changed.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct NotHeld(pub Tag);

impl fmt::Display for NotHeld {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "tag #{} is not held, so it cannot be released",
            self.0.index()
        )
    }
}

impl std::error::Error for NotHeld {}

impl TagCounts {
    /// True when every tag is one of `registry`'s, every count positive, and
    /// the present set matches the counted tags.
    pub(crate) fn is_valid_in(&self, registry: &crate::tags::TagRegistry) -> bool {
        self.present.is_valid_in(registry)
            && self.counts.iter().all(|&(t, n)| n > 0 && registry.knows(t))
            && self.counts.iter().map(|&(t, _)| t).collect::<TagSet>() == self.present
    }

    /// No tags.
    pub fn new() -> Self {
        Self::default()
    }

    /// The tags currently present (count ≥ 1), for queries.
    #[inline]
    pub fn tags(&self) -> &TagSet {
        &self.present
    }

    /// The reference count of exactly `tag` (descendants are not summed).
    pub fn count(&self, tag: Tag) -> u32 {
        self.position(tag).map_or(0, |at| self.counts[at].1)
    }

    /// Adds one reference to `tag`; returns `true` when it became present.
    pub fn add(&mut self, tag: Tag) -> bool {
        match self.position(tag) {
            Some(at) => {
                self.counts[at].1 += 1;
                false
            }
            None => {
                let at = self
                    .counts
                    .partition_point(|(t, _)| t.index() < tag.index());
                self.counts.insert(at, (tag, 1));
                self.present.insert(tag);
                true
            }
        }
    }

    /// Releases one reference to `tag`; returns `true` when it stopped being
    /// present. Releasing a tag with no reference changes nothing and errs.
    pub fn remove(&mut self, tag: Tag) -> Result<bool, NotHeld> {
        let at = self.position(tag).ok_or(NotHeld(tag))?;
        self.counts[at].1 -= 1;
        if self.counts[at].1 > 0 {
            return Ok(false);
        }
        self.counts.remove(at);
        self.present.remove(tag);
        Ok(true)
    }

    /// Adds one reference to every tag of `tags`; returns the tags that
    /// became present.
    pub fn add_all(&mut self, tags: &TagSet) -> TagSet {
        let mut appeared = TagSet::new();
        for tag in tags.iter() {
            if self.add(tag) {
                appeared.insert(tag);
            }
        }
        appeared
    }

    /// Releases one reference to every tag of `tags`; returns the tags that
    /// disappeared. All-or-nothing: if any tag is not held, nothing changes.
    pub fn remove_all(&mut self, tags: &TagSet) -> Result<TagSet, NotHeld> {
        if let Some(missing) = tags.iter().find(|&t| self.position(t).is_none()) {
            return Err(NotHeld(missing));
        }
        let mut vanished = TagSet::new();
        for tag in tags.iter() {
            if self.remove(tag) == Ok(true) {
                vanished.insert(tag);
            }
        }
        Ok(vanished)
    }

    /// Every `(tag, count)` with a non-zero count, in registry order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (Tag, u32)> + '_ {
        self.counts.iter().copied()
    }

    fn position(&self, tag: Tag) -> Option<usize> {
        if !self.present.has_exact(tag) {
            return None;
        }
        Some(
            self.counts
                .partition_point(|(t, _)| t.index() < tag.index()),
        )
    }
}

impl fmt::Debug for TagCounts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(self.counts.iter().map(|(t, c)| (t.index(), c)))
            .finish()
    }
}

//! [`TagCounts`]: counted owned tags (the role of `FGameplayTagCountContainer`).

use std::fmt;

use serde::de::Error as _;
use serde::ser::SerializeStruct;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
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
///
/// The counts are kept in the order of the present set's members, so a tag
/// is listed once (a fighter's few tags cost 72 bytes, not 112).
#[derive(Clone, Default, PartialEq, Eq)]
pub struct TagCounts {
    present: TagSet,
    /// The reference count of each member of `present`, in its order
    /// (every one positive).
    counts: SmallVec<[u32; 6]>,
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
            && self.counts.len() == self.present.len()
            && self.counts.iter().all(|&n| n > 0)
    }

    /// No tags.
    pub const fn new() -> Self {
        Self {
            present: TagSet::new(),
            counts: SmallVec::new_const(),
        }
    }

    /// The tags currently present (count ≥ 1), for queries.
    #[inline]
    pub fn tags(&self) -> &TagSet {
        &self.present
    }

    /// The reference count of exactly `tag` (descendants are not summed).
    pub fn count(&self, tag: Tag) -> u32 {
        self.present.index_of(tag).map_or(0, |at| self.counts[at])
    }

    /// Adds one reference to `tag`; returns `true` when it became present.
    pub fn add(&mut self, tag: Tag) -> bool {
        match self.present.position(tag) {
            Ok(at) => {
                self.counts[at] += 1;
                false
            }
            Err(at) => {
                self.present.insert_at(at, tag);
                self.counts.insert(at, 1);
                true
            }
        }
    }

    /// Releases one reference to `tag`; returns `true` when it stopped being
    /// present. Releasing a tag with no reference changes nothing and errs.
    pub fn remove(&mut self, tag: Tag) -> Result<bool, NotHeld> {
        let at = self.present.index_of(tag).ok_or(NotHeld(tag))?;
        self.counts[at] -= 1;
        if self.counts[at] > 0 {
            return Ok(false);
        }
        self.counts.remove(at);
        self.present.remove_at(at);
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
        let mut vanished = TagSet::new();
        self.remove_each(tags, |tag| {
            vanished.insert(tag);
        })?;
        Ok(vanished)
    }

    /// Releases one reference to every tag of `tags`, calling `vanished`
    /// with each that stops being present, in order. All-or-nothing: if any
    /// tag is not held, nothing changes and `vanished` is not called.
    pub(crate) fn remove_each(
        &mut self,
        tags: &TagSet,
        mut vanished: impl FnMut(Tag),
    ) -> Result<(), NotHeld> {
        // Several tags are checked before any is removed; one tag's removal
        // is all or nothing by itself (a cooldown grants one).
        if tags.len() > 1 {
            if let Some(missing) = tags.iter().find(|&t| !self.present.has_exact(t)) {
                return Err(NotHeld(missing));
            }
        }
        for tag in tags.iter() {
            if self.remove(tag)? {
                vanished(tag);
            }
        }
        Ok(())
    }

    /// Every `(tag, count)` with a non-zero count, in registry order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (Tag, u32)> + '_ {
        self.present.iter().zip(self.counts.iter().copied())
    }
}

/// Saved as before the counts followed the present set's order: the present
/// set, then `(tag, count)` pairs.
impl Serialize for TagCounts {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        struct Pairs<'a>(&'a TagCounts);
        impl Serialize for Pairs<'_> {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.collect_seq(self.0.iter())
            }
        }
        let mut state = serializer.serialize_struct("TagCounts", 2)?;
        state.serialize_field("present", &self.present)?;
        state.serialize_field("counts", &Pairs(self))?;
        state.end()
    }
}

impl<'de> Deserialize<'de> for TagCounts {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(rename = "TagCounts")]
        struct Saved {
            present: TagSet,
            counts: Vec<(Tag, u32)>,
        }
        let saved = Saved::deserialize(deserializer)?;
        if !saved
            .counts
            .iter()
            .map(|&(t, _)| t)
            .eq(saved.present.iter())
        {
            return Err(D::Error::custom(
                "tag counts do not list exactly the present tags, in order",
            ));
        }
        Ok(Self {
            present: saved.present,
            counts: saved.counts.iter().map(|&(_, n)| n).collect(),
        })
    }
}

impl fmt::Debug for TagCounts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(self.iter().map(|(t, c)| (t.index(), c)))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tags::TagRegistry;

    /// One or several tags, a release is all or nothing, and only the tags
    /// whose last reference goes are reported.
    #[test]
    fn releasing_several_is_all_or_nothing_and_reports_what_vanished() {
        let registry = TagRegistry::core();
        let t: Vec<Tag> = registry.iter().take(3).collect();
        let set = |tags: &[Tag]| tags.iter().copied().collect::<TagSet>();
        let mut counts = TagCounts::new();
        counts.add_all(&set(&[t[0], t[1]]));
        counts.add(t[1]);
        let before: Vec<_> = counts.iter().collect();
        let mut seen = Vec::new();
        assert_eq!(
            counts.remove_each(&set(&[t[2]]), |tag| seen.push(tag)),
            Err(NotHeld(t[2]))
        );
        assert_eq!(
            counts.remove_each(&set(&[t[0], t[1], t[2]]), |tag| seen.push(tag)),
            Err(NotHeld(t[2]))
        );
        assert_eq!(counts.iter().collect::<Vec<_>>(), before, "nothing changed");
        assert!(seen.is_empty());
        counts
            .remove_each(&set(&[t[0], t[1]]), |tag| seen.push(tag))
            .unwrap();
        assert_eq!(seen, [t[0]], "t1 still has a reference");
        assert_eq!(counts.remove_all(&set(&[t[1]])), Ok(set(&[t[1]])));
        assert!(counts.tags().is_empty());
    }

    #[test]
    fn counts_follow_the_present_tags_and_save_as_pairs() {
        let registry = TagRegistry::core();
        let t: Vec<Tag> = registry.iter().take(4).collect();
        let mut counts = TagCounts::new();
        assert!(counts.add(t[3]));
        assert!(counts.add(t[1]));
        assert!(!counts.add(t[3]));
        assert_eq!(counts.iter().collect::<Vec<_>>(), [(t[1], 1), (t[3], 2)]);
        assert_eq!(counts.remove(t[3]), Ok(false));
        assert_eq!(counts.remove(t[1]), Ok(true));
        assert_eq!(counts.remove(t[1]), Err(NotHeld(t[1])));
        assert!(counts.is_valid_in(&registry));
        assert!(counts.add(t[2]));
        // The saved form lists (tag, count) pairs next to the present set.
        let text = ron::to_string(&counts).unwrap();
        let pairs = ron::to_string(&vec![(t[2], 1u32), (t[3], 1)]).unwrap();
        let present = ron::to_string(counts.tags()).unwrap();
        assert_eq!(text, format!("(present:{present},counts:{pairs})"));
        assert_eq!(ron::from_str::<TagCounts>(&text).unwrap(), counts);
        // Pairs that do not list exactly the present tags are refused.
        let wrong = format!(
            "(present:{present},counts:{})",
            ron::to_string(&vec![(t[3], 1u32)]).unwrap()
        );
        let error = ron::from_str::<TagCounts>(&wrong).unwrap_err().to_string();
        assert!(error.contains("tag counts"), "{error}");
    }
}

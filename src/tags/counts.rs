//! [`TagCounts`]: counted owned tags (the role of `FGameplayTagCountContainer`).

use std::fmt;

use serde::de::Error as _;
use serde::ser::SerializeStruct;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::ref_counts::RefCounts;
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
/// is listed once, and in sixteen bits each while they fit: a fighter's
/// few tags cost 56 bytes, not 112.
#[derive(Clone, Default)]
pub struct TagCounts {
    present: TagSet,
    /// The reference count of each member of `present`, in its order
    /// (every one positive).
    counts: RefCounts,
}

/// Equal when the same tags are held as many times, however the counts
/// are kept.
impl PartialEq for TagCounts {
    fn eq(&self, other: &Self) -> bool {
        self.present == other.present && self.iter().eq(other.iter())
    }
}

impl Eq for TagCounts {}

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
            && self.counts.holds(self.present.len())
            && self.iter().all(|(_, n)| n > 0)
    }

    /// No tags.
    pub const fn new() -> Self {
        Self {
            present: TagSet::new(),
            counts: RefCounts::new(),
        }
    }

    /// `tag` alone, held `count` times (at least once).
    pub(crate) fn one(tag: Tag, count: u32) -> Self {
        debug_assert!(count > 0);
        let mut present = TagSet::new();
        present.insert(tag);
        Self {
            present,
            counts: RefCounts::from_values(&[count]),
        }
    }

    /// The tags currently present (count ≥ 1), for queries.
    #[inline]
    pub fn tags(&self) -> &TagSet {
        &self.present
    }

    /// The reference count of exactly `tag` (descendants are not summed).
    pub fn count(&self, tag: Tag) -> u32 {
        self.present
            .index_of(tag)
            .map_or(0, |at| self.counts.get(at))
    }

    /// Adds one reference to `tag`; returns `true` when it became present.
    pub fn add(&mut self, tag: Tag) -> bool {
        match self.present.position(tag) {
            Ok(at) => {
                self.counts.increment(at, self.present.len());
                false
            }
            Err(at) => {
                self.counts.insert_one(at, self.present.len());
                self.present.insert_at(at, tag);
                true
            }
        }
    }

    /// Releases one reference to `tag`; returns `true` when it stopped being
    /// present. Releasing a tag with no reference changes nothing and errs.
    pub fn remove(&mut self, tag: Tag) -> Result<bool, NotHeld> {
        let at = self.present.index_of(tag).ok_or(NotHeld(tag))?;
        if self.counts.decrement(at) > 0 {
            return Ok(false);
        }
        self.counts.remove(at, self.present.len());
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
        self.present
            .iter()
            .enumerate()
            .map(|(at, tag)| (tag, self.counts.get(at)))
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
            counts: RefCounts::from_values(
                &saved.counts.iter().map(|&(_, n)| n).collect::<Vec<_>>(),
            ),
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

    /// 56 bytes. Seven tags, or one held 65 536 times, move the counts to
    /// the heap without losing one; counts kept either way compare, save
    /// and read back alike.
    #[test]
    fn many_tags_or_a_large_count_keep_every_count() {
        assert_eq!(std::mem::size_of::<TagCounts>(), 56);
        let registry = TagRegistry::core();
        let t: Vec<Tag> = registry.iter().take(8).collect();
        let mut spilled = TagCounts::new();
        for &tag in &t[..7] {
            spilled.add(tag);
        }
        spilled.add(t[2]);
        assert_eq!(spilled.count(t[2]), 2);
        for &tag in &t[3..7] {
            assert_eq!(spilled.remove(tag), Ok(true));
        }
        let mut inline = TagCounts::new();
        inline.add_all(&t[..3].iter().copied().collect());
        inline.add(t[2]);
        assert_eq!(spilled, inline, "the same counts, kept apart");
        assert!(spilled.is_valid_in(&registry));
        let text = ron::to_string(&spilled).unwrap();
        assert_eq!(text, ron::to_string(&inline).unwrap());
        assert_eq!(ron::from_str::<TagCounts>(&text).unwrap(), inline);

        let mut large = TagCounts::new();
        for _ in 0..70_000 {
            large.add(t[5]);
        }
        large.add(t[1]);
        assert_eq!(large.count(t[5]), 70_000);
        assert_eq!(
            large.iter().collect::<Vec<_>>(),
            [(t[1], 1), (t[5], 70_000)]
        );
        for _ in 0..69_999 {
            assert_eq!(large.remove(t[5]), Ok(false));
        }
        assert_eq!(large.remove(t[5]), Ok(true));
        assert_eq!(large.iter().collect::<Vec<_>>(), [(t[1], 1)]);
    }
}
